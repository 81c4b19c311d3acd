// Measuring an encoding (`encodedSize`, what a request's size is counted with) walks the value as encoding it
// does but writes nothing: it must give the encoding's length exactly, and refuse what encoding refuses, with
// the same message. Measuring an item as it lies (`CborDecoder.measureItem`, a message left on disk) must give
// what building it and measuring that gives, whatever widths its heads were written at, and refuse what
// building it refuses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CborDecoder, encodeCbor, encodedSize } from '../../src-main/engine/cbor.js';
import { CBOR_DEPTH_MAX } from '../../src-main/engine/limits.js';
import { toJsonValue } from '../../src-shared/json.js';

type Outcome = { ok: true; length: number } | { ok: false; message: string };

function outcome(make: () => number): Outcome {
  try {
    return { ok: true, length: make() };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

/** Every head size (arguments at each boundary), texts of 1- to 4-byte characters, bytes, floats and integers. */
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.constantFrom(null, true, false, 0, 23, 24, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296, -1, -24, -25, -4_294_967_297, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER),
    fc.integer(),
    fc.double({ min: -1e15, max: 1e15 }),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 0.5),
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  ),
  node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 30 }), fc.dictionary(fc.string({ maxLength: 8 }), tie('node'), { maxKeys: 30 })),
})).node;

describe('encodedSize', () => {
  it('is the length of the encoding, or the same refusal, for every shape a payload takes', () => {
    let measured = 0;
    fc.assert(fc.property(value, (item) => {
      const encoding = outcome(() => encodeCbor(item).length);
      expect(outcome(() => encodedSize(item))).toEqual(encoding);
      if (encoding.ok) measured += 1;
    }), { numRuns: 2_000 });
    // Most values encode (a deep tree can pass the depth bound): the lengths were compared.
    expect(measured).toBeGreaterThan(1_500);
  });

  it('counts a 300-item map and a 70,000-byte text at their own head sizes', () => {
    const wide = Object.fromEntries(Array.from({ length: 300 }, (_, index) => [`k${index}`, index]));
    const long = 'é'.repeat(35_000);
    for (const item of [wide, long, [long, wide], { undefined_left_out: undefined, kept: 1 }]) expect(encodedSize(item)).toBe(encodeCbor(item).length);
  });

  it('refuses what encoding refuses, with the same message, and encodes correctly after a refusal', () => {
    let deep: unknown = 0;
    for (let depth = 0; depth <= CBOR_DEPTH_MAX + 1; depth++) deep = [deep];
    for (const refused of [deep, 2 ** 60, { f: () => 0 }, [Symbol('s')]]) {
      const encoding = outcome(() => encodeCbor(refused).length);
      expect(encoding.ok).toBe(false);
      expect(outcome(() => encodedSize(refused))).toEqual(encoding);
      // The shared encoder is left measuring nothing: the next encoding writes its bytes.
      expect(encodeCbor({ after: 'refusal' })).toEqual(Buffer.from('a1656166746572677265667573616c', 'hex'));
    }
  });
});

/** `value` as a writer other than ours might encode it: each head `widen` bytes wider than it needs (by turns
 *  from `widths`), every float as a double, and, with `duplicate`, a map's first key written twice. */
function encodeWide(value: unknown, widths: readonly number[], duplicate: boolean): Buffer {
  const chunks: Buffer[] = [];
  let turn = 0;
  const head = (major: number, argument: number) => {
    const needed = argument < 24 ? 0 : argument < 0x100 ? 1 : argument < 0x10000 ? 2 : argument < 0x100000000 ? 3 : 4;
    const width = Math.min(4, needed + widths[turn++ % widths.length]!);
    if (width === 0) return void chunks.push(Buffer.from([(major << 5) | argument]));
    const bytes = Buffer.alloc(1 + 2 ** (width - 1));
    bytes[0] = (major << 5) | (23 + width);
    if (width === 4) bytes.writeBigUInt64BE(BigInt(argument), 1);
    else bytes.writeUIntBE(argument, 1, 2 ** (width - 1));
    chunks.push(bytes);
  };
  const write = (item: unknown): void => {
    if (typeof item === 'number' && Number.isInteger(item) && Math.abs(item) <= Number.MAX_SAFE_INTEGER && !Object.is(item, -0)) return item >= 0 ? head(0, item) : head(1, -1 - item);
    if (typeof item === 'number') {
      const bytes = Buffer.alloc(9);
      bytes[0] = 0xfb;
      bytes.writeDoubleBE(item, 1);
      return void chunks.push(bytes);
    }
    if (item instanceof Uint8Array || typeof item === 'string') {
      const bytes = typeof item === 'string' ? Buffer.from(item, 'utf8') : Buffer.from(item);
      head(typeof item === 'string' ? 3 : 2, bytes.length);
      return void chunks.push(bytes);
    }
    if (Array.isArray(item)) {
      head(4, item.length);
      return item.forEach(write);
    }
    if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item);
      const twice = duplicate && entries.length > 0 ? [entries[0]!] : [];
      head(5, entries.length + twice.length);
      for (const [key, member] of [...entries, ...twice]) {
        write(key);
        write(member);
      }
      return;
    }
    chunks.push(encodeCbor(item));
  };
  write(value);
  return Buffer.concat(chunks);
}

function measuredAsItLies(bytes: Buffer): Outcome {
  return outcome(() => {
    const decoder = new CborDecoder(bytes);
    const size = decoder.measureItem();
    expect(decoder.position).toBe(bytes.length);
    return size;
  });
}

function measuredAsBuilt(bytes: Buffer): Outcome {
  return outcome(() => {
    const decoder = new CborDecoder(bytes);
    decoder.bytes_as_hex = true;
    return encodedSize(toJsonValue(decoder.readItem()));
  });
}

describe('CborDecoder.measureItem', () => {
  it('is what building the item and measuring it gives, or the same refusal, whatever its heads\' widths', () => {
    let measured = 0;
    const widths = fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 8 });
    fc.assert(fc.property(value, widths, fc.boolean(), (item, widen, duplicate) => {
      const bytes = encodeWide(item, widen, duplicate);
      const built = measuredAsBuilt(bytes);
      expect(measuredAsItLies(bytes)).toEqual(built);
      if (built.ok) measured += 1;
    }), { numRuns: 2_000 });
    expect(measured).toBeGreaterThan(500);
  });

  it('measures a map past the pairwise key check and finds its duplicate key', () => {
    const wide = Object.fromEntries(Array.from({ length: 300 }, (_, index) => [`k${index}`, 'é'.repeat(index)]));
    expect(measuredAsItLies(encodeWide(wide, [1, 0, 3], false))).toEqual({ ok: true, length: encodeCbor(wide).length });
    const twice = measuredAsItLies(encodeWide(wide, [0], true));
    expect(twice).toEqual(measuredAsBuilt(encodeWide(wide, [0], true)));
    expect(twice).toMatchObject({ ok: false, message: expect.stringContaining('duplicate map key "k0"') });
  });
});
