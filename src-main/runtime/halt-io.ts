// A FileIO that makes the process "die" at a chosen record: just before the WAL write of the nth frame of a
// given type, optionally after a prefix of that frame reached the file (a write torn by the crash). From then
// on every call fails with ProcessHalted, except close and unlock, which the OS does for a dead process. The
// demo uses it to leave sessions exactly where a real crash would — written by the runtime, not by hand.
import path from 'node:path';
import { type FileIO, decodeBody, FRAME_DIGEST_BYTES, FRAME_HEADER_BYTES, WAL_FILE_NAME } from '../engine/index.js';

export class ProcessHalted extends Error {
  override name = 'ProcessHalted';
  readonly code = 'process_halted';
}

export interface HaltRule {
  /** The record type whose write the process dies at. */
  before_type: string;
  /** Which write of that type, 1-based. Default 1. */
  nth?: number;
  /** Bytes of that frame that reach the file before the process dies (a torn write). Default 0. */
  keep_bytes?: number;
}

export interface HaltingIO {
  io: FileIO;
  halted(): boolean;
}

export function haltingIO(base: FileIO, rule: HaltRule): HaltingIO {
  const wal_fds = new Set<number>();
  let seen = 0;
  let halted = false;
  const alive = () => {
    if (halted) throw new ProcessHalted(`the process halted before writing ${rule.before_type}`);
  };
  const guard =
    <A extends unknown[], R>(call: (...args: A) => R) =>
    (...args: A): R => {
      alive();
      return call(...args);
    };
  const io: FileIO = {
    ...Object.fromEntries(Object.entries(base).map(([name, call]) => [name, guard(call as (...args: unknown[]) => unknown)])),
    open: guard((file: string, mode) => {
      const fd = base.open(file, mode);
      if (path.basename(file) === WAL_FILE_NAME) wal_fds.add(fd);
      return fd;
    }),
    close: (fd) => {
      wal_fds.delete(fd);
      base.close(fd);
    },
    unlock: (fd) => base.unlock(fd),
    write: guard((fd: number, buffer: Uint8Array, offset: number, length: number, position: number) => {
      if (wal_fds.has(fd) && frameType(buffer.subarray(offset, offset + length)) === rule.before_type) {
        seen += 1;
        if (seen === (rule.nth ?? 1)) {
          const keep_bytes = Math.min(rule.keep_bytes ?? 0, length);
          if (keep_bytes > 0) base.write(fd, buffer, offset, keep_bytes, position);
          halted = true;
          alive();
        }
      }
      return base.write(fd, buffer, offset, length, position);
    }),
  } as FileIO;
  return { io, halted: () => halted };
}

/** The record type of a whole frame, or null when the bytes are not one. */
function frameType(frame: Uint8Array): string | null {
  if (frame.length <= FRAME_HEADER_BYTES + FRAME_DIGEST_BYTES) return null;
  const body = Buffer.from(frame.buffer, frame.byteOffset + FRAME_HEADER_BYTES, frame.length - FRAME_HEADER_BYTES - FRAME_DIGEST_BYTES);
  const decoded = decodeBody(body, false);
  return decoded.kind === 'ok' ? decoded.body.type : null;
}
