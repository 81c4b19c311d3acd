// Frames by their offset: the way the app re-reads records it indexed earlier (payloads stay on disk until a
// row on screen, a search or a request needs them). It goes through FileIO like every other read, checks the
// header and the digest exactly as the reader does, and never throws on bad data: a frame that is no longer
// there or no longer intact says so. A `FrameFile` reads ahead, so walking many frames in file order costs few
// reads; `frameInBuffer` checks a frame of a WAL image held in memory the same way.
import type { DamageReason } from '../../src-shared/wal.js';
import { describe } from './errors.js';
import { nodeFileIO, type FileIO } from './file-io.js';
import { checkFrameAt, checkHeader, decodeBody, type BodyDecodeResult, type PayloadDecoder } from './frame-codec.js';
import { FRAME_DIGEST_BYTES, FRAME_HEADER_BYTES, MIB } from './limits.js';

/** A frame's bytes, header and digest checked, its body not decoded (what a byte search needs). */
export type CheckedFrame =
  | { kind: 'ok'; bytes: Buffer }
  /** The bytes at `offset` are not an intact frame (any more): `bytes` holds what could be read. */
  | { kind: 'damaged'; bytes: Buffer; reason: DamageReason }
  | { kind: 'io'; message: string };

export type FrameAt = Exclude<CheckedFrame, { kind: 'ok' }> | { kind: 'ok'; bytes: Buffer; body: BodyDecodeResult };

/** A FrameFile walking many frames reads this much at a time. */
const READ_AHEAD_BYTES = MIB;
/** A single frame by offset is read with this much ahead: a typical record in one read, a larger one in exactly
 *  two (header, then the frame). Reading a whole walking window for one small payload made a timeline search
 *  of 100k records read (and allocate) 1 MiB per row. */
export const ONE_FRAME_READ_AHEAD_BYTES = 16 * 1_024;

/** Reads the frame starting at `offset` of the WAL at `path`: header, body and digest, checked; its payload built
 *  whole, or as far as `decode_payload` builds it (the rest validated). */
export function readFrameAt(path: string, offset: number, options: { io?: FileIO; decode_payload?: PayloadDecoder } = {}): FrameAt {
  const file = FrameFile.open(path, options.io ?? nodeFileIO, ONE_FRAME_READ_AHEAD_BYTES);
  if (!(file instanceof FrameFile)) return file;
  try {
    return file.at(offset, options.decode_payload);
  } finally {
    file.close();
  }
}

/** The frame starting at `offset` of a WAL image held in memory (the crash simulator's disk views), checked
 *  exactly as `readFrameAt` checks one on disk. */
export function frameInBuffer(wal: Buffer, offset: number, decode_payload?: PayloadDecoder): FrameAt {
  const available_bytes = wal.length - offset;
  const header = wal.subarray(offset, offset + Math.min(FRAME_HEADER_BYTES, Math.max(0, available_bytes)));
  return decoded(checkedFrame(header, available_bytes, (size_bytes) => wal.subarray(offset, offset + size_bytes)), decode_payload);
}

function checkedFrame(header: Buffer, available_bytes: number, frameBytes: (size_bytes: number) => Buffer): CheckedFrame {
  const checked = checkHeader(header, available_bytes);
  if (typeof checked === 'string') return { kind: 'damaged', bytes: header, reason: checked };
  const bytes = frameBytes(checked.size_bytes);
  if (bytes.length < checked.size_bytes) return { kind: 'damaged', bytes, reason: 'past_end' };
  const damage = checkFrameAt(bytes, 0, bytes.length);
  return damage === null ? { kind: 'ok', bytes } : { kind: 'damaged', bytes, reason: damage };
}

function decoded(frame: CheckedFrame, decode_payload: PayloadDecoder | undefined): FrameAt {
  if (frame.kind !== 'ok') return frame;
  const body = frame.bytes.subarray(FRAME_HEADER_BYTES, frame.bytes.length - FRAME_DIGEST_BYTES);
  return { kind: 'ok', bytes: frame.bytes, body: decodeBody(body, decode_payload === undefined, decode_payload) };
}

export class FrameFile {
  private window = Buffer.alloc(0);
  private window_offset = 0;

  private constructor(
    private readonly io: FileIO,
    private readonly fd: number,
    private readonly path: string,
    readonly size_bytes: number,
    private readonly read_ahead_bytes: number,
  ) {}

  static open(path: string, io: FileIO = nodeFileIO, read_ahead_bytes = READ_AHEAD_BYTES): FrameFile | { kind: 'io'; message: string } {
    let fd: number;
    try {
      fd = io.open(path, 'read');
    } catch (error) {
      return { kind: 'io', message: `cannot open ${path}: ${describe(error)}` };
    }
    try {
      return new FrameFile(io, fd, path, io.fstat(fd).size_bytes, read_ahead_bytes);
    } catch (error) {
      io.close(fd);
      return { kind: 'io', message: `cannot read ${path}: ${describe(error)}` };
    }
  }

  close(): void {
    this.io.close(this.fd);
  }

  /** The frame starting at `offset`, checked and its body decoded (its payload as `readFrameAt` says). */
  at(offset: number, decode_payload?: PayloadDecoder): FrameAt {
    return decoded(this.checked(offset), decode_payload);
  }

  /** The frame starting at `offset`, its header and digest checked. */
  checked(offset: number): CheckedFrame {
    try {
      const available_bytes = this.size_bytes - offset;
      const header = this.bytes(offset, Math.min(FRAME_HEADER_BYTES, Math.max(0, available_bytes)));
      return checkedFrame(header, available_bytes, (size_bytes) => this.bytes(offset, size_bytes));
    } catch (error) {
      return { kind: 'io', message: `cannot read ${this.path} at offset ${offset}: ${describe(error)}` };
    }
  }

  /** `length` bytes at `position` (fewer at the end of the file), from the read-ahead window when it holds them. */
  private bytes(position: number, length: number): Buffer {
    const start = position - this.window_offset;
    if (start >= 0 && start + length <= this.window.length) return this.window.subarray(start, start + length);
    const size = Math.max(length, Math.min(this.read_ahead_bytes, Math.max(0, this.size_bytes - position)));
    // Not zero-filled: only the `filled` bytes read are ever handed out.
    const buffer = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const count = this.io.read(this.fd, buffer, filled, size - filled, position + filled);
      if (count === 0) break;
      filled += count;
    }
    this.window = buffer.subarray(0, filled);
    this.window_offset = position;
    return this.window.subarray(0, Math.min(length, filled));
  }
}
