// Frame encoding and decoding (wal-format §2, §3): a 12-byte header, one CBOR body, a 32-byte digest.
// Encoding asserts its own output; decoding names every way a frame can be damaged or malformed, and never
// trusts a length before checking it against the bounds.
import assert from 'node:assert/strict';
import type { DamageReason, DigestAlgorithmName, FrameBody, Payload } from '../../src-shared/wal.js';
import { NONE } from '../../src-shared/arrays.js';
import { MAJOR_UINT, byteView, CborDecoder, CborError, encodeCbor } from './cbor.js';
import { DIGEST_ALGORITHM_CODES, digestAlgorithmName, frameDigest, frameDigestMatches } from './digest.js';
import {
  FEATURE_NAME_PATTERN,
  FRAME_BODY_BYTES_MAX,
  FRAME_BODY_BYTES_MIN,
  FRAME_DIGEST_BYTES,
  FRAME_HEADER_BYTES,
  FRAME_LAYOUT,
  FRAME_MAGIC,
  FRAME_OVERHEAD_BYTES,
  FRAME_VER_GATED,
  FRAME_VER_PLAIN,
} from './limits.js';

/** The head of an array of no items. */
const CBOR_EMPTY_ARRAY = 0x80;

export class FrameEncodeError extends Error {
  override name = 'FrameEncodeError';
}

/** Encodes one frame. The body must already satisfy §3; the writer decides ver and features. */
export function encodeFrame(body: FrameBody, algorithm: DigestAlgorithmName = 'sha256'): Buffer {
  assertBodyShape(body);
  const bodyBytes = encodeCbor([body.ver, body.seq, body.fence, body.type, body.features, body.payload]);
  if (bodyBytes.length > FRAME_BODY_BYTES_MAX) {
    throw new FrameEncodeError(`frame body of ${bodyBytes.length} bytes exceeds ${FRAME_BODY_BYTES_MAX}`);
  }
  const frame = Buffer.allocUnsafe(FRAME_OVERHEAD_BYTES + bodyBytes.length);
  frame.set(FRAME_MAGIC, 0);
  frame[4] = FRAME_LAYOUT;
  frame[5] = DIGEST_ALGORITHM_CODES[algorithm];
  frame.writeUInt16LE(0, 6);
  frame.writeUInt32LE(bodyBytes.length, 8);
  bodyBytes.copy(frame, FRAME_HEADER_BYTES);
  const coveredEnd = FRAME_HEADER_BYTES + bodyBytes.length;
  frame.set(frameDigest(algorithm, frame.subarray(0, coveredEnd)), coveredEnd);
  // The header must read back as this very frame; re-hashing the bytes just hashed would prove nothing.
  assert.deepEqual(checkHeader(frame, frame.length), { size_bytes: frame.length, algorithm }, 'encoded header must read back');
  return frame;
}

function assertBodyShape(body: FrameBody): void {
  assert.ok(body.ver === FRAME_VER_PLAIN || body.ver === FRAME_VER_GATED, `ver ${body.ver}`);
  assert.ok(Number.isSafeInteger(body.seq) && body.seq >= 0, `seq ${body.seq}`);
  assert.ok(Number.isSafeInteger(body.fence) && body.fence >= 0, `fence ${body.fence}`);
  assert.ok(body.type.length > 0, 'type must not be empty');
  assert.equal(body.features.length > 0, body.ver === FRAME_VER_GATED, 'features exactly when gated');
  assert.deepEqual(body.features, [...new Set(body.features)].sort(), 'features sorted and unique');
  for (const feature of body.features) assert.match(feature, FEATURE_NAME_PATTERN);
}

/** Frame size declared by an intact-looking header at `header[at]`, or the reason the header is damaged.
 *  `available_bytes` is how many bytes exist from that offset to the end of the file. */
export function checkHeader(
  header: Uint8Array,
  available_bytes: number,
  at = 0,
): { size_bytes: number; algorithm: DigestAlgorithmName } | DamageReason {
  const size_bytes = checkedFrameSize(header, available_bytes, at);
  if (typeof size_bytes === 'string') return size_bytes;
  return { size_bytes, algorithm: digestAlgorithmName(header[at + 5]!)! };
}

/** `checkHeader` without a result object, for the reader's per-frame path: the frame's size, or why the header
 *  is damaged. An intact header's algorithm is `digestAlgorithmName(header[at + 5])`. */
export function checkedFrameSize(header: Uint8Array, available_bytes: number, at: number): number | DamageReason {
  if (available_bytes < FRAME_HEADER_BYTES || header.length - at < FRAME_HEADER_BYTES) return 'short_header';
  for (let index = 0; index < FRAME_MAGIC.length; index++) {
    if (header[at + index] !== FRAME_MAGIC[index]) return 'bad_magic';
  }
  if (header[at + 4] !== FRAME_LAYOUT) return 'unknown_layout';
  if (digestAlgorithmName(header[at + 5]!) === null) return 'unknown_digest_algorithm';
  if (header[at + 6] !== 0 || header[at + 7] !== 0) return 'reserved_nonzero';
  const body_bytes =
    header[at + 8]! | (header[at + 9]! << 8) | (header[at + 10]! << 16) | (header[at + 11]! * 0x1000000);
  if (body_bytes < FRAME_BODY_BYTES_MIN || body_bytes > FRAME_BODY_BYTES_MAX) return 'bad_body_length';
  const size_bytes = FRAME_OVERHEAD_BYTES + body_bytes;
  if (size_bytes > available_bytes) return 'past_end';
  return size_bytes;
}

/** Checks the whole frame that starts at `offset` in `buffer`: null when intact, else why it is damaged.
 *  `available_bytes` counts the bytes from `offset` to the end of the file (the buffer may hold fewer). */
export function checkFrameAt(buffer: Buffer, offset: number, available_bytes: number): DamageReason | null {
  const header = checkHeader(buffer, available_bytes, offset);
  if (typeof header === 'string') return header;
  assert.ok(offset + header.size_bytes <= buffer.length, 'caller must hold the whole frame');
  const covered_end = offset + header.size_bytes - FRAME_DIGEST_BYTES;
  return digestMatches(header.algorithm, buffer, offset, covered_end) ? null : 'digest_mismatch';
}

/** Whether the 32 bytes at `covered_end` are the digest of `buffer[covered_start, covered_end)`: compared in
 *  place, without copying the stored digest. */
export function digestMatches(algorithm: DigestAlgorithmName, buffer: Buffer, covered_start: number, covered_end: number): boolean {
  return frameDigestMatches(algorithm, byteView(buffer, covered_start, covered_end), buffer, covered_end);
}

export type BodyDecodeResult =
  /** `payload_at`: where the payload map's CBOR starts in the body, for readers that decode it themselves;
   *  `kept`: what `decode_payload` built of it (undefined without one). */
  | { kind: 'ok'; body: Omit<FrameBody, 'payload'> & { payload: Payload | null }; payload_at: number; kept: unknown }
  | BodyRefusal;

/** Why a digest-valid body is refused. */
export type BodyRefusal = { kind: 'malformed'; message: string } | { kind: 'newer_version'; ver: number; message: string };

/** A digest-valid body's fields, as `decodeBodyInto` fills them. The reader keeps one and refills it for every
 *  frame: the result objects it made a frame were a sixth of a million-record verify. */
export class BodyFields {
  /** Decodes each body `decodeBodyInto` fills this from. */
  readonly decoder = new CborDecoder(Buffer.alloc(0));
  ver = 0;
  seq = 0;
  fence = 0;
  type = '';
  features: string[] = [];
  payload: Payload | null = null;
  /** Where the payload map's CBOR starts in the body. */
  payload_at = 0;
  /** What `decode_payload` built of the payload (undefined without one). */
  kept: unknown = undefined;
}

/** Builds what a reader keeps of a record's payload while validating it: it must consume exactly the payload's
 *  one item, validating what it does not build (`skipItem`), and throw CborError where the item is malformed. */
export type PayloadDecoder = (decoder: CborDecoder, type: string) => unknown;

/** Decodes a digest-valid body. With `with_payload` false the payload is validated but not built, or built as
 *  far as `decode_payload` builds it, in the same one pass. */
export function decodeBody(bodyBytes: Buffer, with_payload: boolean, decode_payload?: PayloadDecoder): BodyDecodeResult {
  const fields = new BodyFields();
  const refusal = decodeBodyInto(fields, bodyBytes, 0, bodyBytes.length, with_payload, decode_payload);
  if (refusal !== null) return refusal;
  const { ver, seq, fence, type, features, payload } = fields;
  return { kind: 'ok', body: { ver, seq, fence, type, features, payload }, payload_at: fields.payload_at, kept: fields.kept };
}

/** `decodeBody` of the body `bytes[start, end)`, into `into` (every field set) rather than a new result: null
 *  when the body is accepted, else why not (`into` then holds nothing to use). */
export function decodeBodyInto(
  into: BodyFields,
  bytes: Buffer,
  start: number,
  end: number,
  with_payload: boolean,
  decode_payload?: PayloadDecoder,
): BodyRefusal | null {
  const decoder = into.decoder;
  decoder.reset(bytes, start, end);
  try {
    decoder.nextHead();
    const body_major = decoder.head_major;
    const items = decoder.head_argument;
    if (body_major !== 4) return malformed('body is not a CBOR array');
    if (items < 1) return malformed('body array is empty');
    // ver, seq and fence are uints (§3): a float of the same value is a malformed frame, so their CBOR major
    // type is checked before any value is built.
    const ver = readUint(decoder);
    if (typeof ver === 'string') return malformed(`ver ${ver}`);
    // A newer writer may change everything after ver; judge the version before the shape.
    if (ver > FRAME_VER_GATED) {
      return { kind: 'newer_version', ver, message: `frame version ${ver} is newer than this build reads (3)` };
    }
    if (items !== 6) return malformed(`body array has ${items} items, not 6`);
    const seq = readUint(decoder);
    if (typeof seq === 'string') return malformed(`seq ${seq}`);
    const fence = readUint(decoder);
    if (typeof fence === 'string') return malformed(`fence ${fence}`);
    const type = decoder.readItem();
    const features = readFeatures(decoder, bytes);
    const payload_start = decoder.position;
    decoder.nextHead();
    const payload_major = decoder.head_major;
    if (payload_major !== 5) return malformed('payload is not a map');
    decoder.position = payload_start;
    let payload: Payload | null = null;
    let kept: unknown = undefined;
    if (with_payload) payload = decoder.readItem() as Payload;
    else if (decode_payload !== undefined && typeof type === 'string') kept = decode_payload(decoder, type);
    else decoder.skipItem();
    if (decoder.remaining !== 0) return malformed('bytes after the body array');
    const shapeProblem = checkHeadShape(ver, type, features);
    if (shapeProblem !== null) return malformed(shapeProblem);
    into.ver = ver;
    into.seq = seq;
    into.fence = fence;
    into.type = type as string;
    into.features = features as string[];
    into.payload = payload;
    into.payload_at = payload_start - start;
    into.kept = kept;
    return null;
  } catch (error) {
    if (error instanceof CborError) return malformed(error.message);
    throw error;
  }
}

/** The features item: most frames list none, and get the one shared empty list rather than one of their own. */
function readFeatures(decoder: CborDecoder, bytes: Buffer): unknown {
  if (decoder.remaining === 0 || bytes[decoder.position] !== CBOR_EMPTY_ARRAY) return decoder.readItem();
  decoder.position += 1;
  return NONE;
}

function checkHeadShape(ver: number, type: unknown, features: unknown): string | null {
  if (ver !== FRAME_VER_PLAIN && ver !== FRAME_VER_GATED) return `ver ${ver} is not 2 or 3`;
  if (typeof type !== 'string' || type.length === 0) return 'type is not a non-empty text';
  if (!Array.isArray(features)) return 'features is not an array';
  if (ver === FRAME_VER_PLAIN && features.length > 0) return 'ver 2 frame lists features';
  if (ver === FRAME_VER_GATED && features.length === 0) return 'ver 3 frame lists no features';
  for (let index = 0; index < features.length; index++) {
    const feature = features[index];
    if (typeof feature !== 'string' || !FEATURE_NAME_PATTERN.test(feature)) return `feature ${index} is not a feature name`;
    if (index > 0 && !(features[index - 1]! < feature)) return 'features are not sorted and unique';
  }
  return null;
}

/** An unsigned integer item (CBOR major type 0) below 2^53, or what is wrong with the item: any other item,
 *  floats of integral value included, is not one. */
function readUint(decoder: CborDecoder): number | string {
  decoder.nextHead();
  const major = decoder.head_major;
  const argument = decoder.head_argument;
  if (major !== MAJOR_UINT) return 'is not an unsigned integer';
  return Number.isSafeInteger(argument) ? argument : 'is 2^53 or more';
}

function malformed(message: string): BodyRefusal {
  return { kind: 'malformed', message };
}
