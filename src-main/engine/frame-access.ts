// Frames by their offset: the way the app re-reads records it indexed earlier (payloads stay on disk until a
// row on screen or a search needs them). It goes through FileIO like every other read, checks the header and
// the digest exactly as the reader does, and never throws on bad data: a frame that is no longer there or no
// longer intact says so. A `FrameFile` reads ahead, so walking many frames in file order costs few reads.
import type { DamageReason } from '../../src-shared/wal.js';
import { describe } from './errors.js';
import { nodeFileIO, type FileIO } from './file-io.js';
import { checkFrameAt, checkHeader, decodeBody, type BodyDecodeResult } from './frame-codec.js';
import { FRAME_DIGEST_BYTES, FRAME_HEADER_BYTES, MIB } from './limits.js';

export type FrameAt =
  | { kind: 'ok'; bytes: Buffer }
  /** The bytes at `offset` are not an intact frame (any more): `bytes` holds what could be read. */
  | { kind: 'damaged'; bytes: Buffer; reason: DamageReason }
  | { kind: 'io'; message: string };

const READ_AHEAD_BYTES = MIB;

/** Reads and decodes the frame starting at `offset` of the WAL at `path`. */
export function readFrameAt(path: string, offset: number, io: FileIO = nodeFileIO): { frame: FrameAt; body: BodyDecodeResult | null } {
  const file = FrameFile.open(path, io);
  if (!(file instanceof FrameFile)) return { frame: file, body: null };
  try {
    const frame = file.at(offset);
    return { frame, body: frame.kind === 'ok' ? frameBody(frame.bytes) : null };
  } finally {
    file.close();
  }
}

/** The body of an intact frame's bytes, decoded with its payload. */
export function frameBody(bytes: Buffer): BodyDecodeResult {
  return decodeBody(bytes.subarray(FRAME_HEADER_BYTES, bytes.length - FRAME_DIGEST_BYTES), true);
}

export class FrameFile {
  private window = Buffer.alloc(0);
  private window_offset = 0;

  private constructor(
    private readonly io: FileIO,
    private readonly fd: number,
    private readonly path: string,
    readonly size_bytes: number,
  ) {}

  static open(path: string, io: FileIO = nodeFileIO): FrameFile | { kind: 'io'; message: string } {
    let fd: number;
    try {
      fd = io.open(path, 'read');
    } catch (error) {
      return { kind: 'io', message: `cannot open ${path}: ${describe(error)}` };
    }
    try {
      return new FrameFile(io, fd, path, io.fstat(fd).size_bytes);
    } catch (error) {
      io.close(fd);
      return { kind: 'io', message: `cannot read ${path}: ${describe(error)}` };
    }
  }

  close(): void {
    this.io.close(this.fd);
  }

  /** The frame starting at `offset`, its header and digest checked. */
  at(offset: number): FrameAt {
    try {
      const available_bytes = this.size_bytes - offset;
      const header = this.bytes(offset, Math.min(FRAME_HEADER_BYTES, Math.max(0, available_bytes)));
      const checked = checkHeader(header, available_bytes);
      if (typeof checked === 'string') return { kind: 'damaged', bytes: header, reason: checked };
      const bytes = this.bytes(offset, checked.size_bytes);
      if (bytes.length < checked.size_bytes) return { kind: 'damaged', bytes, reason: 'past_end' };
      const damage = checkFrameAt(bytes, 0, bytes.length);
      return damage === null ? { kind: 'ok', bytes } : { kind: 'damaged', bytes, reason: damage };
    } catch (error) {
      return { kind: 'io', message: `cannot read ${this.path} at offset ${offset}: ${describe(error)}` };
    }
  }

  /** `length` bytes at `position` (fewer at the end of the file), from the read-ahead window when it holds them. */
  private bytes(position: number, length: number): Buffer {
    const start = position - this.window_offset;
    if (start >= 0 && start + length <= this.window.length) return this.window.subarray(start, start + length);
    const size = Math.max(length, Math.min(READ_AHEAD_BYTES, Math.max(0, this.size_bytes - position)));
    const buffer = Buffer.alloc(size);
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
