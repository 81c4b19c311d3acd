// Plain RFC 8949 CBOR as wal-format §3 allows it, and nothing else: text-keyed maps, arrays, text and byte
// strings, integers within ±2^53, booleans, null and floats. No tags, no indefinite lengths, no undefined.
//
// The encoder writes preferred (shortest) serialization, so the same value always gives the same bytes: the
// golden tests depend on it. The decoder is strict on hostile input: every length is checked against the bytes
// that remain before anything is allocated, nesting is bounded, text must be valid UTF-8, map keys must be
// unique text. It can also validate an item without building it (skipItem), which is how `verify` checks a
// 1 MiB tool output without materialising the string.
//
// cbor-x is not used here (docs/wal-format.md says why in full): it writes integers of 2^32 or more as float64;
// it decodes leniently where a reader must refuse (it unwraps tag-64 bytes, keeps the last of duplicate keys,
// replaces invalid UTF-8, rounds integers past 2^53 and renames a `__proto__` key); and it cannot validate an
// item without building it.
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

/** A decode built more items than its budget allows (`items_left`): not malformed, too large for the caller. */
export class CborItemsExceeded extends Error {
  override name = 'CborItemsExceeded';
}

export const MAJOR_UINT = 0;
const MAJOR_NEGINT = 1;
export const MAJOR_BYTES = 2;
export const MAJOR_TEXT = 3;
export const MAJOR_ARRAY = 4;
export const MAJOR_MAP = 5;
const MAJOR_TAG = 6;
const MAJOR_SIMPLE = 7;

// ---------------------------------------------------------------- encoding

export class CborEncoder {
  private buffer: Buffer;
  private length = 0;
  /** Counting the bytes an encoding takes without writing them (`measuredLength`): the same walk, the same
   *  refusals. Writing every text of a request only to learn its length was half of what measuring it cost. */
  private measuring = false;

  constructor(capacity_bytes = 256) {
    this.buffer = Buffer.allocUnsafe(capacity_bytes);
  }

  encode(value: unknown): Buffer {
    const length = this.encodedLength(value);
    return Buffer.from(this.buffer.subarray(0, length));
  }

  /** The length of `value`'s encoding, written into this encoder's buffer and not copied out. */
  encodedLength(value: unknown): number {
    this.measuring = false;
    this.length = 0;
    this.writeValue(value, 0);
    return this.length;
  }

  /** The length of `value`'s encoding, counted without writing it. */
  measuredLength(value: unknown): number {
    this.measuring = true;
    this.length = 0;
    try {
      this.writeValue(value, 0);
    } finally {
      this.measuring = false;
    }
    return this.length;
  }

  private ensure(extra_bytes: number): void {
    const needed = this.length + extra_bytes;
    if (needed <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  private writeHead(major: number, argument: number): void {
    if (this.measuring) {
      this.length += headBytes(argument);
      return;
    }
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
    if (this.measuring) {
      this.length += 1;
      return;
    }
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
    if (this.measuring) {
      this.length += 9;
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
    if (this.measuring) {
      this.length += size_bytes;
      return;
    }
    this.ensure(size_bytes);
    this.length += this.buffer.write(value, this.length, size_bytes, 'utf8');
  }

  private writeBytes(value: Uint8Array): void {
    this.writeHead(MAJOR_BYTES, value.length);
    if (this.measuring) {
      this.length += value.length;
      return;
    }
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

/** The bytes of a head with this argument (preferred serialization): an array's head for `argument` items. */
export function headBytes(argument: number): number {
  if (argument < 24) return 1;
  if (argument < 0x100) return 2;
  if (argument < 0x10000) return 3;
  if (argument < 0x100000000) return 5;
  return 9;
}

const sharedEncoder = new CborEncoder(64 * 1024);

/** Encodes one value; keys with `undefined` values are left out, as in JSON. */
export function encodeCbor(value: unknown): Buffer {
  return sharedEncoder.encode(value);
}

/** `encodeCbor(value).length`, without a buffer of its own: measuring a request's 1 GiB of outputs made as many
 *  bytes of buffers to drop. */
export function encodedSize(value: unknown): number {
  return sharedEncoder.measuredLength(value);
}

// ---------------------------------------------------------------- decoding

interface Head {
  major: number;
  argument: number;
}

/** `readProjected`: build this item if it is a scalar (a text, number, byte string, boolean or null). */
export const SCALAR = Symbol('scalar');
/** `readProjected`: build this item whole, as `readItem` does. */
export const WHOLE = Symbol('whole');
/** `readProjected`: build this item if it is a text of at most `bytes_max` UTF-8 bytes; validate anything else
 *  without building it (as a map member, it is then left out; as an array item, it reads as null). */
export class ShortText {
  constructor(readonly bytes_max: number) {}
}
/** `readProjected`: build this item with `read`, which consumes exactly the one item and refuses (CborError)
 *  exactly what `readItem` refuses, with its messages (a JSON preview of a 16 MiB output: cbor-json-preview.ts). */
export class ReadBy {
  constructor(readonly read: (decoder: CborDecoder, depth: number) => CborValue) {}
}
/** What `CborDecoder.readProjected` builds of an item: a scalar, a short text, all of it, what a ReadBy makes of
 *  it, some members of a map, or each item of an array. */
export type CborProjection = typeof SCALAR | typeof WHOLE | ShortText | ReadBy | { readonly [key: string]: CborProjection } | readonly [CborProjection];

/** A map projection's members, with each name's UTF-8 bytes: a map's keys are matched to them byte for byte,
 *  without a string per key (making and comparing a string per key was a third of what the fold's decoding
 *  cost). */
class MemberTable {
  readonly names: string[];
  readonly projections: CborProjection[];
  private readonly name_bytes: Buffer[];
  /** The keys of the last small map read with this table, in its order: each key's encoding (head and UTF-8
   *  bytes) and the member it is (-1: none). The maps of a record type repeat their keys in the same order, so
   *  a map whose keys so far were these, place by place, needs no more than a byte comparison for its next key
   *  when that key is the next of these: it is valid text, distinct from the earlier ones (the layout's keys
   *  are distinct: each was checked against the ones before it in its map) and its member is known. Validating,
   *  checking and matching every key was about a quarter of what decoding the fold's members cost. */
  private readonly layout_bytes = new Uint8Array(MAP_KEYS_PAIRWISE_MAX * LAYOUT_KEY_BYTES_MAX);
  private readonly layout_lengths: number[] = [];
  private readonly layout_heads: number[] = [];
  private readonly layout_members: number[] = [];
  /** How many of the layout's places hold the keys of one map. */
  private layout_size = 0;
  /** A map of this table is being read: a map of the same table inside it (a projection that contains itself)
   *  must not change the layout under it, so it neither uses nor learns it. */
  reading = false;

  constructor(members: { readonly [key: string]: CborProjection }) {
    this.names = Object.keys(members);
    this.projections = this.names.map((name) => members[name]!);
    this.name_bytes = this.names.map((name) => Buffer.from(name, 'utf8'));
  }

  /** The member whose name is the key `bytes[start, end)`, or -1. */
  find(bytes: Buffer, start: number, end: number): number {
    const length = end - start;
    for (let member = 0; member < this.name_bytes.length; member++) {
      const name = this.name_bytes[member]!;
      if (name.length !== length) continue;
      let index = 0;
      while (index < length && name[index] === bytes[start + index]) index++;
      if (index === length) return member;
    }
    return -1;
  }

  /** The layout's key at `place` when `bytes[at, end)` starts with its encoding: its encoding's length and its
   *  head's (the key's bytes follow the head), or -1. */
  layoutKeyBytes(place: number, bytes: Buffer, at: number, end: number): number {
    if (place >= this.layout_size) return -1;
    const length = this.layout_lengths[place]!;
    if (length > end - at) return -1;
    const encoded = this.layout_bytes;
    const from = place * LAYOUT_KEY_BYTES_MAX;
    for (let index = 0; index < length; index++) if (encoded[from + index] !== bytes[at + index]) return -1;
    return length;
  }

  layoutHead(place: number): number {
    return this.layout_heads[place]!;
  }

  layoutMember(place: number): number {
    return this.layout_members[place]!;
  }

  /** Makes the key encoded in `bytes[head_start, key_end)` (its bytes from `key_start`), checked against the
   *  map's earlier keys, the layout's key at `place`: the layout ends there, as the places after it were
   *  another map's. A longer key than a place holds ends the layout before it. Copied into the table's own
   *  bytes: maps of two alternating layouts (an assistant message's text and tool_use blocks) learn a key in
   *  every few, and a copy of each was a tenth of what the layout saved. */
  learn(place: number, bytes: Buffer, head_start: number, key_start: number, key_end: number, member: number): void {
    const length = key_end - head_start;
    if (length > LAYOUT_KEY_BYTES_MAX) {
      this.layout_size = place;
      return;
    }
    const from = place * LAYOUT_KEY_BYTES_MAX;
    for (let index = 0; index < length; index++) this.layout_bytes[from + index] = bytes[head_start + index]!;
    this.layout_lengths[place] = length;
    this.layout_heads[place] = key_start - head_start;
    this.layout_members[place] = member;
    this.layout_size = place + 1;
  }
}

/** Each map projection's table, made at its first use (projections are a few constants; a test's are many). */
const member_tables = new WeakMap<object, MemberTable>();

export type { MemberTable };

export function memberTable(members: { readonly [key: string]: CborProjection }): MemberTable {
  let table = member_tables.get(members);
  if (table === undefined) member_tables.set(members, (table = new MemberTable(members)));
  return table;
}

/** `layoutKey`'s answer when the key is not the layout's at its place (members are -1 or more). */
const LAYOUT_MISSED = -2;
/** The longest key encoding (head and bytes) a layout place holds: a record's member names are short. */
const LAYOUT_KEY_BYTES_MAX = 32;

/** Maps with at most this many keys find duplicates by comparing key bytes pairwise (no strings, no Set);
 *  larger ones use a Set of the keys' bytes as latin1 (one character per byte: equal iff the bytes are). */
const MAP_KEYS_PAIRWISE_MAX = 16;
/** Texts shorter than this are checked for ASCII in JS before the native UTF-8 check (a call costs more). */
const TEXT_ASCII_SCAN_MAX = 64;

/** Start/end of the keys of the maps being skipped, for the pairwise comparison. One scratch for every decoder
 *  (a typed array per decoder cost a sixth of verify's time): decoders run one at a time, each from index 0. */
let key_bounds = new Int32Array(8 * MAP_KEYS_PAIRWISE_MAX);
/** The view of no buffer a decoder starts with (`wordsView` replaces it at the first use). */
const NO_WORDS = new DataView(new ArrayBuffer(0));

/** A cursor over one CBOR body, `bytes[start, end)`. `readItem` builds values, `skipItem` validates them without
 *  building. The decoded head is kept in fields rather than returned as an object: `verify` decodes millions of
 *  heads, and an allocation per head was a tenth of its time. The body is a range of `bytes` rather than a view
 *  of it because the reader decodes each frame where it lies in its window (a Buffer view a frame cost as much
 *  as decoding its head). `position` indexes `bytes`; messages count body bytes from `start`. */
export class CborDecoder {
  position: number;
  /** The major type and argument of the head `readHead` or `nextHead` read last. */
  head_major = 0;
  head_argument = 0;
  /** How much of `key_bounds` the maps being skipped use: nested maps stack their keys on it. */
  private key_bounds_used = 0;
  /** Build byte strings as lowercase hex text (the project's JSON form, src-shared/json.ts) instead of
   *  Uint8Array: the fold keeps JSON values, and converting afterwards copied every payload twice. */
  bytes_as_hex = false;
  /** How many more items `readItem` may build; past it, it throws CborItemsExceeded. */
  items_left = Number.POSITIVE_INFINITY;
  /** The bytes were checked already (a payload the reader hands over after validating it): a text passed over
   *  is not checked for UTF-8 again, which for a tool output of megabytes is most of passing over it. */
  utf8_checked = false;
  /** `wordsView`'s DataView, and the buffer it views. A decoder is made per payload by the fold and the lineage
   *  facts: an ArrayBuffer and a DataView for each (a root of 2,000 sessions: ~0.2 s) were made only to be replaced. */
  private words: DataView<ArrayBufferLike> = NO_WORDS;
  private words_of: Uint8Array | null = null;

  constructor(
    public bytes: Buffer,
    private start = 0,
    private end = bytes.length,
  ) {
    this.position = start;
  }

  /** Makes this decoder what `new CborDecoder(bytes, start, end)` would be: the reader decodes every frame's
   *  body with one. */
  reset(bytes: Buffer, start: number, end: number): void {
    this.bytes = bytes;
    this.start = start;
    this.end = end;
    this.position = start;
    this.key_bounds_used = 0;
    this.bytes_as_hex = false;
    this.items_left = Number.POSITIVE_INFINITY;
  }

  get remaining(): number {
    return this.end - this.position;
  }

  fail(message: string): never {
    throw new CborError(message, this.position - this.start);
  }

  readHead(): Head {
    this.nextHead();
    return { major: this.head_major, argument: this.head_argument };
  }

  /** Reads one head into `head_major` and `head_argument`. */
  nextHead(): void {
    const bytes = this.bytes;
    if (this.position >= this.end) this.fail('unexpected end of body');
    const initial = bytes[this.position]!;
    const major = initial >> 5;
    const info = initial & 0x1f;
    if (major === MAJOR_TAG) this.fail('CBOR tags are not allowed');
    this.head_major = major;
    if (major === MAJOR_SIMPLE) {
      this.position += 1;
      this.head_argument = info;
      return;
    }
    if (info < 24) {
      this.position += 1;
      this.head_argument = info;
      return;
    }
    if (info === 31) this.fail('indefinite lengths are not allowed');
    if (info >= 28) this.fail(`reserved additional information ${info}`);
    const argument_bytes = 1 << (info - 24);
    if (this.remaining < 1 + argument_bytes) this.fail('unexpected end of body');
    const at = this.position + 1;
    let argument: number;
    if (argument_bytes === 1) argument = bytes[at]!;
    else if (argument_bytes === 2) argument = (bytes[at]! << 8) | bytes[at + 1]!;
    else if (argument_bytes === 4) argument = bytes.readUInt32BE(at);
    else {
      const high = bytes.readUInt32BE(at);
      const low = bytes.readUInt32BE(at + 4);
      if (high > 0x200000 || (high === 0x200000 && low !== 0)) this.fail('integer beyond ±2^53');
      argument = high * 0x100000000 + low;
    }
    this.position = at + argument_bytes;
    this.head_argument = argument;
  }

  /** Reads a map's head and returns its number of entries; fails unless it is a map whose entries could fit in
   *  the bytes that remain (as `readItem` would). */
  readMapHead(): number {
    const start = this.position;
    this.nextHead();
    if (this.head_major !== MAJOR_MAP) {
      this.position = start;
      this.fail('expected a map');
    }
    this.checkCount(this.head_argument * 2, start);
    return this.head_argument;
  }

  /** Reads the next head into `head_major` and `head_argument`, consuming nothing: what a projection looks at
   *  before it decides how to read the item. */
  peekHead(): void {
    const start = this.position;
    this.nextHead();
    this.position = start;
  }

  /** Whether the next item is a text string of at most `size_bytes_max` bytes (nothing is consumed). */
  atShortText(size_bytes_max: number): boolean {
    this.peekHead();
    return this.head_major === MAJOR_TEXT && this.head_argument <= size_bytes_max;
  }

  readItem(depth = 0): CborValue {
    if (depth > CBOR_DEPTH_MAX) this.fail(`nesting deeper than ${CBOR_DEPTH_MAX}`);
    if (--this.items_left < 0) throw new CborItemsExceeded(`more items than the decode may build, at body byte ${this.position}`);
    const start = this.position;
    this.nextHead();
    const major = this.head_major;
    const argument = this.head_argument;
    switch (major) {
      case MAJOR_UINT:
        return argument;
      case MAJOR_NEGINT:
        if (argument > CBOR_INTEGER_MAX - 1) this.fail('integer beyond ±2^53');
        return -1 - argument;
      case MAJOR_BYTES:
        return this.bytes_as_hex ? this.takeBytes(argument).toString('hex') : new Uint8Array(this.takeBytes(argument));
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
          setOwn(map, key, this.readItem(depth + 1));
        }
        return map;
      }
      default:
        return this.readSimple(argument, start);
    }
  }

  /** Validates the next item without building it, as `readItem` would judge it (same refusals, same messages).
   *  An item within PLAIN_SKIP_BYTES_MAX of the body's end is first tried by `skipPlain`, which accepts only
   *  what `readItem` accepts; anything else it leaves to the checked path, from the item's start. Bytes whose
   *  texts were checked already (`utf8_checked`) go the checked path, which then passes texts over unread. */
  skipItem(depth = 0): void {
    if (this.remaining <= PLAIN_SKIP_BYTES_MAX && !this.utf8_checked) {
      const end = skipPlain(this.bytes, this.wordsView(), this.position, this.end, CBOR_DEPTH_MAX - depth);
      if (end >= 0) {
        this.position = end;
        return;
      }
    }
    this.skipChecked(depth);
  }

  /** Validates the next item as `skipItem` does (the same refusals) and returns the size `encodedSize` gives its
   *  JSON form (`readItem` with `bytes_as_hex`, then toJsonValue): preferred heads whatever the heads on disk,
   *  byte strings as their hex text, numbers and simple values as built. What a request's message weighs,
   *  known without building its strings and maps (a million records' first Context look built 100,000). */
  measureItem(depth = 0): number {
    if (depth > CBOR_DEPTH_MAX) this.fail(`nesting deeper than ${CBOR_DEPTH_MAX}`);
    const start = this.position;
    this.nextHead();
    const argument = this.head_argument;
    switch (this.head_major) {
      case MAJOR_BYTES:
        this.skipBytes(argument);
        return headBytes(2 * argument) + 2 * argument;
      case MAJOR_TEXT:
        this.skipText(argument);
        return headBytes(argument) + argument;
      case MAJOR_ARRAY: {
        this.checkCount(argument, start);
        let size = headBytes(argument);
        for (let index = 0; index < argument; index++) size += this.measureItem(depth + 1);
        return size;
      }
      case MAJOR_MAP:
        this.checkCount(argument * 2, start);
        return headBytes(argument) + this.measureEntries(argument, depth);
      default:
        this.position = start;
        return encodedSize(this.readItem(depth));
    }
  }

  /** The entries of a map whose head was read, measured; its keys checked for duplicates as `skipItem` does. */
  private measureEntries(count: number, depth: number): number {
    const base = this.key_bounds_used;
    const large = count > MAP_KEYS_PAIRWISE_MAX ? new Set<string>() : null;
    if (large === null) this.reserveKeyBounds(base, count);
    let size = 0;
    for (let index = 0; index < count; index++) {
      const key_start = this.skipKey();
      const key_end = this.position;
      if (large === null) this.checkNewKey(base, index, key_start, key_end);
      else this.checkNewLargeKey(large, key_start, key_end);
      size += headBytes(key_end - key_start) + key_end - key_start + this.measureItem(depth + 1);
    }
    this.key_bounds_used = base;
    return size;
  }

  /** A DataView of `bytes`, for reading 4 bytes a step; kept while the decoder reads the same buffer (the
   *  reader's window, frame after frame), so it is made once a window rather than once an item. */
  private wordsView(): DataView<ArrayBufferLike> {
    const bytes = this.bytes;
    if (this.words_of !== bytes) {
      this.words = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      this.words_of = bytes;
    }
    return this.words;
  }

  /** `skipItem` one item at a time, naming what is wrong. */
  private skipChecked(depth: number): void {
    if (depth > CBOR_DEPTH_MAX) this.fail(`nesting deeper than ${CBOR_DEPTH_MAX}`);
    const start = this.position;
    this.nextHead();
    const argument = this.head_argument;
    switch (this.head_major) {
      case MAJOR_UINT:
        return;
      case MAJOR_NEGINT:
        if (argument > CBOR_INTEGER_MAX - 1) this.fail('integer beyond ±2^53');
        return;
      case MAJOR_BYTES:
        this.skipBytes(argument);
        return;
      case MAJOR_TEXT:
        this.skipText(argument);
        return;
      case MAJOR_ARRAY:
        this.checkCount(argument, start);
        for (let index = 0; index < argument; index++) this.skipChecked(depth + 1);
        return;
      case MAJOR_MAP:
        this.checkCount(argument * 2, start);
        if (argument <= MAP_KEYS_PAIRWISE_MAX) this.skipSmallMap(argument, depth);
        else this.skipLargeMap(argument, depth);
        return;
      default:
        this.readSimple(argument, start);
    }
  }

  /** Builds the part of the next item that `projection` names and validates the rest without building it,
   *  accepting and refusing exactly what `readItem` does (same messages): SCALAR builds a scalar and skips a
   *  container; WHOLE builds it all; a map projection builds the named members of a map; an array projection
   *  builds each item of an array by its one projection. An item of another kind than its projection is
   *  validated and read as null. Built containers count against `items_left` as `readItem`'s do. */
  readProjected(projection: CborProjection, depth = 0): CborValue {
    if (projection === WHOLE) return this.readItem(depth);
    if (projection instanceof ReadBy) return projection.read(this, depth);
    if (projection instanceof ShortText) {
      if (this.atShortText(projection.bytes_max)) return this.readItem(depth);
      this.skipItem(depth);
      return null;
    }
    if (depth > CBOR_DEPTH_MAX) this.fail(`nesting deeper than ${CBOR_DEPTH_MAX}`);
    const start = this.position;
    if (start >= this.end) this.fail('unexpected end of body');
    const major = this.bytes[start]! >> 5;
    const container = major === MAJOR_ARRAY || major === MAJOR_MAP;
    if (!container) {
      if (projection === SCALAR) return this.readItem(depth);
      this.skipItem(depth);
      return null;
    }
    const wanted = projection === SCALAR ? null : Array.isArray(projection) ? MAJOR_ARRAY : MAJOR_MAP;
    if (major !== wanted) {
      this.skipItem(depth);
      return null;
    }
    if (--this.items_left < 0) throw new CborItemsExceeded(`more items than the decode may build, at body byte ${this.position}`);
    this.nextHead();
    const count = this.head_argument;
    if (major === MAJOR_ARRAY) {
      this.checkCount(count, start);
      const item = (projection as readonly [CborProjection])[0];
      const items: CborValue[] = new Array(count);
      for (let index = 0; index < count; index++) items[index] = this.readProjected(item, depth + 1);
      return items;
    }
    this.checkCount(count * 2, start);
    const map: { [key: string]: CborValue } = {};
    this.readMembers(memberTable(projection as { readonly [key: string]: CborProjection }), count, depth, map);
    return map;
  }

  /** Reads the `count` entries of a map whose head was read, building into `into` the members `table` names
   *  (by its projections) and validating the rest; every key is checked for duplicates, built or not, by its
   *  bytes (as `skipItem` does), with `readItem`'s messages. A ShortText member that is not one is left out.
   *  `into` an object: the members by name; an array: member i's value at place i (the fold's handlers read a
   *  record's members from places, not by name from an object made for them). */
  readMembers(table: MemberTable, count: number, depth: number, into: { [key: string]: unknown } | unknown[]): void {
    const base = this.key_bounds_used;
    const large = count > MAP_KEYS_PAIRWISE_MAX ? new Set<string>() : null;
    if (large === null) this.reserveKeyBounds(base, count);
    // The layout serves small maps (a large map's keys go into its Set) of a table not read around this map.
    const layout = large === null && !table.reading;
    if (layout) table.reading = true;
    try {
      for (let index = 0; index < count; index++) {
        let member = layout ? this.layoutKey(table, base, index) : LAYOUT_MISSED;
        if (member === LAYOUT_MISSED) member = this.memberKey(table, base, index, large, layout);
        const projection = member < 0 ? null : table.projections[member]!;
        if (projection === null || (projection instanceof ShortText && !this.atShortText(projection.bytes_max))) this.skipItem(depth + 1);
        else {
          const value = projection === SCALAR ? this.readScalar(depth + 1) : this.readProjected(projection, depth + 1);
          if (Array.isArray(into)) into[member] = value;
          else setOwn(into, table.names[member]!, value);
        }
      }
    } finally {
      if (layout) table.reading = false;
    }
    this.key_bounds_used = base;
  }

  /** The member the map's key `index` is when it is the table's layout key at that place (consumed and
   *  recorded for the duplicate checks of the keys after it), else LAYOUT_MISSED (nothing consumed). */
  private layoutKey(table: MemberTable, base: number, index: number): number {
    const at = this.position;
    const length = table.layoutKeyBytes(index, this.bytes, at, this.end);
    if (length < 0) return LAYOUT_MISSED;
    key_bounds[base + 2 * index] = at + table.layoutHead(index);
    key_bounds[base + 2 * index + 1] = at + length;
    this.position = at + length;
    return table.layoutMember(index);
  }

  /** Validates the map's key `index`, checks it against the earlier ones and returns the member it is (-1:
   *  none); a small map's key becomes the layout's at its place when `learn`. */
  private memberKey(table: MemberTable, base: number, index: number, large: Set<string> | null, learn: boolean): number {
    const head_start = this.position;
    const key_start = this.skipKey();
    const key_end = this.position;
    if (large === null) this.checkNewKey(base, index, key_start, key_end);
    else this.checkNewLargeKey(large, key_start, key_end);
    const member = table.find(this.bytes, key_start, key_end);
    if (learn) table.learn(index, this.bytes, head_start, key_start, key_end, member);
    return member;
  }

  /** `readProjected(SCALAR, depth)`, without its dispatch on the projection: most members a map projection
   *  names are scalars. */
  private readScalar(depth: number): CborValue {
    if (depth > CBOR_DEPTH_MAX) this.fail(`nesting deeper than ${CBOR_DEPTH_MAX}`);
    if (this.position >= this.end) this.fail('unexpected end of body');
    const major = this.bytes[this.position]! >> 5;
    if (major !== MAJOR_ARRAY && major !== MAJOR_MAP) return this.readItem(depth);
    this.skipItem(depth);
    return null;
  }

  /** Skips a map's entries, finding a duplicate key by comparing the bytes of every earlier key. */
  private skipSmallMap(count: number, depth: number): void {
    const base = this.key_bounds_used;
    this.reserveKeyBounds(base, count);
    for (let index = 0; index < count; index++) {
      const key_start = this.skipKey();
      this.checkNewKey(base, index, key_start, this.position);
      this.skipChecked(depth + 1);
    }
    this.key_bounds_used = base;
  }

  private skipLargeMap(count: number, depth: number): void {
    const keys = new Set<string>();
    for (let index = 0; index < count; index++) {
      const key_start = this.skipKey();
      this.checkNewLargeKey(keys, key_start, this.position);
      this.skipChecked(depth + 1);
    }
  }

  /** Takes room in `key_bounds` for the keys of a map of `count` entries from `base` on: the maps nested in
   *  its values stack theirs above it. */
  private reserveKeyBounds(base: number, count: number): void {
    if (base + 2 * count > key_bounds.length) {
      const grown = new Int32Array(Math.max(key_bounds.length * 2, base + 2 * count));
      grown.set(key_bounds);
      key_bounds = grown;
    }
    this.key_bounds_used = base + 2 * count;
  }

  /** Fails if the key `index` of a small map (`[key_start, key_end)`) has the bytes of an earlier one, and
   *  records it. */
  private checkNewKey(base: number, index: number, key_start: number, key_end: number): void {
    for (let earlier = 0; earlier < index; earlier++) {
      if (this.sameBytes(key_bounds[base + 2 * earlier]!, key_bounds[base + 2 * earlier + 1]!, key_start, key_end)) {
        this.fail(`duplicate map key "${this.bytes.toString('utf8', key_start, key_end)}"`);
      }
    }
    key_bounds[base + 2 * index] = key_start;
    key_bounds[base + 2 * index + 1] = key_end;
  }

  /** The same for a large map, whose keys so far are in `keys` (their bytes as latin1). */
  private checkNewLargeKey(keys: Set<string>, key_start: number, key_end: number): void {
    const key = this.bytes.toString('latin1', key_start, key_end);
    if (keys.has(key)) this.fail(`duplicate map key "${this.bytes.toString('utf8', key_start, key_end)}"`);
    keys.add(key);
  }

  private sameBytes(left_start: number, left_end: number, right_start: number, right_end: number): boolean {
    const length = left_end - left_start;
    if (length !== right_end - right_start) return false;
    const bytes = this.bytes;
    for (let index = 0; index < length; index++) {
      if (bytes[left_start + index] !== bytes[right_start + index]) return false;
    }
    return true;
  }

  /** Validates a text key and returns where its bytes start; `position` is then its end. */
  private skipKey(): number {
    this.nextHead();
    if (this.head_major !== MAJOR_TEXT) this.fail('map keys must be text');
    this.skipText(this.head_argument);
    return this.position - this.head_argument;
  }

  /** Reads a map key, failing as `readItem` does when `seen` (the map's keys so far) holds it already: every
   *  key of a map built in part is checked, built member or not. */
  readNewKey(seen: KeysSeen): string {
    const key = this.readKey();
    if (!seen.add(key)) this.fail(`duplicate map key "${key}"`);
    return key;
  }

  readKey(): string {
    this.nextHead();
    if (this.head_major !== MAJOR_TEXT) this.fail('map keys must be text');
    return this.takeText(this.head_argument);
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

  private skipBytes(size_bytes: number): void {
    if (size_bytes > this.remaining) this.fail('string length exceeds the bytes that remain');
    this.position += size_bytes;
  }

  /** Skips a text string, failing unless it is valid UTF-8; short ASCII is checked without a native call. */
  private skipText(size_bytes: number): void {
    if (size_bytes > this.remaining) this.fail('string length exceeds the bytes that remain');
    const start = this.position;
    const end = start + size_bytes;
    if (this.utf8_checked) {
      this.position = end;
      return;
    }
    if (size_bytes < TEXT_ASCII_SCAN_MAX) {
      const bytes = this.bytes;
      let index = start;
      while (index < end && bytes[index]! < 0x80) index++;
      if (index === end) {
        this.position = end;
        return;
      }
    }
    this.position = end;
    if (!isUtf8(byteView(this.bytes, start, end))) this.fail('text string is not valid UTF-8');
  }

  private takeBytes(size_bytes: number): Buffer {
    if (size_bytes > this.remaining) this.fail('string length exceeds the bytes that remain');
    const slice = this.bytes.subarray(this.position, this.position + size_bytes);
    this.position += size_bytes;
    return slice;
  }

  private takeText(size_bytes: number): string {
    if (size_bytes > this.remaining) this.fail('string length exceeds the bytes that remain');
    const start = this.position;
    const end = start + size_bytes;
    this.position = end;
    const bytes = this.bytes;
    if (size_bytes <= TEXT_INTERNED_BYTES_MAX) {
      const text = internedAscii(bytes, this.wordsView(), start, end);
      if (text !== null) return text;
    } else if (size_bytes < TEXT_ASCII_SCAN_MAX) {
      let index = start;
      while (index < end && bytes[index]! < 0x80) index++;
      if (index === end) return bytes.toString('latin1', start, end);
    }
    if (!isUtf8(byteView(bytes, start, end))) this.fail('text string is not valid UTF-8');
    return bytes.toString('utf8', start, end);
  }
}

/** `skipItem` tries `skipPlain` on an item within this many bytes of the body's end: an item it gives up on is
 *  passed over twice, so only small ones are tried (a million-record WAL's payloads are ~200 bytes). */
const PLAIN_SKIP_BYTES_MAX = 4_096;
/** How deep `skipPlain` follows containers (payloads nest four or five deep); deeper goes the checked way. */
const PLAIN_SKIP_LEVELS_MAX = 16;
/** `skipPlain`'s scratch, shared as `key_bounds` is (one decode at a time): per open container its items left,
 *  and where its keys start in `plain_keys` (-1 for an array). */
const plain_items_left = new Int32Array(PLAIN_SKIP_LEVELS_MAX + 1);
const plain_keys_at = new Int32Array(PLAIN_SKIP_LEVELS_MAX + 1);
/** The keys of the open maps, three numbers a key: start, length and a hash of its bytes. */
const plain_keys = new Int32Array(3 * MAP_KEYS_PAIRWISE_MAX * (PLAIN_SKIP_LEVELS_MAX + 1));

/** Validates the one item at `bytes[position]` (ending by `end`) without building it and returns where it
 *  ends, or -1 where it is anything but plainly valid: it then may or may not be, and the checked path says
 *  which and why. It accepts only what `readItem` accepts, ending where it ends (test/engine/cbor-validate.test.ts
 *  holds it to that on hostile and fuzzed input); it gives up on maps of more than MAP_KEYS_PAIRWISE_MAX
 *  entries, nesting below `levels_max` (or PLAIN_SKIP_LEVELS_MAX) and anything malformed. One loop over the
 *  bytes with the open containers on a stack, the position in a local and a map's keys told apart by a hash
 *  before their bytes are compared: the checked path's call, head fields and pairwise byte comparison per item
 *  were a third of a million-record verify. */
// eslint-disable-next-line max-lines-per-function -- one loop with its stack in locals, on purpose (above): split into calls, it is what the checked path cost
export function skipPlain(bytes: Uint8Array, words: DataView<ArrayBufferLike>, position: number, end: number, levels_max: number): number {
  const deepest = Math.min(levels_max, PLAIN_SKIP_LEVELS_MAX);
  if (deepest < 0) return -1;
  let level = 0; // of the next item; the item itself is at 0
  let items_left = 1; // in the innermost open container (at level 0, the item alone)
  let keys_at = -1; // where the innermost open container's keys start in plain_keys; -1: not a map
  let keys_end = 0; // where the next key of any open map goes
  for (;;) {
    if (items_left === 0) {
      if (level === 0) return position;
      if (keys_at >= 0) keys_end = keys_at;
      level--;
      items_left = plain_items_left[level]!;
      keys_at = plain_keys_at[level]!;
      continue;
    }
    items_left--;
    if (position >= end) return -1;
    const initial = bytes[position]!;
    const major = initial >> 5;
    const info = initial & 0x1f;
    const key = keys_at >= 0 && (items_left & 1) === 1; // a key of the innermost map (its items alternate)
    if (major === MAJOR_SIMPLE) {
      // false, true, null, and floats of 2, 4 or 8 bytes: nothing else is allowed, and none is a key
      if (key) return -1;
      if (info >= 20 && info <= 22) position += 1;
      else if (info >= 25 && info <= 27) position += 1 + (1 << (info - 24));
      else return -1;
      if (position > end) return -1;
      continue;
    }
    let argument: number;
    if (info < 24) {
      argument = info;
      position += 1;
    } else if (info === 24) {
      if (position + 2 > end) return -1;
      argument = bytes[position + 1]!;
      position += 2;
    } else if (info === 25) {
      if (position + 3 > end) return -1;
      argument = (bytes[position + 1]! << 8) | bytes[position + 2]!;
      position += 3;
    } else if (info === 26) {
      if (position + 5 > end) return -1;
      argument = bytes[position + 1]! * 0x1000000 + ((bytes[position + 2]! << 16) | (bytes[position + 3]! << 8) | bytes[position + 4]!);
      position += 5;
    } else if (info === 27) {
      if (position + 9 > end) return -1;
      const high = bytes[position + 1]! * 0x1000000 + ((bytes[position + 2]! << 16) | (bytes[position + 3]! << 8) | bytes[position + 4]!);
      // below 2^53 only (2^53 itself is the checked path's limit: passing it there costs nothing)
      if (high >= 0x200000) return -1;
      argument = high * 0x100000000 + bytes[position + 5]! * 0x1000000 + ((bytes[position + 6]! << 16) | (bytes[position + 7]! << 8) | bytes[position + 8]!);
      position += 9;
    } else return -1;
    if (key) {
      // a text whose bytes no earlier key of the map has
      if (major !== MAJOR_TEXT || argument > end - position) return -1;
      const key_end = position + argument;
      let hash = argument;
      let high_bits = 0;
      let index = position;
      for (; index + 4 <= key_end; index += 4) {
        const word = words.getInt32(index);
        high_bits |= word;
        hash = Math.imul(hash ^ word, 0x01000193);
      }
      for (; index < key_end; index++) {
        const byte = bytes[index]!;
        high_bits |= byte;
        hash = Math.imul(hash ^ byte, 0x01000193);
      }
      if ((high_bits & 0x80808080) !== 0) return -1;
      for (let key = keys_at; key < keys_end; key += 3) {
        if (plain_keys[key + 2] !== hash || plain_keys[key + 1] !== argument) continue;
        const other = plain_keys[key]!;
        let index = 0;
        while (index < argument && bytes[other + index] === bytes[position + index]) index++;
        if (index === argument) return -1;
      }
      plain_keys[keys_end] = position;
      plain_keys[keys_end + 1] = argument;
      plain_keys[keys_end + 2] = hash;
      keys_end += 3;
      position = key_end;
      continue;
    }
    switch (major) {
      case MAJOR_UINT:
      case MAJOR_NEGINT: // within ±2^53: the argument is below 2^53
        continue;
      case MAJOR_BYTES:
        if (argument > end - position) return -1;
        position += argument;
        continue;
      case MAJOR_TEXT: {
        if (argument > end - position) return -1;
        const text_end = position + argument;
        if (!isPlainUtf8(bytes, words, position, text_end)) return -1;
        position = text_end;
        continue;
      }
      case MAJOR_ARRAY:
      case MAJOR_MAP: {
        const map = major === MAJOR_MAP;
        // more items than bytes left: it cannot end well, and counts stay within the Int32 stack
        if ((map ? argument * 2 : argument) > end - position) return -1;
        if (argument === 0) continue;
        if (level === deepest || (map && argument > MAP_KEYS_PAIRWISE_MAX)) return -1;
        plain_items_left[level] = items_left;
        plain_keys_at[level] = keys_at;
        level++;
        items_left = map ? argument * 2 : argument;
        keys_at = map ? keys_end : -1;
        continue;
      }
      default:
        return -1; // a tag
    }
  }
}

/** Whether `bytes[start, end)` (`words` views the same bytes) is UTF-8: ASCII is checked here, 8 bytes a step,
 *  anything else by the native check. */
function isPlainUtf8(bytes: Uint8Array, words: DataView<ArrayBufferLike>, start: number, end: number): boolean {
  let high_bits = 0;
  let index = start;
  for (; index + 8 <= end; index += 8) high_bits |= words.getInt32(index) | words.getInt32(index + 4);
  for (; index < end; index++) high_bits |= bytes[index]!;
  return (high_bits & 0x80808080) === 0 || isUtf8(byteView(bytes, start, end));
}

/** Short ASCII texts (map keys, record types, enum values) recur in every record: the decoder hands out one
 *  string per distinct text instead of a new one each time, which saved a native call and an allocation per
 *  text (a tenth of the fold's time) and keeps one copy of each in what the fold holds. A direct-mapped table:
 *  a collision only replaces the entry, so its size bounds the memory. Each entry keeps its text's bytes as
 *  words, so that a text is hashed and matched 4 bytes a step (a character a step was most of reading a
 *  record's type). */
const TEXT_INTERNED_BYTES_MAX = 40;
const INTERNED_SLOTS = 4_096;
/** Words a text of up to TEXT_INTERNED_BYTES_MAX bytes has (`textWords`). */
const INTERNED_WORDS_MAX = TEXT_INTERNED_BYTES_MAX / 4;
const interned: (string | undefined)[] = new Array<string | undefined>(INTERNED_SLOTS).fill(undefined);
const interned_words = new Int32Array(INTERNED_SLOTS * INTERNED_WORDS_MAX);
/** The words of the text being looked up. */
const text_words = new Int32Array(INTERNED_WORDS_MAX);

/** The interned string of `bytes[start, end)` (`words` views the same bytes), or null unless it is ASCII. */
function internedAscii(bytes: Buffer, words: DataView<ArrayBufferLike>, start: number, end: number): string | null {
  const count = textWords(bytes, words, start, end);
  let high_bits = 0;
  let hash = end - start;
  for (let index = 0; index < count; index++) {
    const word = text_words[index]!;
    high_bits |= word;
    hash = Math.imul(hash ^ word, 0x01000193);
  }
  if ((high_bits & 0x80808080) !== 0) return null;
  const slot = (hash ^ (hash >>> 15)) & (INTERNED_SLOTS - 1);
  const base = slot * INTERNED_WORDS_MAX;
  const cached = interned[slot];
  // The same length and words: the same bytes (the words cover every byte).
  if (cached !== undefined && cached.length === end - start) {
    let index = 0;
    while (index < count && interned_words[base + index] === text_words[index]) index++;
    if (index === count) return cached;
  }
  const text = bytes.toString('latin1', start, end);
  interned[slot] = text;
  interned_words.set(text_words.subarray(0, count), base);
  return text;
}

/** Puts the words of `bytes[start, end)` in `text_words` and returns how many: from 4 bytes on, a word every 4
 *  bytes and one ending at `end` (it may overlap the one before); under 4, the bytes in one word. */
function textWords(bytes: Uint8Array, words: DataView<ArrayBufferLike>, start: number, end: number): number {
  if (end - start < 4) {
    let word = 0;
    for (let index = start; index < end; index++) word = (word << 8) | bytes[index]!;
    text_words[0] = word;
    return 1;
  }
  let count = 0;
  for (let index = start; index + 4 < end; index += 4) text_words[count++] = words.getInt32(index);
  text_words[count++] = words.getInt32(end - 4);
  return count;
}

/** The keys of a map read so far: a scan of a few, a Set past that (a hostile map of a million keys stays linear). */
export class KeysSeen {
  private readonly keys: string[] | Set<string>;

  constructor(count: number) {
    this.keys = count <= MAP_KEYS_PAIRWISE_MAX ? [] : new Set();
  }

  /** Adds `key`; false when it was there already. */
  add(key: string): boolean {
    if (Array.isArray(this.keys)) {
      if (this.keys.includes(key)) return false;
      this.keys.push(key);
      return true;
    }
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    return true;
  }
}

/** Sets an own, enumerable property. Plain assignment except for "__proto__", which would swap the prototype
 *  (defineProperty keeps it an ordinary property); defineProperty for every key put objects in V8's slow mode
 *  and was a quarter of the fold's time. */
export function setOwn(target: { [key: string]: unknown }, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** `bytes[start, end)` as a plain Uint8Array view, for the native calls of the per-frame path (the UTF-8 check,
 *  the digest): `Buffer.subarray` makes a Buffer through its JS constructor, three times the cost, and the
 *  million-record verify made three of them a frame. The memory and offset of the last `bytes` are kept: the
 *  per-frame calls view the reader's one window, and reading a Buffer's `buffer` and `byteOffset` each time cost
 *  as much as the view (~0.1 µs a frame). This keeps that one window reachable until another is viewed. */
export function byteView(bytes: Uint8Array, start: number, end: number): Uint8Array {
  if (bytes !== viewed) {
    viewed_memory = bytes.buffer;
    viewed_offset = bytes.byteOffset;
    viewed = bytes;
  }
  return new Uint8Array(viewed_memory, viewed_offset + start, end - start);
}

let viewed: Uint8Array | null = null;
let viewed_memory: ArrayBufferLike = new ArrayBuffer(0);
let viewed_offset = 0;

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
