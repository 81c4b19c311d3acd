// Plain RFC 8949 CBOR as wal-format §3 allows it, and nothing else: text-keyed maps, arrays, text and byte
// strings, integers within ±2^53, booleans, null and floats. No tags, no indefinite lengths, no undefined.
//
// The encoder writes preferred (shortest) serialization, so the same value always gives the same bytes: the
// golden tests depend on it. The decoder is strict on hostile input: every length is checked against the bytes
// that remain before anything is allocated, nesting is bounded, text must be valid UTF-8, map keys must be
// unique text. It can also validate an item without building it (skipItem), which is how `verify` checks a
// 1 MiB tool output without materialising the string.
//
// cbor-x is not used here (docs/wal-format.md says why in full): it writes integers of 2^32 or more as float64,
// and it decodes leniently where a reader must refuse (tags unwrapped, duplicate keys, invalid UTF-8, rounding).
import { isUtf8 } from 'node:buffer';
import type { CborValue } from '../../src-shared/wal.js';
import { CBOR_DEPTH_MAX, CBOR_INTEGER_MAX } from './limits.js';

export class CborError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at body byte ${position}`);
    this.name = 'CborError';
  }
}

export const MAJOR_UINT = 0;
const MAJOR_NEGINT = 1;
const MAJOR_BYTES = 2;
const MAJOR_TEXT = 3;
const MAJOR_ARRAY = 4;
const MAJOR_MAP = 5;
const MAJOR_TAG = 6;
const MAJOR_SIMPLE = 7;

// ---------------------------------------------------------------- encoding

export class CborEncoder {
  private buffer: Buffer;
  private length = 0;

  constructor(capacity_bytes = 256) {
    this.buffer = Buffer.allocUnsafe(capacity_bytes);
  }

  encode(value: unknown): Buffer {
    this.length = 0;
    this.writeValue(value, 0);
    return Buffer.from(this.buffer.subarray(0, this.length));
  }

  private ensure(extra_bytes: number): void {
    const needed = this.length + extra_bytes;
    if (needed <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  private writeHead(major: number, argument: number): void {
    this.ensure(9);
    const initial = major << 5;
    if (argument < 24) {
      this.buffer[this.length++] = initial | argument;
    } else if (argument < 0x100) {
      this.buffer[this.length++] = initial | 24;
      this.buffer[this.length++] = argument;
    } else if (argument < 0x10000) {
      this.buffer[this.length++] = initial | 25;
      this.buffer.writeUInt16BE(argument, this.length);
      this.length += 2;
    } else if (argument < 0x100000000) {
      this.buffer[this.length++] = initial | 26;
      this.buffer.writeUInt32BE(argument, this.length);
      this.length += 4;
    } else {
      this.buffer[this.length++] = initial | 27;
      this.buffer.writeUInt32BE(Math.floor(argument / 0x100000000), this.length);
      this.buffer.writeUInt32BE(argument >>> 0, this.length + 4);
      this.length += 8;
    }
  }

  private writeValue(value: unknown, depth: number): void {
    if (depth > CBOR_DEPTH_MAX) throw new CborError(`nesting deeper than ${CBOR_DEPTH_MAX}`, this.length);
    if (value === null) return this.writeSimple(22);
    if (value === true) return this.writeSimple(21);
    if (value === false) return this.writeSimple(20);
    if (typeof value === 'number') return this.writeNumber(value);
    if (typeof value === 'string') return this.writeText(value);
    if (value instanceof Uint8Array) return this.writeBytes(value);
    if (Array.isArray(value)) {
      this.writeHead(MAJOR_ARRAY, value.length);
      for (const item of value) this.writeValue(item, depth + 1);
      return;
    }
    if (typeof value === 'object') return this.writeMap(value as Record<string, unknown>, depth);
    throw new CborError(`cannot encode a value of type ${typeof value}`, this.length);
  }

  private writeSimple(code: number): void {
    this.ensure(1);
    this.buffer[this.length++] = (MAJOR_SIMPLE << 5) | code;
  }

  private writeNumber(value: number): void {
    if (Number.isInteger(value)) {
      if (Math.abs(value) > CBOR_INTEGER_MAX) throw new CborError('integer beyond ±2^53', this.length);
      if (value >= 0) this.writeHead(MAJOR_UINT, value);
      else this.writeHead(MAJOR_NEGINT, -1 - value);
      return;
    }
    this.ensure(9);
    this.buffer[this.length++] = (MAJOR_SIMPLE << 5) | 27;
    this.buffer.writeDoubleBE(value, this.length);
    this.length += 8;
  }

  private writeText(value: string): void {
    const size_bytes = Buffer.byteLength(value, 'utf8');
    this.writeHead(MAJOR_TEXT, size_bytes);
    this.ensure(size_bytes);
    this.length += this.buffer.write(value, this.length, size_bytes, 'utf8');
  }

  private writeBytes(value: Uint8Array): void {
    this.writeHead(MAJOR_BYTES, value.length);
    this.ensure(value.length);
    this.buffer.set(value, this.length);
    this.length += value.length;
  }

  private writeMap(value: Record<string, unknown>, depth: number): void {
    const keys = Object.keys(value).filter((key) => value[key] !== undefined);
    this.writeHead(MAJOR_MAP, keys.length);
    for (const key of keys) {
      this.writeText(key);
      this.writeValue(value[key], depth + 1);
    }
  }
}

const sharedEncoder = new CborEncoder(64 * 1024);

/** Encodes one value; keys with `undefined` values are left out, as in JSON. */
export function encodeCbor(value: unknown): Buffer {
  return sharedEncoder.encode(value);
}

// ---------------------------------------------------------------- decoding

interface Head {
  major: number;
  argument: number;
}

/** A cursor over one CBOR body. `readItem` builds values, `skipItem` validates them without building. */
export class CborDecoder {
  position = 0;

  constructor(readonly bytes: Buffer) {}

  get remaining(): number {
    return this.bytes.length - this.position;
  }

  fail(message: string): never {
    throw new CborError(message, this.position);
  }

  readHead(): Head {
    if (this.remaining < 1) this.fail('unexpected end of body');
    const initial = this.bytes[this.position]!;
    const major = initial >> 5;
    const info = initial & 0x1f;
    if (major === MAJOR_TAG) this.fail('CBOR tags are not allowed');
    if (major === MAJOR_SIMPLE) {
      this.position += 1;
      return { major, argument: info };
    }
    if (info === 31) this.fail('indefinite lengths are not allowed');
    if (info >= 28) this.fail(`reserved additional information ${info}`);
    const argument_bytes = info < 24 ? 0 : 1 << (info - 24);
    if (this.remaining < 1 + argument_bytes) this.fail('unexpected end of body');
    const at = this.position + 1;
    let argument: number;
    if (argument_bytes === 0) argument = info;
    else if (argument_bytes === 1) argument = this.bytes[at]!;
    else if (argument_bytes === 2) argument = this.bytes.readUInt16BE(at);
    else if (argument_bytes === 4) argument = this.bytes.readUInt32BE(at);
    else {
      const high = this.bytes.readUInt32BE(at);
      const low = this.bytes.readUInt32BE(at + 4);
      if (high > 0x200000 || (high === 0x200000 && low !== 0)) this.fail('integer beyond ±2^53');
      argument = high * 0x100000000 + low;
    }
    this.position = at + argument_bytes;
    return { major, argument };
  }

  readItem(depth = 0): CborValue {
    if (depth > CBOR_DEPTH_MAX) this.fail(`nesting deeper than ${CBOR_DEPTH_MAX}`);
    const start = this.position;
    const { major, argument } = this.readHead();
    switch (major) {
      case MAJOR_UINT:
        return argument;
      case MAJOR_NEGINT:
        if (argument > CBOR_INTEGER_MAX - 1) this.fail('integer beyond ±2^53');
        return -1 - argument;
      case MAJOR_BYTES:
        return new Uint8Array(this.takeBytes(argument));
      case MAJOR_TEXT:
        return this.takeText(argument);
      case MAJOR_ARRAY: {
        this.checkCount(argument, start);
        const items: CborValue[] = new Array(argument);
        for (let index = 0; index < argument; index++) items[index] = this.readItem(depth + 1);
        return items;
      }
      case MAJOR_MAP: {
        this.checkCount(argument * 2, start);
        const map: { [key: string]: CborValue } = {};
        for (let index = 0; index < argument; index++) {
          const key = this.readKey();
          if (Object.prototype.hasOwnProperty.call(map, key)) this.fail(`duplicate map key "${key}"`);
          // defineProperty keeps a hostile "__proto__" key an ordinary property instead of a prototype swap.
          Object.defineProperty(map, key, {
            value: this.readItem(depth + 1),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return map;
      }
      default:
        return this.readSimple(argument, start);
    }
  }

  skipItem(depth = 0): void {
    if (depth > CBOR_DEPTH_MAX) this.fail(`nesting deeper than ${CBOR_DEPTH_MAX}`);
    const start = this.position;
    const { major, argument } = this.readHead();
    switch (major) {
      case MAJOR_UINT:
        return;
      case MAJOR_NEGINT:
        if (argument > CBOR_INTEGER_MAX - 1) this.fail('integer beyond ±2^53');
        return;
      case MAJOR_BYTES:
        this.takeBytes(argument);
        return;
      case MAJOR_TEXT: {
        const text = this.takeBytes(argument);
        if (!isUtf8(text)) this.fail('text string is not valid UTF-8');
        return;
      }
      case MAJOR_ARRAY:
        this.checkCount(argument, start);
        for (let index = 0; index < argument; index++) this.skipItem(depth + 1);
        return;
      case MAJOR_MAP: {
        this.checkCount(argument * 2, start);
        const keys = new Set<string>();
        for (let index = 0; index < argument; index++) {
          const key = this.readKey();
          if (keys.has(key)) this.fail(`duplicate map key "${key}"`);
          keys.add(key);
          this.skipItem(depth + 1);
        }
        return;
      }
      default:
        this.readSimple(argument, start);
    }
  }

  readKey(): string {
    const { major, argument } = this.readHead();
    if (major !== MAJOR_TEXT) this.fail('map keys must be text');
    return this.takeText(argument);
  }

  private readSimple(info: number, start: number): CborValue {
    switch (info) {
      case 20:
        return false;
      case 21:
        return true;
      case 22:
        return null;
      case 25:
        return decodeHalf(this.takeBytes(2).readUInt16BE(0));
      case 26:
        return this.takeBytes(4).readFloatBE(0);
      case 27:
        return this.takeBytes(8).readDoubleBE(0);
      default:
        this.position = start;
        return this.fail(`simple value ${info} is not allowed`);
    }
  }

  private checkCount(minimum_bytes: number, start: number): void {
    if (minimum_bytes > this.remaining) {
      this.position = start;
      this.fail('declared item count exceeds the bytes that remain');
    }
  }

  private takeBytes(size_bytes: number): Buffer {
    if (size_bytes > this.remaining) this.fail('string length exceeds the bytes that remain');
    const slice = this.bytes.subarray(this.position, this.position + size_bytes);
    this.position += size_bytes;
    return slice;
  }

  private takeText(size_bytes: number): string {
    const raw = this.takeBytes(size_bytes);
    if (!isUtf8(raw)) this.fail('text string is not valid UTF-8');
    return raw.toString('utf8');
  }
}

function decodeHalf(half: number): number {
  const exponent = (half >> 10) & 0x1f;
  const mantissa = half & 0x3ff;
  const sign = half & 0x8000 ? -1 : 1;
  if (exponent === 0) return sign * 2 ** -14 * (mantissa / 1024);
  if (exponent === 31) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * 2 ** (exponent - 15) * (1 + mantissa / 1024);
}

/** Decodes exactly one item that fills `bytes`; anything left over is an error. */
export function decodeCbor(bytes: Buffer): CborValue {
  const decoder = new CborDecoder(bytes);
  const value = decoder.readItem();
  if (decoder.remaining !== 0) decoder.fail('bytes after the single data item');
  return value;
}
