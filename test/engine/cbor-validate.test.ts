// Validation without building (`skipItem`, what `verify` runs) and building in part (`readProjected`, what the
// fold runs) must accept and refuse exactly what building (`readItem`) does, with the same message: the fast
// paths of the codec are the same security boundary.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CborValue } from '../../src-shared/wal.js';
import { CborDecoder, encodeCbor, SCALAR, ShortText, WHOLE, type CborProjection } from '../../src-main/engine/cbor.js';

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
