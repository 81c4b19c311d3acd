// Measuring an encoding (`encodedSize`, what a request's size is counted with) walks the value as encoding it
// does but writes nothing: it must give the encoding's length exactly, and refuse what encoding refuses, with
// the same message.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeCbor, encodedSize } from '../../src-main/engine/cbor.js';
import { CBOR_DEPTH_MAX } from '../../src-main/engine/limits.js';

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
