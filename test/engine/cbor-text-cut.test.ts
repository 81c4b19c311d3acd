// A long text read only as far as a view shows it (`textCut`): a text of at most the cut's characters is built
// whole; a longer one is validated whole and read as a head of whole characters, at least the cut's, and its
// length in UTF-16 code units counted exactly from its bytes, whatever characters it holds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CborDecoder, encodeCbor } from '../../src-main/engine/cbor.js';
import { TextCut, textCut, utf16Length } from '../../src-main/engine/cbor-text-cut.js';

function readCut(value: unknown, chars_max: number): unknown {
  const bytes = encodeCbor({ output: value, after: 1 });
  const decoder = new CborDecoder(bytes);
  const read = decoder.readProjected({ output: textCut(chars_max), after: textCut(chars_max) }) as { output: unknown; after: unknown };
  expect(decoder.position).toBe(bytes.length);
  expect(read.after).toBe(1);
  return read.output;
}

/** Texts of 1- to 4-byte characters (astral ones a surrogate pair each), long enough to be cut. */
const text = fc.array(fc.constantFrom('a', 'é', '→', '😀', '\n', '"'), { minLength: 20, maxLength: 400 }).map((characters) => characters.join(''));

describe('textCut', () => {
  it('builds a short text whole and cuts a long one to a head of whole characters with its exact length', () => {
    let cut = 0;
    fc.assert(fc.property(text, fc.integer({ min: 1, max: 100 }), (value, chars_max) => {
      const read = readCut(value, chars_max);
      if (value.length <= chars_max) {
        expect(read).toBe(value);
        return;
      }
      cut += 1;
      expect(read).toBeInstanceOf(TextCut);
      const { head, chars } = read as TextCut;
      expect(chars).toBe(value.length);
      expect(head.length).toBeGreaterThanOrEqual(chars_max);
      expect(value.startsWith(head)).toBe(true);
      // Whole characters: the head never ends inside a surrogate pair.
      expect(head.at(-1)?.charCodeAt(0) ?? 0).not.toSatisfy((unit: number) => unit >= 0xd800 && unit <= 0xdbff);
    }), { numRuns: 2_000 });
    expect(cut).toBeGreaterThan(500);
  });

  it('reads a 4 MiB output as a head of the cut\'s length or so, and any other value whole', () => {
    const long = `${'é'.repeat(10)}${'x'.repeat(4 * 1024 * 1024)}`;
    const read = readCut(long, 8_000) as TextCut;
    expect(read).toMatchObject({ chars: long.length });
    expect(read.head.length).toBeLessThan(3 * 8_001);
    const parts = { parts: [{ type: 'text', text: long }] };
    expect(readCut(parts, 8_000)).toEqual(parts);
  });

  it('refuses a text that is not UTF-8 as reading it whole does', () => {
    const bytes = Buffer.from([0xa1, 0x66, ...Buffer.from('output'), 0x79, 0x27, 0x10, ...Array(10_000).fill(0x61)]);
    bytes[200] = 0xff;
    expect(() => new CborDecoder(bytes).readProjected({ output: textCut(100) })).toThrow(/not valid UTF-8/);
    expect(() => new CborDecoder(bytes).readItem()).toThrow(/not valid UTF-8/);
  });

  it('counts code units as a JS string does', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (value) => {
      const bytes = Buffer.from(value, 'utf8');
      expect(utf16Length(bytes, 0, bytes.length)).toBe(bytes.toString('utf8').length);
    }));
  });
});
