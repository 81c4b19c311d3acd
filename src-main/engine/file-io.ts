// The one seam through which the reader, writer, feature floor and lease touch the file system. Production
// uses `nodeFileIO` (synchronous: every barrier is a real fdatasync and the order of effects is the order of
// calls, which the crash simulator relies on). Tests wrap it to fail a write, cut it short, fail an fsync of a
// file or a directory, or record every effect and rebuild the disk as a power loss would leave it.
import fs from 'node:fs';
import fsNative from 'fs-native-extensions';
import { UnsafeEntryError } from './errors.js';

export type OpenMode =
  /** read only; the file must exist */
  | 'read'
  /** read and write; created if absent (never truncated) */
  | 'read_write_create'
  /** write a new file; fails if it exists */
  | 'create_exclusive'
  /** write; created if absent, truncated if present */
  | 'write_truncate';

export interface FileStat {
  size_bytes: number;
  mtime_ms: number;
  is_directory: boolean;
  is_file: boolean;
}

export interface FileIO {
  open(path: string, mode: OpenMode): number;
  close(fd: number): void;
  read(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  /** Writes at `position`; returns how many bytes were written (a short write returns fewer). */
  write(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  fsync(fd: number): void;
  fdatasync(fd: number): void;
  ftruncate(fd: number, size_bytes: number): void;
  fstat(fd: number): FileStat;
  /** null when nothing is at `path`. */
  stat(path: string): FileStat | null;
  /** Creates one directory; the parent must exist. */
  mkdir(path: string): void;
  readdir(path: string): string[];
  rename(from: string, to: string): void;
  /** Opens the directory, fsyncs it and closes it: makes its entries (creates, renames) durable. */
  fsyncDirectory(path: string): void;
  /** Exclusive, non-blocking OS advisory lock on an open file; false when another holder has it. */
  tryLockExclusive(fd: number): boolean;
  unlock(fd: number): void;
}

const { O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_EXCL, O_TRUNC, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

// Every open is non-blocking, so a FIFO or a device answers at once and the fstat after the open refuses it;
// for a regular file O_NONBLOCK changes nothing. A file opened to be written never follows a symbolic link: a
// `lease` or `wal` linked to a file elsewhere must not be overwritten. Reading follows links (an export a user
// names may be one), and cannot harm what it reads.
const OPEN_FLAGS: Record<OpenMode, number> = {
  read: O_RDONLY | O_NONBLOCK,
  read_write_create: O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK,
  create_exclusive: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK,
  write_truncate: O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK,
};

/** Opens `path` and checks, on the open descriptor, that it is a regular file; UnsafeEntryError if not. */
function openRegularFile(path: string, mode: OpenMode): number {
  let fd: number;
  try {
    fd = fs.openSync(path, OPEN_FLAGS[mode], 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // O_NOFOLLOW reports a link as ELOOP; a write-only open of a FIFO without a reader fails with ENXIO.
    const found = code === 'ELOOP' || code === 'ENXIO' ? foundAt(path) : null;
    if (found !== null) throw new UnsafeEntryError(path, found);
    throw error;
  }
  const stats = fs.fstatSync(fd);
  if (stats.isFile()) return fd;
  fs.closeSync(fd);
  throw new UnsafeEntryError(path, kindOf(stats));
}

/** What is at `path` when it is not a regular file, without following a link; null otherwise. */
function foundAt(path: string): string | null {
  const entry = entryAt(path);
  return entry.kind === 'other' ? entry.found : entry.kind === 'folder' ? 'a folder' : null;
}

export type Entry = { kind: 'missing' } | { kind: 'file' } | { kind: 'folder' } | { kind: 'other'; found: string };

/** What is at `path` itself, a symbolic link not followed. A look, not an effect: it bypasses the FileIO seam
 *  as reading an inode does, since nothing a crash could lose depends on it. */
export function entryAt(path: string): Entry {
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
  if (stats.isFile()) return { kind: 'file' };
  if (stats.isDirectory()) return { kind: 'folder' };
  return { kind: 'other', found: kindOf(stats) };
}

function kindOf(stats: fs.Stats): string {
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function toStat(stats: fs.Stats): FileStat {
  return { size_bytes: stats.size, mtime_ms: stats.mtimeMs, is_directory: stats.isDirectory(), is_file: stats.isFile() };
}

export const nodeFileIO: FileIO = {
  open: openRegularFile,
  close: (fd) => fs.closeSync(fd),
  read: (fd, buffer, offset, length, position) => fs.readSync(fd, buffer, offset, length, position),
  write: (fd, buffer, offset, length, position) => fs.writeSync(fd, buffer, offset, length, position),
  fsync: (fd) => fs.fsyncSync(fd),
  fdatasync: (fd) => fs.fdatasyncSync(fd),
  ftruncate: (fd, size_bytes) => fs.ftruncateSync(fd, size_bytes),
  fstat: (fd) => toStat(fs.fstatSync(fd)),
  stat(path) {
    // No exception for the usual case of nothing there (a session without an archive): a root of 2,000 sessions
    // is looked at in ~15 ms, not ~70.
    const found = fs.statSync(path, { throwIfNoEntry: false });
    return found === undefined ? null : toStat(found);
  },
  mkdir: (path) => fs.mkdirSync(path),
  readdir: (path) => fs.readdirSync(path),
  rename: (from, to) => fs.renameSync(from, to),
  fsyncDirectory(path) {
    if (process.platform === 'win32') return; // the contract: non-Unix directory sync is an explicit no-op
    const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
  tryLockExclusive: (fd) => fsNative.tryLock(fd),
  unlock: (fd) => fsNative.unlock(fd),
};

/** Writes all of `buffer` at `position`, looping over short writes a bounded number of times. */
export function writeFully(io: FileIO, fd: number, buffer: Uint8Array, position: number): void {
  const attempts_max = 64;
  let written = 0;
  for (let attempt = 0; written < buffer.length; attempt++) {
    if (attempt === attempts_max) throw new Error(`write made no progress after ${attempts_max} attempts`);
    const count = io.write(fd, buffer, written, buffer.length - written, position + written);
    if (count < 0) throw new Error(`write returned ${count}`);
    written += count;
  }
}

/** `length` bytes at `position`, looping over short reads; throws when the file ends before them (it shrank, or
 *  the caller's size was wrong). */
export function readAt(io: FileIO, fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const count = io.read(fd, buffer, filled, length - filled, position + filled);
    if (count === 0) throw new Error(`file ended at ${position + filled} while reading ${length} bytes at ${position}`);
    filled += count;
  }
  return buffer;
}

/** The file as if it ended at `size_bytes_max`: a read of a slice of a WAL, whose partial last frame is left
 *  for the next slice (the checkpoint stays before it). */
export function cappedFileIO(io: FileIO, size_bytes_max: number): FileIO {
  return {
    ...io,
    fstat(fd) {
      const stats = io.fstat(fd);
      return { ...stats, size_bytes: Math.min(stats.size_bytes, size_bytes_max) };
    },
  };
}
