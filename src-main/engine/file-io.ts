// The one seam through which the reader, writer, feature floor and lease touch the file system. Production
// uses `nodeFileIO` (synchronous: every barrier is a real fdatasync and the order of effects is the order of
// calls, which the crash simulator relies on). Tests wrap it to fail a write, cut it short, fail an fsync of a
// file or a directory, or record every effect and rebuild the disk as a power loss would leave it.
import fs from 'node:fs';
import fsNative from 'fs-native-extensions';

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

const OPEN_FLAGS: Record<OpenMode, string> = {
  read: 'r',
  read_write_create: 'a+',
  create_exclusive: 'wx',
  write_truncate: 'w',
};

function toStat(stats: fs.Stats): FileStat {
  return { size_bytes: stats.size, mtime_ms: stats.mtimeMs, is_directory: stats.isDirectory(), is_file: stats.isFile() };
}

export const nodeFileIO: FileIO = {
  open(path, mode) {
    // 'a+' would force every write to the end; open read-write without truncation instead.
    if (mode === 'read_write_create') return fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o644);
    return fs.openSync(path, OPEN_FLAGS[mode], 0o644);
  },
  close: (fd) => fs.closeSync(fd),
  read: (fd, buffer, offset, length, position) => fs.readSync(fd, buffer, offset, length, position),
  write: (fd, buffer, offset, length, position) => fs.writeSync(fd, buffer, offset, length, position),
  fsync: (fd) => fs.fsyncSync(fd),
  fdatasync: (fd) => fs.fdatasyncSync(fd),
  ftruncate: (fd, size_bytes) => fs.ftruncateSync(fd, size_bytes),
  fstat: (fd) => toStat(fs.fstatSync(fd)),
  stat(path) {
    try {
      return toStat(fs.statSync(path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
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
