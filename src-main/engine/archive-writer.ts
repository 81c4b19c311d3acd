// Writing the archive (wal-format §11), only ever under the session's lease and through the FileIO seam, so
// the crash simulator sees every effect. The archive is append-only: a writer only cuts its torn tail (after
// keeping those bytes in a copy beside it) and appends whole members. The index is replaced whole, by rename.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import path from 'node:path';
import {
  ARCHIVE_INDEX_FILE_NAME,
  archiveIndexPath,
  archivePath,
  encodeIndex,
  encodeMemberHeader,
  type ArchiveIndex,
  type MemberHeader,
} from './archive-format.js';
import type { ArchiveMember, ArchiveScan } from './archive-reader.js';
import { readAt, writeFully, type FileIO } from './file-io.js';
import { READ_CHUNK_BYTES } from './limits.js';

/** The temporary name a new index is written under before its rename. */
export const INDEX_TEMP_SUFFIX = '.tmp';
/** The prefix of the copy a torn tail is kept in: `archive.torn-<offset>-<sha256 prefix>`. */
export const TORN_COPY_PREFIX = 'archive.torn-';

/** Where the archive's torn tail is kept before the cut: `archive.torn-<offset>-<sha256 prefix>`. The name is a
 *  function of the bytes, so a writer that dies after the copy writes the same file again, not another. */
export function tornCopyName(io: FileIO, scan: ArchiveScan): string {
  const tail = scan.torn_tail;
  assert.ok(tail !== null, 'only a torn tail is copied');
  const fd = io.open(scan.path, 'read');
  try {
    return `${TORN_COPY_PREFIX}${tail.offset}-${Buffer.from(rangeDigest(io, fd, tail.offset, tail.bytes)).toString('hex').slice(0, 16)}`;
  } finally {
    io.close(fd);
  }
}

/** The copy of a torn tail and the cut: copy written and synced (with its folder) BEFORE the archive shrinks,
 *  so no byte is ever lost, even ones that were never committed. Returns the copy's name, or null. */
export function cutTornTail(io: FileIO, session_dir: string, scan: ArchiveScan): string | null {
  const tail = scan.torn_tail;
  if (tail === null) return null;
  assert.equal(tail.offset, scan.committed_bytes, 'the torn tail starts where the committed members end');
  const file = archivePath(session_dir);
  const fd = io.open(file, 'read_write_create');
  try {
    assert.equal(io.fstat(fd).size_bytes, scan.bytes, 'the archive has not changed since it was read under the lease');
    const name = tornCopyName(io, scan);
    copyRange(io, fd, tail.offset, tail.bytes, path.join(session_dir, name));
    io.fsyncDirectory(session_dir);
    io.ftruncate(fd, tail.offset);
    io.fsync(fd);
    assert.equal(io.fstat(fd).size_bytes, tail.offset, 'the torn tail is gone');
    return name;
  } finally {
    io.close(fd);
  }
}

/** Step 1 of retiring: appends header and content at `at` (the committed end), then a barrier; the first
 *  barrier of an archive this call creates also syncs the session folder. Returns the member written. */
export function appendMember(
  io: FileIO,
  session_dir: string,
  at: number,
  header: MemberHeader,
  fence: number,
  content: { file: string; bytes: number } | null,
): ArchiveMember {
  assert.equal(header.content_bytes, content?.bytes ?? 0, 'content_bytes is the content copied');
  const file = archivePath(session_dir);
  const created = io.stat(file) === null;
  const frame = encodeMemberHeader(header, fence);
  const fd = io.open(file, 'read_write_create');
  try {
    assert.equal(io.fstat(fd).size_bytes, at, 'members are appended at the committed end, the torn tail already cut');
    writeFully(io, fd, frame, at);
    if (content !== null) copyInto(io, content.file, content.bytes, fd, at + frame.length);
    io.fdatasync(fd);
  } finally {
    io.close(fd);
  }
  if (created) io.fsyncDirectory(session_dir);
  const content_offset = at + frame.length;
  return { ...header, offset: at, header_bytes: frame.length, content_offset, end: content_offset + header.content_bytes };
}

/** Step 3: the index to cover the whole archive, written beside it, synced, renamed over, folder synced. */
export function writeIndex(io: FileIO, session_dir: string, members: readonly ArchiveMember[], fence: number): ArchiveIndex {
  const index: ArchiveIndex = {
    covered_bytes: members.at(-1)?.end ?? 0,
    members: members.map((member) => ({
      wal_id: member.wal_id,
      offset: member.offset,
      reason: member.reason,
      first_seq: member.first_seq,
      last_seq: member.last_seq,
      content_bytes: member.content_bytes,
    })),
  };
  const temp = path.join(session_dir, `${ARCHIVE_INDEX_FILE_NAME}${INDEX_TEMP_SUFFIX}`);
  writeSynced(io, temp, encodeIndex(index, fence));
  io.rename(temp, archiveIndexPath(session_dir));
  io.fsyncDirectory(session_dir);
  return index;
}

/** The SHA-256 of a file's first `bytes` bytes, streamed. */
export function prefixDigest(io: FileIO, file: string, bytes: number): Uint8Array {
  const fd = io.open(file, 'read');
  try {
    return rangeDigest(io, fd, 0, bytes);
  } finally {
    io.close(fd);
  }
}

function rangeDigest(io: FileIO, fd: number, from: number, bytes: number): Uint8Array {
  const hash = createHash('sha256');
  for (let done = 0; done < bytes; ) {
    const length = Math.min(READ_CHUNK_BYTES, bytes - done);
    hash.update(readAt(io, fd, from + done, length));
    done += length;
  }
  return hash.digest();
}

/** Copies [from, from + bytes) of an open file into a new file, synced. */
function copyRange(io: FileIO, fd: number, from: number, bytes: number, target: string): void {
  const out = io.open(target, 'write_truncate');
  try {
    for (let done = 0; done < bytes; ) {
      const length = Math.min(READ_CHUNK_BYTES, bytes - done);
      writeFully(io, out, readAt(io, fd, from + done, length), done);
      done += length;
    }
    io.fsync(out);
  } finally {
    io.close(out);
  }
}

/** Writes a whole new file (replacing any leftover of an earlier attempt) and fsyncs it. */
export function writeSynced(io: FileIO, file: string, bytes: Uint8Array): void {
  const fd = io.open(file, 'write_truncate');
  try {
    writeFully(io, fd, bytes, 0);
    io.fsync(fd);
  } finally {
    io.close(fd);
  }
}

function copyInto(io: FileIO, source: string, bytes: number, target_fd: number, at: number): void {
  const fd = io.open(source, 'read');
  try {
    for (let done = 0; done < bytes; ) {
      const length = Math.min(READ_CHUNK_BYTES, bytes - done);
      writeFully(io, target_fd, readAt(io, fd, done, length), at + done);
      done += length;
    }
  } finally {
    io.close(fd);
  }
}
