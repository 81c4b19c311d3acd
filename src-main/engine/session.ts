// Opening a session of a state root for writing: folders, lease, one read of the WAL under the lease, writer.
// The order is the contract's (§5): the read happens only once the lock is held, so no other writer can be
// mid-append while we judge its tail; and closing drains the writer before the lease is released. That one read
// gives the lease its epoch, the writer its opening state (greatest fence, next seq, torn tail) and the caller
// what it builds from the frames (a fold, handed in as a sink), so nothing under the lease reads the WAL twice.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { DigestAlgorithmName } from '../../src-shared/wal.js';
import { UnsafeEntryError, WalReadError } from './errors.js';
import { entryAt, nodeFileIO, type FileIO } from './file-io.js';
import { readTarget, sessionTarget } from './inspect.js';
import { acquireLease, type Lease } from './lease.js';
import type { ReadOptions, ReadResult } from './reader.js';
import { finishInterruptedIndex, finishInterruptedRetire } from './retire-steps.js';
import { InvalidSessionIdError, isValidSessionId, leasePath, sessionDir, sessionsDir, walPath } from './state-root.js';
import { WalWriter } from './writer.js';

/** What a caller builds from the frames of the read under the lease, fed as the reader validates them. */
export type FrameSink = Pick<ReadOptions, 'on_frame' | 'decode_payload'>;

export interface OpenSessionOptions<S extends FrameSink = FrameSink> {
  io?: FileIO;
  writer_name: string;
  digest?: DigestAlgorithmName;
  /** false only for `retire`, which finishes an interrupted retire its own way (same steps, its own outcome). */
  finish_interrupted_retire?: boolean;
  /** Makes the sink the read under the lease feeds: once, and once more for a fresh sink if finishing an
   *  interrupted retire replaced the WAL by its successor (which is then read, a lineage frame long). */
  sink?: () => S;
}

export interface WritableSession {
  readonly session_id: string;
  readonly dir: string;
  readonly lease: Lease;
  readonly writer: WalWriter;
  /** Drains, syncs and closes the writer, THEN releases the lease, even when closing the writer fails. */
  close(): void;
}

/** A session whose lease is held but whose WAL is not yet opened for writing: opening the writer appends a
 *  lineage frame, so a caller that may decide to write nothing decides here, under the lease, first. */
export interface LeasedSession<S extends FrameSink = FrameSink> {
  readonly session_id: string;
  readonly dir: string;
  readonly lease: Lease;
  /** The sink that was fed every frame of the WAL as it is now, under the lease (fed nothing when there is no
   *  WAL yet). */
  readonly sink: S;
  /** Opens the writer; the returned session's close() releases the lease too. At most once. */
  openWriter(): WritableSession;
  /** Releases the lease without having written anything. */
  release(): void;
}

/** Opens `session_id` under `root` for writing. Throws LeaseHeldError when a live writer has it, WalReadError
 *  when its WAL (or the root's floor) is refused; in both cases nothing in the session was written. */
export function openSessionForWrite(root: string, session_id: string, options: OpenSessionOptions): WritableSession {
  return leaseSession(root, session_id, options).openWriter();
}

/** Takes the session's lease and reads its WAL under it, without opening the writer (see LeasedSession). A
 *  retire that died after its step 1 is finished first (wal-format §11), so the caller reads, decides and
 *  writes on the successor; the successor's own frame carries this tenure's epoch. One that died after its
 *  step 2 gets its index. */
export function leaseSession<S extends FrameSink = FrameSink>(root: string, session_id: string, options: OpenSessionOptions<S>): LeasedSession<S> {
  if (!isValidSessionId(session_id)) throw new InvalidSessionIdError(session_id);
  const io = options.io ?? nodeFileIO;
  if (io.stat(root)?.is_directory !== true) throw new Error(`state root ${root} is not a folder; create it first`);
  const dir = sessionDir(root, session_id);
  refuseUnsafeEntries(dir);
  const created_dirs = [sessionsDir(root), dir].filter((folder) => makeFolder(io, folder));
  const wal_path = walPath(dir);
  const makeSink = options.sink ?? ((): S => ({}) as S);
  let sink = makeSink();
  let existing: ReadResult | undefined;
  const lease = acquireLease(dir, {
    io,
    writer_name: options.writer_name,
    wal_max_fence: () => {
      existing = readUnderLease(dir, io, sink);
      return existing?.max_fence ?? 0;
    },
  });
  const fence_at_lease = existing?.max_fence ?? 0;
  if (options.finish_interrupted_retire !== false) {
    try {
      const finished = finishInterruptedSteps(root, dir, io, options.writer_name, lease.epoch, existing);
      if (finished) {
        sink = makeSink();
        existing = readUnderLease(dir, io, sink);
      }
    } catch (error) {
      lease.release();
      throw error;
    }
  }
  const openWriter = (): WritableSession => {
    assert.ok(!lease.released, 'the lease must still be held to open the writer');
    const writer_options = { io, fence: lease.epoch, writer_name: options.writer_name, root, created_dirs, digest: options.digest, existing: existing ?? null, fence_at_lease };
    return writableSession(session_id, dir, lease, () => WalWriter.open(wal_path, writer_options));
  };
  return { session_id, dir, lease, sink, openWriter, release: () => lease.release() };
}

/** A retire that died after its step 1 is finished (true: the WAL was replaced by its successor, read it again);
 *  a successor no record was appended to yet gets its index, which its retire may have died before writing. */
function finishInterruptedSteps(root: string, dir: string, io: FileIO, writer_name: string, epoch: number, existing: ReadResult | undefined): boolean {
  if (finishInterruptedRetire(root, dir, existing, { io, writer_name, epoch }) !== null) return true;
  if (existing !== undefined && existing.records === 0) finishInterruptedIndex(io, dir, epoch);
  return false;
}

/** The writer `open` makes, with the lease released if it cannot be opened, and released after it on close. */
function writableSession(session_id: string, dir: string, lease: Lease, open: () => WalWriter): WritableSession {
  let writer: WalWriter;
  try {
    writer = open();
  } catch (error) {
    lease.release();
    throw error;
  }
  return {
    session_id,
    dir,
    lease,
    writer,
    close() {
      try {
        writer.close();
      } finally {
        lease.release();
      }
    },
  };
}

/** undefined when there is no WAL yet (absent or empty); throws when the reader refuses it or the floor. Payloads
 *  are validated, not built: the sink builds what it keeps of them in the same pass. */
function readUnderLease(dir: string, io: FileIO, sink: FrameSink): ReadResult | undefined {
  const found = io.stat(walPath(dir));
  if (found === null || found.size_bytes === 0) return undefined;
  const read = readTarget(sessionTarget(dir), { io, with_payload: false, under_lease: true, ...sink });
  if (read.error !== null) throw new WalReadError(read.error);
  return read;
}

/** Refuses, before anything is created or written, a session whose folders, lease or WAL are links or special
 *  files: the opens for writing refuse them too (O_NOFOLLOW, fstat), this only makes the refusal come first. */
function refuseUnsafeEntries(session_dir: string): void {
  const expected: [string, 'folder' | 'file'][] = [
    [path.dirname(session_dir), 'folder'],
    [session_dir, 'folder'],
    [leasePath(session_dir), 'file'],
    [walPath(session_dir), 'file'],
  ];
  for (const [entry_path, kind] of expected) {
    const entry = entryAt(entry_path);
    if (entry.kind === 'missing' || entry.kind === kind) continue;
    const found = entry.kind === 'other' ? entry.found : entry.kind === 'folder' ? 'a folder' : 'a regular file';
    throw new UnsafeEntryError(entry_path, found, kind === 'folder' ? 'a folder' : 'a regular file');
  }
}

/** true when this call created the folder; a folder another process created first is not ours to sync. */
function makeFolder(io: FileIO, folder: string): boolean {
  if (io.stat(folder)?.is_directory === true) return false;
  try {
    io.mkdir(folder);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' && io.stat(folder)?.is_directory === true) return false;
    throw error;
  }
}
