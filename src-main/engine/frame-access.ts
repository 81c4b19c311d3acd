// One frame by its offset: the way the app re-reads a record it indexed earlier (its payload stays on disk
// until a row on screen needs it). It goes through FileIO like every other read, checks the header and the
// digest exactly as the reader does, and never throws on bad data: a frame that is no longer there or no
// longer intact says so.
import type { DamageReason } from '../../src-shared/wal.js';
import { describe } from './errors.js';
import { nodeFileIO, type FileIO } from './file-io.js';
import { checkFrameAt, checkHeader, decodeBody, type BodyDecodeResult } from './frame-codec.js';
import { FRAME_DIGEST_BYTES, FRAME_HEADER_BYTES } from './limits.js';

export type FrameAt =
  | { kind: 'ok'; bytes: Buffer; body: BodyDecodeResult }
  /** The bytes at `offset` are not an intact frame (any more): `bytes` holds what could be read. */
  | { kind: 'damaged'; bytes: Buffer; reason: DamageReason }
  | { kind: 'io'; message: string };

/** Reads the frame starting at `offset` of the WAL at `path`: header, body and digest, checked. */
export function readFrameAt(path: string, offset: number, options: { io?: FileIO; with_payload?: boolean } = {}): FrameAt {
  const io = options.io ?? nodeFileIO;
  let fd: number;
  try {
    fd = io.open(path, 'read');
  } catch (error) {
    return { kind: 'io', message: `cannot open ${path}: ${describe(error)}` };
  }
  try {
    const available_bytes = io.fstat(fd).size_bytes - offset;
    const header = readFully(io, fd, offset, Math.min(FRAME_HEADER_BYTES, Math.max(0, available_bytes)));
    const checked = checkHeader(header, available_bytes);
    if (typeof checked === 'string') return { kind: 'damaged', bytes: header, reason: checked };
    return checkedFrame(readFully(io, fd, offset, checked.size_bytes), checked.size_bytes, options.with_payload ?? true);
  } catch (error) {
    return { kind: 'io', message: `cannot read ${path} at offset ${offset}: ${describe(error)}` };
  } finally {
    io.close(fd);
  }
}

/** The frame starting at `offset` of a WAL image held in memory (the crash simulator's disk views), checked
 *  exactly as `readFrameAt` checks one on disk. */
export function frameInBuffer(wal: Buffer, offset: number, with_payload = true): FrameAt {
  const available_bytes = wal.length - offset;
  const header = wal.subarray(offset, offset + Math.min(FRAME_HEADER_BYTES, Math.max(0, available_bytes)));
  const checked = checkHeader(header, available_bytes);
  if (typeof checked === 'string') return { kind: 'damaged', bytes: header, reason: checked };
  return checkedFrame(wal.subarray(offset, offset + checked.size_bytes), checked.size_bytes, with_payload);
}

function checkedFrame(bytes: Buffer, size_bytes: number, with_payload: boolean): FrameAt {
  if (bytes.length < size_bytes) return { kind: 'damaged', bytes, reason: 'past_end' };
  const damage = checkFrameAt(bytes, 0, bytes.length);
  if (damage !== null) return { kind: 'damaged', bytes, reason: damage };
  return { kind: 'ok', bytes, body: decodeBody(bytes.subarray(FRAME_HEADER_BYTES, bytes.length - FRAME_DIGEST_BYTES), with_payload) };
}

function readFully(io: FileIO, fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const count = io.read(fd, buffer, filled, length - filled, position + filled);
    if (count === 0) break;
    filled += count;
  }
  return buffer.subarray(0, filled);
}
