// Validation without building (`skipItem`, what `verify` runs) must accept and refuse exactly what building
// (`readItem`) does, with the same message: the fast path of the codec is the same security boundary.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CborDecoder, encodeCbor } from '../../src-main/engine/cbor.js';

type Verdict = { ok: true; end: number } | { ok: false; message: string };

function verdict(bytes: Buffer, build: boolean): Verdict {
  const decoder = new CborDecoder(bytes);
  try {
    if (build) decoder.readItem();
    else decoder.skipItem();
    return { ok: true, end: decoder.position };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
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
        const flipped = Buffer.from(bytes);
        flipped[at % flipped.length]! ^= flip;
        expect(verdict(flipped, false)).toEqual(verdict(flipped, true));
        const cut = bytes.subarray(0, at % bytes.length);
        expect(verdict(cut, false)).toEqual(verdict(cut, true));
      }),
      { numRuns: 3_000 },
    );
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), (raw) => {
      const bytes = Buffer.from(raw);
      expect(verdict(bytes, false)).toEqual(verdict(bytes, true));
    }), { numRuns: 3_000 });
  });
});
