// The WAL writer (wal-format §4, §9; contract §2, §3). Open it only under the session's lease: opening
// truncates a torn tail, which is safe only when no other writer can be mid-append.
//
// Like LevelDB's log::Writer and etcd's wal, appends go to the page cache at an explicit position and a
// barrier makes them durable. Unlike them, any failed write or sync poisons the writer for good: after a failed
// fsync the kernel may have dropped the dirty pages and cleared the error, so a retry that "succeeds" would call
// lost data durable. The next writer recovers from whatever is on disk.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { DigestAlgorithmName, Payload, ReadFrame } from '../../src-shared/wal.js';
import { describe, WalCeilingError, WalReadError, WriterPoisonedError } from './errors.js';
import { ensureFloor } from './feature-floor.js';
import { requiredFeatures } from './features.js';
import { nodeFileIO, writeFully, type FileIO } from './file-io.js';
import { encodeFrame } from './frame-codec.js';
import { FRAME_OVERHEAD_BYTES, FRAME_VER_GATED, FRAME_VER_PLAIN, WAL_BYTES_CEILING, WAL_BYTES_RESERVE } from './limits.js';
import type { ReadResult } from './reader.js';

export const WAL_ID_BYTES = 16;
export const LINEAGE_TYPE = 'lineage';
/** Frames allowed into the reserve must also be small, so a "terminal" with a huge message cannot eat it. */
export const RESERVE_FRAME_BYTES_MAX = 4_096;
/** The terminal kinds that may use the reserve (contract §2: ordinary and retained sessions). */
const TOO_LARGE_KINDS: ReadonlySet<string> = new Set(['session_too_large', 'retained_session_too_large']);

export interface WalWriterOptions {
  io?: FileIO;
  /** The lease epoch: stamped on every frame, and above every fence the WAL already holds. */
  fence: number;
  writer_name: string;
  digest?: DigestAlgorithmName;
  /** The state root whose feature floor a gated append raises first. null only for a WAL outside any root
   *  (tests): gated frames are then written with no floor to publish them. Required so nobody forgets it. */
  root: string | null;
  /** Folders the caller's open created: the first barrier syncs their parents, making them durable. */
  created_dirs?: readonly string[];
  /** The read of this WAL the caller made under the lease (null: no WAL yet, or an empty one). The writer does
   *  not read the file itself: its opening state comes from that one read. */
  existing: ReadResult | null;
  /** The WAL's greatest fence when the lease was taken, if this tenure wrote frames since (the successor of a
   *  retire it finished): those carry its own epoch, so only the fences before must be exceeded. */
  fence_at_lease?: number;
}

export interface AppendResult {
  seq: number;
  offset: number;
  size_bytes: number;
}

export type WalIoOperation = 'write' | 'fstat' | 'fdatasync' | 'fsync_directory' | 'truncate' | 'keep_torn_tail';

/** A write or sync of the WAL failed. The writer is poisoned; what the disk holds is the next writer's to read. */
export class WalIoError extends Error {
  override name = 'WalIoError';
  readonly code = 'wal_io';
  constructor(
    readonly operation: WalIoOperation,
    readonly path: string,
    readonly offset: number | null,
    override readonly cause: unknown,
  ) {
    super(
      `${operation} of ${path}${offset === null ? '' : ` at offset ${offset}`} failed (${describe(cause)}); ` +
        'nothing since the last barrier is durable: open a new writer to recover from what is on disk',
    );
  }
}

export class WalWriter {
  private fd: number | null;
  private poison_cause: unknown = null;
  private size = 0;
  private seq = 0;
  private synced_seq = 0;
  private unsynced = false;
  /** Folders whose entries the first barrier after open must make durable; cleared only by success. */
  private pending_dirs: string[];
  private opened_lineage: ReadFrame | null = null;

  private constructor(
    readonly path: string,
    readonly io: FileIO,
    fd: number,
    readonly wal_id: Uint8Array,
    readonly fence: number,
    private readonly writer_name: string,
    private readonly digest: DigestAlgorithmName,
    private readonly root: string | null,
    pending_dirs: string[],
  ) {
    this.fd = fd;
    this.pending_dirs = pending_dirs;
  }

  /** Opens `wal_path` for appending, creating it if absent. Refuses (writing nothing) a WAL the reader refuses;
   *  truncates and syncs a torn tail; then appends a lineage frame stamped with this tenure's epoch. */
  static open(wal_path: string, options: WalWriterOptions): WalWriter {
    assert.ok(Number.isSafeInteger(options.fence) && options.fence >= 1, `fence ${options.fence}`);
    assert.ok(options.writer_name.length > 0, 'writer_name must not be empty');
    const io = options.io ?? nodeFileIO;
    const prior = priorOf(io, wal_path, options);
    const fd = io.open(wal_path, 'read_write_create');
    try {
      const size_bytes = io.fstat(fd).size_bytes;
      if (size_bytes !== (prior?.bytes ?? 0)) {
        throw new Error(`${wal_path} is ${size_bytes} bytes but was ${prior?.bytes ?? 0} when read: another process writes it; open only under the lease`);
      }
      if (prior?.torn_tail) {
        keepTornTail(io, fd, wal_path, prior.valid_bytes, size_bytes);
        truncateTornTail(io, fd, wal_path, prior.valid_bytes);
      }
      const continuing = prior !== null && prior.wal_id !== null;
      const absolute = path.resolve(wal_path);
      const writer = new WalWriter(absolute, io, fd, continuing ? prior.wal_id! : new Uint8Array(randomBytes(WAL_ID_BYTES)),
        options.fence, options.writer_name, options.digest ?? 'sha256', options.root === null ? null : path.resolve(options.root),
        dirsToSync(absolute, options.created_dirs ?? []));
      if (continuing) writer.continueAfter(prior);
      writer.appendLineage();
      return writer;
    } catch (error) {
      io.close(fd);
      throw error;
    }
  }

  /** The lineage frame this writer appended at open, as the reader hands frames over: a caller that built a
   *  fold from its read under the lease takes this one in too, rather than read the WAL again. */
  get lineage_frame(): ReadFrame {
    assert.ok(this.opened_lineage !== null, 'open appends the lineage frame');
    return this.opened_lineage;
  }

  get size_bytes(): number {
    return this.size;
  }

  get last_seq(): number {
    return this.seq;
  }

  /** The last seq a successful barrier of this writer covered: everything up to it survives a crash. */
  get durable_seq(): number {
    return this.synced_seq;
  }

  get poisoned(): boolean {
    return this.poison_cause !== null;
  }

  get closed(): boolean {
    return this.fd === null;
  }

  /** Appends one record (not yet durable: see barrier). Gated records raise the root's floor first. */
  append(type: string, payload: Payload): AppendResult {
    this.assertUsable();
    assert.notEqual(type, LINEAGE_TYPE, 'lineage frames are the writer’s own');
    const features = requiredFeatures(type, payload);
    const seq = this.seq + 1;
    const ver = features.length > 0 ? FRAME_VER_GATED : FRAME_VER_PLAIN;
    const frame = encodeFrame({ ver, seq, fence: this.fence, type, features, payload }, this.digest);
    this.admit(frame.length, isTooLargeTerminal(type, payload));
    // The floor must list a feature before any frame requiring it can exist on disk (wal-format §7).
    if (features.length > 0 && this.root !== null) ensureFloor(this.root, features, this.io);
    const offset = this.writeFrame(frame);
    assert.equal(this.seq + 1, seq, 'seq grows by exactly one per record');
    this.seq = seq;
    return { seq, offset, size_bytes: frame.length };
  }

  /** Makes every frame appended so far durable. The first barrier after open also syncs the session folder
   *  and the parents of the folders the open created. Any failure poisons the writer. */
  barrier(): void {
    this.assertUsable();
    if (!this.unsynced && this.pending_dirs.length === 0) return;
    const fd = this.fd!;
    const size_bytes = this.step('fstat', this.path, null, () => this.io.fstat(fd).size_bytes);
    if (size_bytes !== this.size) {
      const foreign = new Error(`the file is ${size_bytes} bytes but this writer wrote ${this.size}: another process wrote to it`);
      throw this.poison(new WalIoError('fstat', this.path, null, foreign));
    }
    this.step('fdatasync', this.path, null, () => this.io.fdatasync(fd));
    for (const dir of this.pending_dirs) this.step('fsync_directory', dir, null, () => this.io.fsyncDirectory(dir));
    this.pending_dirs = [];
    this.unsynced = false;
    this.synced_seq = this.seq;
  }

  /** Syncs what is unsynced, then closes. A poisoned writer just closes: its failure was already reported. */
  close(): void {
    if (this.fd === null) return;
    try {
      if (!this.poisoned) this.barrier();
    } finally {
      this.io.close(this.fd);
      this.fd = null;
    }
  }

  /** Picks up where the intact prefix ends. Its records count as durable only after this writer's first
   *  barrier: a process that died unsynced may have left them in the page cache alone. */
  private continueAfter(prior: ReadResult): void {
    assert.ok(prior.torn_tail !== null || prior.valid_bytes === prior.bytes, 'valid bytes are all bytes unless torn');
    assert.equal(this.size, 0);
    this.size = prior.valid_bytes;
    this.seq = prior.last_seq;
  }

  private appendLineage(): void {
    const payload: Payload = { wal_id: this.wal_id, created_ms: Date.now(), writer: this.writer_name, epoch: this.fence };
    const frame = encodeFrame({ ver: FRAME_VER_PLAIN, seq: 0, fence: this.fence, type: LINEAGE_TYPE, features: [], payload }, this.digest);
    this.admit(frame.length, true);
    const offset = this.writeFrame(frame);
    this.opened_lineage = { offset, size_bytes: frame.length, digest_algorithm: this.digest, ver: FRAME_VER_PLAIN, seq: 0, fence: this.fence, type: LINEAGE_TYPE, features: [], payload };
  }

  /** The 1 GiB ceiling counts every byte; only small lineage and too-large terminals may use the reserve. */
  private admit(frame_bytes: number, reserve_eligible: boolean): void {
    const may_use_reserve = reserve_eligible && frame_bytes <= RESERVE_FRAME_BYTES_MAX;
    const limit_bytes = may_use_reserve ? WAL_BYTES_CEILING : WAL_BYTES_CEILING - WAL_BYTES_RESERVE;
    if (this.size + frame_bytes > limit_bytes) throw new WalCeilingError(this.size, frame_bytes, limit_bytes);
  }

  private writeFrame(frame: Buffer): number {
    const offset = this.size;
    assert.ok(frame.length > FRAME_OVERHEAD_BYTES && offset + frame.length <= WAL_BYTES_CEILING, 'admitted frame');
    this.step('write', this.path, offset, () => writeFully(this.io, this.fd!, frame, offset));
    this.size = offset + frame.length;
    this.unsynced = true;
    return offset;
  }

  private step<T>(operation: WalIoOperation, target: string, offset: number | null, run: () => T): T {
    try {
      return run();
    } catch (error) {
      throw this.poison(new WalIoError(operation, target, offset, error));
    }
  }

  private poison(error: WalIoError): WalIoError {
    assert.equal(this.poison_cause, null, 'a poisoned writer does nothing more');
    this.poison_cause = error;
    return error;
  }

  private assertUsable(): void {
    if (this.fd === null) throw new Error(`writer for ${this.path} is closed`);
    if (this.poison_cause !== null) throw new WriterPoisonedError(this.path, this.poison_cause);
  }
}

/** The session folder (the WAL's parent) first, then the parents of created folders, deepest first. */
function dirsToSync(wal_path: string, created_dirs: readonly string[]): string[] {
  const parents = created_dirs.map((dir) => path.dirname(path.resolve(dir)));
  const unique = [...new Set([path.dirname(wal_path), ...parents])];
  return unique.sort((left, right) => right.length - left.length);
}

/** What is already in the file, or null when there is nothing (absent or empty: a fresh WAL). */
function priorOf(io: FileIO, wal_path: string, options: WalWriterOptions): ReadResult | null {
  const found = io.stat(wal_path);
  if (found !== null && !found.is_file) throw new Error(`${wal_path} is not a file; a WAL must be a regular file`);
  // A file that has bytes nobody read is refused after the open: its size is not the read's.
  const prior = options.existing;
  if (prior === null) return null;
  checkPrior(prior, options.fence, options.fence_at_lease ?? prior.max_fence);
  return prior;
}

function checkPrior(prior: ReadResult, fence: number, fence_at_lease: number): void {
  if (prior.error !== null) throw new WalReadError(prior.error);
  assert.equal(prior.in_progress_tail, null, 'a writer reads the WAL as not live: it holds the lease');
  assert.ok(prior.valid_bytes === 0 || prior.wal_id !== null, 'an intact prefix starts with a lineage frame');
  assert.ok(fence > fence_at_lease && fence >= prior.max_fence, `fence ${fence} must exceed the WAL's greatest fence ${fence_at_lease} when the lease was taken: take the lease`);
}

/** Where a repair keeps the torn tail it cuts off (etcd's wal keeps a `.broken` file): beside the WAL, named
 *  by the offset the tail started at, so the evidence survives the repair. */
export function tornTailCopyPath(wal_path: string, offset: number): string {
  assert.ok(Number.isSafeInteger(offset) && offset >= 0, `offset ${offset}`);
  return `${wal_path}.torn-at-${offset}.broken`;
}

const TAIL_COPY_CHUNK_BYTES = 65_536;

/** Copies bytes [valid_bytes, size_bytes) of the WAL to tornTailCopyPath, durably (file fsync, rename, folder
 *  fsync) BEFORE the truncation, so a crash leaves the tail in the WAL, in the copy, or in both. The copy is
 *  written to a temporary name and renamed: a crash mid-copy never leaves a partial `.broken` file, and a
 *  repeat after a crash between copy and truncation rewrites the same bytes. */
function keepTornTail(io: FileIO, fd: number, wal_path: string, valid_bytes: number, size_bytes: number): void {
  assert.ok(valid_bytes < size_bytes, 'a torn tail has bytes');
  const copy_path = tornTailCopyPath(wal_path, valid_bytes);
  const temporary_path = `${copy_path}.tmp`;
  try {
    const out = io.open(temporary_path, 'write_truncate');
    try {
      const chunk = new Uint8Array(Math.min(TAIL_COPY_CHUNK_BYTES, size_bytes - valid_bytes));
      for (let position = valid_bytes; position < size_bytes;) {
        const length = Math.min(chunk.length, size_bytes - position);
        const count = io.read(fd, chunk, 0, length, position);
        if (count <= 0) throw new Error(`the WAL ended at ${position} while copying its torn tail (expected ${size_bytes})`);
        writeFully(io, out, chunk.subarray(0, count), position - valid_bytes);
        position += count;
      }
      io.fsync(out);
    } finally {
      io.close(out);
    }
    io.rename(temporary_path, copy_path);
    io.fsyncDirectory(path.dirname(wal_path));
  } catch (error) {
    throw new WalIoError('keep_torn_tail', copy_path, valid_bytes, error);
  }
  assert.equal(io.stat(copy_path)?.size_bytes, size_bytes - valid_bytes, 'the copy holds the whole torn tail');
}

/** Cuts the never-committed bytes off and syncs the cut, so appends land after the intact prefix. */
function truncateTornTail(io: FileIO, fd: number, wal_path: string, valid_bytes: number): void {
  try {
    io.ftruncate(fd, valid_bytes);
    io.fsync(fd);
  } catch (error) {
    throw new WalIoError('truncate', wal_path, valid_bytes, error);
  }
  assert.equal(io.fstat(fd).size_bytes, valid_bytes, 'the torn tail is gone');
}

function isTooLargeTerminal(type: string, payload: Payload): boolean {
  const error = payload['error'];
  if (type !== 'run_finished' || payload['reason'] !== 'error') return false;
  if (typeof error !== 'object' || error === null || Array.isArray(error) || error instanceof Uint8Array) return false;
  const kind = error['kind'];
  return typeof kind === 'string' && TOO_LARGE_KINDS.has(kind);
}
