// Opening one sealed member (wal-format §11): its content is hashed against `content_sha256` first, and only
// then read as a WAL (§5) by the one WAL reader, through a read-only view of the archive that shows the
// member's content as a file of its own. A mismatch refuses that member alone; the others stay readable.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ReadFrame } from '../../src-shared/wal.js';
import { archivePath } from './archive-format.js';
import { latestMember, readArchive, type ArchiveMember } from './archive-reader.js';
import { describe } from './errors.js';
import type { FileIO, FileStat } from './file-io.js';
import { nodeFileIO, readAt, writeFully } from './file-io.js';
import { READ_CHUNK_BYTES } from './limits.js';
import { hex, readWal, type ReadResult } from './reader.js';

export interface MemberDamage {
  kind: 'archive_member_damaged';
  wal_id: string;
  offset: number;
  message: string;
}

export type MemberOpen = { ok: true; read: ReadResult } | { ok: false; damage: MemberDamage };

export interface OpenMemberOptions {
  io?: FileIO;
  with_payload?: boolean;
  floor_features?: readonly string[];
  on_frame?: (frame: ReadFrame, payload_cbor: Buffer) => void;
  full_tail_scan?: boolean;
}

/** The path a member's content reads under: the archive's path and the member's identity, for messages. */
export function memberPath(session_dir: string, member: ArchiveMember): string {
  return `${archivePath(session_dir)}@${hex(member.wal_id)}`;
}

export function openMember(session_dir: string, member: ArchiveMember, options: OpenMemberOptions = {}): MemberOpen {
  const io = options.io ?? nodeFileIO;
  const wal_id = hex(member.wal_id);
  const damage = (message: string): MemberOpen => ({ ok: false, damage: { kind: 'archive_member_damaged', wal_id, offset: member.offset, message } });
  if (member.reason !== 'sealed') return damage(`lineage ${wal_id} was deleted by retention: only its tombstone (counts) is kept`);
  let digest: Buffer;
  try {
    digest = contentDigest(io, archivePath(session_dir), member);
  } catch (error) {
    return damage(`cannot read member ${wal_id} at offset ${member.offset}: ${describe(error)}`);
  }
  if (Buffer.compare(digest, member.content_sha256) !== 0) {
    return damage(`member ${wal_id} at offset ${member.offset}: its content does not match content_sha256 — this member alone is refused; the rest of the archive stays readable`);
  }
  const view = memberView(io, archivePath(session_dir), member);
  const read = readWal(memberPath(session_dir, member), { io: view, with_payload: options.with_payload, floor_features: options.floor_features, on_frame: options.on_frame, full_tail_scan: options.full_tail_scan });
  if (read.error === null && (read.wal_id === null || hex(read.wal_id) !== wal_id)) {
    return damage(`member ${wal_id} at offset ${member.offset}: its content is the WAL of ${read.wal_id === null ? 'no lineage' : hex(read.wal_id)}, not of the lineage its header names`);
  }
  return { ok: true, read };
}

/** Copies a verified member's content to `target` (a new file): a WAL file of its own, for a reader that needs
 *  one (the app's server). The archive is only read. Returns the member's damage instead when it has one. */
export function extractMember(session_dir: string, member: ArchiveMember, target: string, io: FileIO = nodeFileIO): MemberDamage | null {
  const opened = openMember(session_dir, member, { io, with_payload: false });
  if (!opened.ok) return opened.damage;
  const source = io.open(archivePath(session_dir), 'read');
  const out = io.open(target, 'create_exclusive');
  try {
    for (let done = 0; done < member.content_bytes; ) {
      const length = Math.min(READ_CHUNK_BYTES, member.content_bytes - done);
      writeFully(io, out, readAt(io, source, member.content_offset + done, length), done);
      done += length;
    }
    io.fsync(out);
  } finally {
    io.close(out);
    io.close(source);
  }
  return null;
}

/** A sealed lineage as a file of its own, for readers that need one (the app's server, `serve`): its verified
 *  content copied read-only into a private temporary folder — never beside the archive, which is only read —
 *  and removed by `dispose`. A string says why it cannot be opened (archive refused, absent, deleted, damaged). */
export function extractSealedLineage(session_dir: string, wal_id: string): { file: string; dispose(): void } | string {
  const archive = readArchive(session_dir, { trust_index: true });
  if (archive.error !== null) return archive.error.message;
  const member = latestMember(archive, wal_id);
  if (member === null || member.reason !== 'sealed') return `lineage ${wal_id} is not a sealed member of ${session_dir}'s archive`;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-sealed-'));
  const file = path.join(folder, `${path.basename(session_dir)}@${wal_id}.wal`);
  const dispose = () => fs.rmSync(folder, { recursive: true, force: true });
  const damage = extractMember(session_dir, member, file);
  if (damage !== null) {
    dispose();
    return damage.message;
  }
  fs.chmodSync(file, 0o444);
  return { file, dispose };
}

function contentDigest(io: FileIO, file: string, member: ArchiveMember): Buffer {
  const hash = createHash('sha256');
  const fd = io.open(file, 'read');
  try {
    for (let done = 0; done < member.content_bytes; ) {
      const length = Math.min(READ_CHUNK_BYTES, member.content_bytes - done);
      hash.update(readAt(io, fd, member.content_offset + done, length));
      done += length;
    }
  } finally {
    io.close(fd);
  }
  return hash.digest();
}

/** A FileIO that shows exactly one path, the member's content, read-only; every other call is refused. */
function memberView(base: FileIO, archive_file: string, member: ArchiveMember): FileIO {
  const refuse = (): never => {
    throw new Error('an archive member is read-only');
  };
  const stat: FileStat = { size_bytes: member.content_bytes, mtime_ms: 0, is_directory: false, is_file: true };
  return {
    open: (_path, mode) => (mode === 'read' ? base.open(archive_file, 'read') : refuse()),
    close: (fd) => base.close(fd),
    read(fd, buffer, offset, length, position) {
      const wanted = Math.max(0, Math.min(length, member.content_bytes - position));
      return wanted === 0 ? 0 : base.read(fd, buffer, offset, wanted, member.content_offset + position);
    },
    fstat: () => stat,
    stat: () => stat,
    write: refuse,
    fsync: refuse,
    fdatasync: refuse,
    ftruncate: refuse,
    mkdir: refuse,
    readdir: refuse,
    rename: refuse,
    fsyncDirectory: refuse,
    tryLockExclusive: refuse,
    unlock: refuse,
  };
}
