// Typed errors of the engine. Each names what happened, where (offset, seq, path) and what to do about it,
// so the CLI and the app can show them as they are and branch on `code`, never on message text.
import type { LeaseTenure, WalErrorInfo } from '../../src-shared/wal.js';

/** A WAL that cannot be used as it is: refused by the reader (wal-format §5). */
export class WalReadError extends Error {
  override name = 'WalReadError';
  constructor(readonly info: WalErrorInfo) {
    super(info.message);
  }
}

/** Another live process holds the session's lease (wal-format §8). */
export class LeaseHeldError extends Error {
  override name = 'LeaseHeldError';
  readonly code = 'lease_held';
  constructor(
    readonly lease_path: string,
    readonly holder: LeaseTenure | null,
  ) {
    super(
      `lease held: ${lease_path} is locked by ` +
        (holder ? `pid ${holder.pid} on ${holder.host} (epoch ${holder.epoch}, writer ${holder.writer})` : 'a process that has not yet written its tenure') +
        '; wait for it to finish or stop it, then retry',
    );
  }
}

/** An append refused by the 1 GiB ceiling (wal-format §9): nothing was written and the writer stays usable. */
export class WalCeilingError extends Error {
  override name = 'WalCeilingError';
  readonly code = 'session_too_large';
  constructor(
    readonly size_bytes: number,
    readonly frame_bytes: number,
    readonly limit_bytes: number,
  ) {
    super(`append refused: the WAL holds ${size_bytes} bytes and a ${frame_bytes}-byte frame would pass the ${limit_bytes}-byte limit; write the session_too_large terminal`);
  }
}

/** A write or sync failed earlier: the writer accepts nothing more; reopen it to recover from the disk. */
export class WriterPoisonedError extends Error {
  override name = 'WriterPoisonedError';
  readonly code = 'writer_poisoned';
  constructor(
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super(`writer for ${path} is poisoned by an earlier failure (${describe(cause)}); open a new writer to recover from what is on disk`);
  }
}

/** The feature floor could not be raised: the gated append was refused and wrote nothing (wal-format §7). */
export class FloorRaiseError extends Error {
  override name = 'FloorRaiseError';
  readonly code = 'floor_raise_failed';
  constructor(
    readonly root: string,
    readonly features: string[],
    override readonly cause: unknown,
  ) {
    super(`could not raise the feature floor of ${root} to include ${features.join(', ')} (${describe(cause)}); nothing was appended`);
  }
}

/** The next lease epoch would pass 2^53 − 1, the largest a frame's fence may hold (wal-format §3): no writer can
 *  take this session's lease. Refused before the lease file or the WAL is written. */
export class EpochExhaustedError extends Error {
  override name = 'EpochExhaustedError';
  readonly code = 'epoch_exhausted';
  constructor(
    readonly lease_path: string,
    readonly epoch_max: number,
  ) {
    super(`cannot take the lease ${lease_path}: its epoch or a fence in the WAL is already ${epoch_max}, the largest a fence may hold, so no new epoch exists and no writer can take this session again; nothing was written — continue in a new session`);
  }
}

/** An entry of a state root that is not what it must be (a symbolic link, a FIFO, a device where a regular file or
 *  a folder belongs): used, it could lead a writer out of the root or block a reader for ever, so it is refused,
 *  naming the path. */
export class UnsafeEntryError extends Error {
  override name = 'UnsafeEntryError';
  readonly code = 'unsafe_entry';
  constructor(
    readonly path: string,
    readonly found: string,
    readonly expected: 'a regular file' | 'a folder' = 'a regular file',
  ) {
    super(`${path} is ${found}, not ${expected}: walscope never follows a link out of a state root nor waits on a pipe; put the real ${expected === 'a folder' ? 'folder' : 'file'} in its place`);
  }
}

/** What the OS said, in words, for the failures a bad path gives; the code stays at the end for searching. */
const ERRNO_TEXT: ReadonlyMap<string, string> = new Map([
  ['ELOOP', 'too many levels of symbolic links, a symlink loop'],
  ['ENOTDIR', 'a part of the path is a file, not a folder'],
  ['ENAMETOOLONG', 'the path, or a name in it, is too long'],
  ['EACCES', 'permission denied'],
  ['EPERM', 'operation not permitted'],
  ['ENOENT', 'no such file or folder'],
  ['EISDIR', 'it is a folder, not a file'],
  ['ENXIO', 'no such device or address (a pipe with no writer?)'],
]);

export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  const text = code === undefined ? undefined : ERRNO_TEXT.get(code);
  return text === undefined ? error.message : `${text} (${code})`;
}
