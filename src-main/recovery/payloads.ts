// Reading back what the fold leaves on disk. The fold keeps where each tool output, assistant message and
// intent's args are (their record's offset), not the values: outputs are most of a WAL's bytes (up to 16 MiB
// each), assistant messages and args most of what a million small records weigh once built. Whoever shows or
// sends one reads its record back here, digest re-checked, when it needs it (what is built from a payload read
// back is replay/payloads.ts').
import type { JsonPayload } from '../../src-shared/replay.js';
import type { CborValue, Payload } from '../../src-shared/wal.js';
import {
  CborDecoder, nodeFileIO, type FileIO, FrameFile, frameInBuffer, readFrameAt, type FrameAt, type PayloadDecoder,
} from '../engine/index.js';
import type { PayloadProjection, PayloadReader } from '../replay/payloads.js';
import { toJsonPayload } from '../replay/values.js';

/** Reads payloads from the WAL at `wal_path`, one open per read: a file replaced since the fold fails the
 *  digest or the decode and names the offset (FrameReadError), never returns another record's bytes. */
export function walPayloadReader(wal_path: string, io: FileIO = nodeFileIO): PayloadReader {
  return (offset, projection) => payloadOf(readFrameAt(wal_path, offset, { io, decode_payload: decoderOf(projection) }), offset);
}

/** `use` with a reader of payloads through one open file reading ahead, closed when `use` returns or throws: for
 *  a pass over many records in about file order (a search, a request of many episodes), an open and a read per
 *  MiB rather than an open, a read and a close per record. */
export function withPayloadPass<T>(wal_path: string, use: (read: PayloadReader) => T, io: FileIO = nodeFileIO): T {
  const file = FrameFile.open(wal_path, io);
  if (!(file instanceof FrameFile)) return use((offset) => payloadOf(file, offset));
  try {
    return use((offset, projection) => payloadOf(file.at(offset, decoderOf(projection)), offset));
  } finally {
    file.close();
  }
}

/** Reads the payloads of frames read and digest-checked already, from their payload maps' validated CBOR by
 *  frame offset (the tail's window: engine/last-frames.ts), as a read back from disk would build them; any
 *  other offset through `others`. A frame is not read and hashed a second time to show its output. */
export function checkedPayloadReader(checked: ReadonlyMap<number, Buffer>, others: PayloadReader): PayloadReader {
  return (offset, projection) => {
    const payload_cbor = checked.get(offset);
    if (payload_cbor === undefined) return others(offset, projection);
    const decoder = new CborDecoder(payload_cbor);
    return projection === undefined ? toJsonPayload(decoder.readItem() as Payload) : ((projected(decoder, projection) as JsonPayload | null) ?? {});
  };
}

/** Reads payloads from a WAL image held in memory (the crash simulator's disk views). */
export function bufferPayloadReader(wal_bytes: Buffer): PayloadReader {
  return (offset, projection) => payloadOf(frameInBuffer(wal_bytes, offset, decoderOf(projection)), offset);
}

function decoderOf(projection: PayloadProjection | undefined): PayloadDecoder | undefined {
  return projection === undefined ? undefined : (decoder) => projected(decoder, projection);
}

function projected(decoder: CborDecoder, projection: PayloadProjection): CborValue {
  // Built in the JSON form as it is read: byte strings as hex, a "__proto__" key an ordinary field (setOwn).
  decoder.bytes_as_hex = true;
  return decoder.readProjected(projection);
}

/** The payload of a frame read back, or FrameReadError naming the offset and why it no longer reads back. */
export function payloadOf(frame: FrameAt, offset: number): JsonPayload {
  if (frame.kind === 'io') throw new FrameReadError(offset, frame.message);
  if (frame.kind === 'damaged') throw new FrameReadError(offset, frame.reason.replaceAll('_', ' '));
  if (frame.body.kind !== 'ok') throw new FrameReadError(offset, frame.body.message);
  const whole = frame.body.body.payload;
  return whole === null ? ((frame.body.kept as JsonPayload | undefined) ?? {}) : toJsonPayload(whole);
}

export class FrameReadError extends Error {
  override name = 'FrameReadError';
  constructor(
    readonly offset: number,
    reason: string,
  ) {
    super(`the record at offset ${offset} no longer reads back (${reason}): the WAL changed since it was read; reopen it`);
  }
}
