// Validation without building (`skipItem`, what `verify` runs) and building in part (`readProjected`, what the
// fold runs) must accept and refuse exactly what building (`readItem`) does, with the same message: the fast
// paths of the codec are the same security boundary.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CborValue } from '../../src-shared/wal.js';
import { CborDecoder, encodeCbor, MAJOR_ARRAY, MAJOR_MAP, MAJOR_TEXT, SCALAR, ShortText, skipPlain, WHOLE, type CborProjection } from '../../src-main/engine/cbor.js';
import { CBOR_DEPTH_MAX } from '../../src-main/engine/limits.js';

type Verdict = { ok: true; end: number } | { ok: false; message: string };

/** A projection that walks into maps and arrays at every depth the fuzzed values reach. */
const DEEP: CborProjection = { a: SCALAR, b: [{ a: WHOLE, c: SCALAR }], c: { b: SCALAR, k0: [SCALAR] }, k0: SCALAR, k1: { k0: SCALAR }, '': [[SCALAR]], k2: new ShortText(3), b2: [new ShortText(2)] };

function verdict(bytes: Buffer, build: boolean | CborProjection): Verdict {
  const decoder = new CborDecoder(bytes);
  try {
    if (build === true) decoder.readItem();
    else if (build === false) decoder.skipItem();
    else decoder.readProjected(build);
    return { ok: true, end: decoder.position };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

/** What `readProjected` should build of a value `readItem` built whole. */
function projected(value: CborValue, projection: CborProjection): CborValue {
  if (projection === WHOLE) return value;
  if (projection instanceof ShortText) return isShortText(value, projection) ? value : null;
  const container = typeof value === 'object' && value !== null && !(value instanceof Uint8Array);
  if (projection === SCALAR) return container ? null : value;
  if (Array.isArray(projection)) return Array.isArray(value) ? value.map((item) => projected(item, projection[0] as CborProjection)) : null;
  if (!container || Array.isArray(value)) return null;
  const members = projection as Record<string, CborProjection>;
  // A ShortText member that is not one is left out of its map.
  const kept = (key: string, item: CborValue) => Object.hasOwn(members, key) && (!(members[key] instanceof ShortText) || isShortText(item, members[key]));
  return Object.fromEntries(Object.entries(value).filter(([key, item]) => kept(key, item)).map(([key, item]) => [key, projected(item, members[key]!)]));
}

function isShortText(value: CborValue, projection: ShortText): boolean {
  return typeof value === 'string' && Buffer.byteLength(value, 'utf8') <= projection.bytes_max;
}

const hex = (text: string) => Buffer.from(text, 'hex');
const textKey = (key: string) => encodeCbor(key);
/** A map of `count` entries whose keys are given (duplicates allowed: the encoder cannot write those). */
function mapOf(keys: string[]): Buffer {
  const head = encodeCbor(Object.fromEntries(keys.map((_, index) => [`k${index}`, 0]))).subarray(0, keys.length < 24 ? 1 : 2);
  return Buffer.concat([head, ...keys.flatMap((key) => [textKey(key), hex('00')])]);
}

describe('validating without building agrees with building', () => {
  it.each([
    ['a duplicate key in a small map', mapOf(['a', 'b', 'a'])],
    ['a duplicate key in a map of 16', mapOf([...Array.from({ length: 15 }, (_, index) => `key-${index}`), 'key-3'])],
    ['a duplicate key in a map of 40 (the large-map path)', mapOf([...Array.from({ length: 39 }, (_, index) => `key-${index}`), 'key-38'])],
    ['a duplicate multi-byte key', mapOf(['→', 'é', '→'])],
    ['keys that differ only in length', mapOf(['ab', 'abc', 'a'])],
    ['a duplicate key after a nested map', Buffer.concat([hex('a3'), textKey('x'), mapOf(['x', 'y']), textKey('y'), hex('00'), textKey('x'), hex('00')])],
    ['a duplicate key inside a nested map', Buffer.concat([hex('a2'), textKey('x'), mapOf(['p', 'p']), textKey('y'), hex('00')])],
    ['invalid UTF-8 in a short text', hex('62c328')],
    ['invalid UTF-8 in a long text', Buffer.concat([hex('7850'), Buffer.alloc(79, 0x61), hex('ff')])],
    ['an overlong encoding', hex('62c0af')],
    ['a surrogate', hex('63eda080')],
    ['invalid UTF-8 in a key', hex('a162c32800')],
    ['a non-text key', hex('a10101')],
    ['null as a key', hex('a1f600')],
    ['a float as a key, after a text key', hex('a2616100f93c0000')],
    ['true as a key inside an array', hex('8201a1f500')],
    ['a negative integer past -2^53', hex('3b0020000000000000')],
    ['a negative integer of -2^53', hex('3b001fffffffffffff')],
    ['a float cut short', hex('a16161fb3ff0')],
    ['a text longer than the body', hex('7a0000ffff61')],
    ['a map count beyond the body', hex('bb0000000100000000')],
  ])('on %s', (_name, bytes) => {
    expect(verdict(bytes, false)).toEqual(verdict(bytes, true));
    expect(verdict(bytes, DEEP)).toEqual(verdict(bytes, true));
    expect(verdict(bytes, { x: { p: SCALAR } })).toEqual(verdict(bytes, true));
  });

  it('on arbitrary bytes and on encoded values cut or flipped anywhere', () => {
    const value = fc.letrec((tie) => ({
      item: fc.oneof(
        { depthSize: 'small' },
        fc.integer(),
        fc.string({ unit: 'binary', maxLength: 80 }),
        fc.uint8Array({ maxLength: 8 }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('item'), { maxLength: 5 }),
        fc.dictionary(fc.string({ maxLength: 4 }), tie('item'), { maxKeys: 20 }),
      ),
    })).item;
    fc.assert(
      fc.property(value, fc.nat(), fc.nat(255), (item, at, flip) => {
        const bytes = Buffer.from(encodeCbor(item));
        expect(verdict(bytes, false)).toEqual(verdict(bytes, true));
        expect(verdict(bytes, DEEP)).toEqual(verdict(bytes, true));
        const flipped = Buffer.from(bytes);
        flipped[at % flipped.length]! ^= flip;
        expect(verdict(flipped, false)).toEqual(verdict(flipped, true));
        expect(verdict(flipped, DEEP)).toEqual(verdict(flipped, true));
        const cut = bytes.subarray(0, at % bytes.length);
        expect(verdict(cut, false)).toEqual(verdict(cut, true));
        expect(verdict(cut, DEEP)).toEqual(verdict(cut, true));
      }),
      { numRuns: 3_000 },
    );
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), (raw) => {
      const bytes = Buffer.from(raw);
      expect(verdict(bytes, false)).toEqual(verdict(bytes, true));
      expect(verdict(bytes, DEEP)).toEqual(verdict(bytes, true));
    }), { numRuns: 3_000 });
  });
});

describe('building in part builds exactly the part projected', () => {
  it('on values whose keys the projections name', () => {
    const key = fc.constantFrom('a', 'b', 'c', '');
    const value = fc.letrec((tie) => ({
      item: fc.oneof(
        { depthSize: 'small' },
        fc.integer(),
        fc.string({ maxLength: 8 }),
        fc.uint8Array({ maxLength: 4 }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('item'), { maxLength: 4 }),
        fc.dictionary(key, tie('item'), { maxKeys: 4 }),
      ),
    })).item;
    const projection = fc.letrec<{ p: CborProjection }>((tie) => ({
      p: fc.oneof(
        { depthSize: 'small' },
        fc.constant<CborProjection>(SCALAR),
        fc.constant<CborProjection>(WHOLE),
        fc.integer({ min: 0, max: 6 }).map((bytes_max): CborProjection => new ShortText(bytes_max)),
        tie('p').map((inner): CborProjection => [inner]),
        fc.dictionary(key, tie('p'), { maxKeys: 3 }),
      ),
    })).p;
    fc.assert(
      fc.property(value, projection, (item, shape) => {
        const bytes = Buffer.from(encodeCbor(item));
        const built = new CborDecoder(bytes).readItem();
        // Validated bytes read as the reader's callers read them (`utf8_checked`: the texts passed over are not
        // checked again) build the same part and end at the same byte.
        for (const utf8_checked of [false, true]) {
          const decoder = new CborDecoder(bytes);
          decoder.utf8_checked = utf8_checked;
          expect(decoder.readProjected(shape)).toEqual(projected(built, shape));
          expect(decoder.position).toBe(bytes.length);
        }
      }),
      { numRuns: 3_000 },
    );
  });
});

describe('the keys of a map read as the layout of the maps before it', () => {
  /** A map of the given entries, duplicates allowed; a key's head in its long form when `long` says so (the
   *  same text in other bytes: the layout matches encodings, the duplicate check texts). */
  function entries(items: [string, CborValue, boolean][]): Buffer {
    const key = (text: string, long: boolean) => {
      const bytes = Buffer.from(text, 'utf8');
      return long ? Buffer.concat([Buffer.from([0x78, bytes.length]), bytes]) : encodeCbor(text);
    };
    return Buffer.concat([encodeCbor(new Array(items.length).fill(0)).subarray(0, 1).map((head) => head + 0x20), ...items.flatMap(([text, value, long]) => [key(text, long), encodeCbor(value)])]);
  }
  const LAYOUT: CborProjection = { a: SCALAR, bb: SCALAR, c: [{ x: SCALAR }], s: new ShortText(4) };
  const NESTED: CborProjection = { m: LAYOUT, a: SCALAR };

  it('refuses a duplicate the layout would hide once the places after a changed key are dropped', () => {
    const first = entries([['a', 1, false], ['bb', 2, false], ['c', [], false]]);
    const second = entries([['a', 1, false], ['c', [], false]]);
    const third = entries([['a', 1, false], ['c', [], false], ['c', [], false]]);
    for (const bytes of [first, second, third]) expect(verdict(bytes, LAYOUT)).toEqual(verdict(bytes, true));
    expect(verdict(third, LAYOUT)).toEqual({ ok: false, message: 'duplicate map key "c" at body byte 9' });
  });

  it('keeps the layout of a map whose table a map inside it reads too (a projection that contains itself)', () => {
    const self: { [key: string]: CborProjection } = { a: SCALAR, bb: SCALAR };
    self['n'] = self;
    const outer = Buffer.concat([Buffer.from([0xa3]), encodeCbor('a'), encodeCbor(1), encodeCbor('n'), encodeCbor({ bb: 1, a: 1 }), encodeCbor('bb'), encodeCbor(1)]);
    const twice = entries([['bb', 1, false], ['a', 1, false], ['bb', 1, false]]);
    for (const bytes of [outer, twice]) expect(verdict(bytes, self)).toEqual(verdict(bytes, true));
    expect(verdict(twice, self)).toMatchObject({ ok: false });
  });

  it('accepts, refuses and builds what readItem does, map after map of the same table, cut or flipped', () => {
    const key = fc.constantFrom('a', 'bb', 'c', 's', 'zz', 'é');
    const value = fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.constant(null), fc.array(fc.record({ x: fc.integer() }), { maxLength: 2 }));
    const map = fc.array(fc.tuple(key, value, fc.boolean()), { maxLength: 6 });
    fc.assert(
      fc.property(fc.array(fc.tuple(map, fc.nat(), fc.nat(255), fc.constantFrom('whole', 'cut', 'flipped', 'nested')), { minLength: 1, maxLength: 8 }), (maps) => {
        for (const [items, at, flip, how] of maps) {
          let bytes = entries(items);
          let projection = LAYOUT;
          if (how === 'cut') bytes = bytes.subarray(0, at % bytes.length);
          if (how === 'flipped') bytes[at % bytes.length]! ^= flip;
          if (how === 'nested') {
            bytes = Buffer.concat([Buffer.from([0xa2]), encodeCbor('m'), bytes, encodeCbor('a'), encodeCbor(0)]);
            projection = NESTED;
          }
          const whole = verdict(bytes, true);
          expect(verdict(bytes, projection)).toEqual(whole);
          if (whole.ok) expect(new CborDecoder(bytes).readProjected(projection)).toEqual(projected(new CborDecoder(bytes).readItem(), projection));
        }
      }),
      { numRuns: 3_000 },
    );
  });
});

describe('the plain skip (skipPlain) accepts only what building accepts', () => {
  function verdictAt(bytes: Buffer, depth: number, build: boolean): Verdict {
    const decoder = new CborDecoder(bytes);
    try {
      if (build) decoder.readItem(depth);
      else decoder.skipItem(depth);
      return { ok: true, end: decoder.position };
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  }
  const plainEnd = (bytes: Buffer, depth: number) => skipPlain(bytes, new DataView(bytes.buffer, bytes.byteOffset, bytes.length), 0, bytes.length, CBOR_DEPTH_MAX - depth);
  /** Where the plain skip ends, held to building: accepted means built whole, ending there; and skipItem (which
   *  tries it first) gives building's verdict, message included. */
  function agrees(bytes: Buffer, depth: number): number {
    const end = plainEnd(bytes, depth);
    const built = verdictAt(bytes, depth, true);
    if (end >= 0) expect(built).toEqual({ ok: true, end });
    expect(verdictAt(bytes, depth, false)).toEqual(built);
    return end;
  }

  const head = (major: number, argument: number) => {
    if (argument < 24) return Buffer.from([(major << 5) | argument]);
    if (argument < 0x100) return Buffer.from([(major << 5) | 24, argument]);
    const bytes = Buffer.alloc(3);
    bytes[0] = (major << 5) | 25;
    bytes.writeUInt16BE(argument, 1);
    return bytes;
  };
  /** Raw CBOR the encoder cannot write: keys repeated or not text, any bytes as a text, counts of 0 to 18 (the
   *  plain skip gives up past 16 keys), nesting near its bound, integers and floats at their edges. */
  const raw = fc.letrec((tie) => {
    const item = () => tie('item') as fc.Arbitrary<Buffer>;
    return {
      item: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(2 ** 53, 2 ** 53 - 1, -(2 ** 53), 1 - 2 ** 53, 2 ** 32, 2 ** 32 - 1, 0.5, 23, 24, 255, 256, 65_536).map((value) => Buffer.from(encodeCbor(value))),
        fc.constantFrom('1bffffffffffffffff', '3b001fffffffffffff', '1b0020000000000001', 'f7', 'f8ff', 'f93c00', 'fa3f800000', 'c100', '5f', 'fc', 'ff', '1c').map(hex),
        fc.uint8Array({ maxLength: 20 }).map((bytes) => Buffer.concat([head(MAJOR_TEXT, bytes.length), bytes])),
        fc.string({ unit: 'binary', maxLength: 24 }).map((text) => Buffer.from(encodeCbor(text))),
        fc.array(item(), { maxLength: 18 }).map((items) => Buffer.concat([head(MAJOR_ARRAY, items.length), ...items])),
        fc
          .array(fc.tuple(fc.oneof(fc.constantFrom('a', 'b', 'key', 'abcd', 'abcde', '→', '').map(textKey), item()), item()), { maxLength: 18 })
          .map((entries) => Buffer.concat([head(MAJOR_MAP, entries.length), ...entries.flat()])),
        fc.tuple(fc.integer({ min: 12, max: 20 }), item()).map(([levels, inner]) => Buffer.concat([Buffer.alloc(levels, 0x81), inner])),
      ),
    };
  }).item as fc.Arbitrary<Buffer>;

  it('on raw items, cut and flipped, at every depth near the bound', () => {
    fc.assert(
      fc.property(raw, fc.nat(), fc.nat(255), fc.constantFrom(0, 1, 40, 50, 60, 63, 64, 65), (bytes, at, flip, depth) => {
        agrees(bytes, depth);
        const flipped = Buffer.from(bytes);
        flipped[at % flipped.length]! ^= flip;
        agrees(flipped, depth);
        agrees(bytes.subarray(0, at % bytes.length), depth);
      }),
      { numRuns: 5_000 },
    );
  });

  it('on nesting at and past the bound, from every depth near it', () => {
    for (let depth = 0; depth <= 65; depth++) {
      for (const levels of [0, 1, 2, 15, 16, 17]) {
        agrees(Buffer.concat([Buffer.alloc(levels, 0x81), hex('00')]), depth);
        agrees(Buffer.concat([Buffer.alloc(levels, 0x81), hex('a0')]), depth);
        agrees(Buffer.concat([Buffer.alloc(levels, 0x81), hex('a1616100')]), depth);
      }
    }
  });

  it('on a non-ASCII byte at every place of texts and keys up to 20 bytes', () => {
    for (let length = 1; length <= 20; length++) {
      for (let at = 0; at < length; at++) {
        for (const byte of [0x80, 0xc3, 0xe2, 0xff]) {
          const text = Buffer.alloc(length, 0x61);
          text[at] = byte;
          const item = Buffer.concat([head(MAJOR_TEXT, length), text]);
          expect(agrees(item, 0)).toBe(-1);
          expect(agrees(Buffer.concat([hex('a1'), item, hex('00')]), 0)).toBe(-1);
        }
      }
    }
  });

  it('passes plain values in one go (so the tests above hold the path verify takes)', () => {
    const plain = fc.letrec((tie) => ({
      item: fc.oneof(
        { depthSize: 'small' },
        fc.integer(),
        fc.double().filter((value) => !Number.isInteger(value) || Math.abs(value) < 2 ** 53 - 1), // past it: the checked path's
        fc.string({ unit: 'grapheme', maxLength: 80 }),
        fc.uint8Array({ maxLength: 8 }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('item'), { maxLength: 5 }),
        fc.dictionary(fc.string({ maxLength: 6 }), tie('item'), { maxKeys: 16 }),
      ),
    })).item;
    fc.assert(
      fc.property(plain, (value) => {
        const bytes = Buffer.from(encodeCbor(value));
        expect(agrees(bytes, 0)).toBe(bytes.length);
      }),
      { numRuns: 3_000 },
    );
  });
});
