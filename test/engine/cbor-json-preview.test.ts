// A JSON preview read from CBOR bytes must be JSON.stringify's text of the value building gives, character for
// character (head and length), and must accept and refuse exactly what building does: it is how a row shows a
// 16 MiB output, and what a search matches.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toJsonValue } from '../../src-shared/json.js';
import type { CborValue } from '../../src-shared/wal.js';
import { jsonCut, jsonShapeCut, JsonTextCut, jsonTextCut, jsonValueCut, SHAPE_ITEMS_MAX } from '../../src-main/engine/cbor-json-preview.js';
import { CborDecoder, encodeCbor } from '../../src-main/engine/cbor.js';

function jsonText(bytes: Buffer): string {
  return JSON.stringify(toJsonValue(new CborDecoder(bytes).readItem()));
}

function expectCutOf(bytes: Buffer, chars_max: number): void {
  const text = jsonText(bytes);
  expect(jsonTextCut(bytes, 0, chars_max)).toEqual(new JsonTextCut(text.slice(0, chars_max), text.length));
}

/** Texts that stress the JSON escapes and UTF-16 lengths: controls, quotes, backslashes, 2-, 3- and 4-byte
 *  characters, U+2028. */
const hostileText = fc.array(fc.constantFrom('a', '"', '\\', '\n', '\u0001', '\u001f', '\u007f', 'é', '→', '\u2028', '😀', '𝄞', ' '), { maxLength: 40 }).map((parts) => parts.join(''));
/** Keys a JS object orders first (array indices) and keys that only look like them. */
const key = fc.oneof(fc.constantFrom('0', '1', '10', '2', '01', '-1', '1.5', '4294967294', '4294967295', '99999999999', '__proto__', 'a', '', 'b'), hostileText);

/** A map as its entries in CBOR order: a JS object would list its array-index keys first already. */
class Entries {
  constructor(readonly entries: [string, Item][]) {}
}
type Item = CborValue | Entries | Item[];

const item: fc.Arbitrary<Item> = fc.letrec<{ item: Item }>((tie) => ({
  item: fc.oneof(
    { depthSize: 'small' },
    fc.integer(),
    fc.double().filter((number) => !Number.isInteger(number) || Number.isSafeInteger(number)),
    fc.constantFrom(-0, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53 - 1, 0.1, 1.5e-300, 5e-324),
    hostileText,
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.uint8Array({ maxLength: 12 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('item'), { maxLength: 5 }),
    fc.uniqueArray(fc.tuple(key, tie('item')), { maxLength: 8, selector: ([name]) => name }).map((entries) => new Entries(entries)),
  ),
})).item;

function encodeItem(value: Item): Buffer {
  if (value instanceof Entries) {
    const parts = value.entries.flatMap(([name, entry]) => [Buffer.from(encodeCbor(name)), encodeItem(entry)]);
    return Buffer.concat([Buffer.from([0xa0 | value.entries.length]), ...parts]);
  }
  if (Array.isArray(value)) return Buffer.concat([Buffer.from([0x80 | value.length]), ...value.map(encodeItem)]);
  return Buffer.from(encodeCbor(value));
}

describe('the JSON text read from CBOR bytes', () => {
  it('is JSON.stringify of the built value, cut anywhere', () => {
    fc.assert(
      fc.property(item, fc.nat(400), (value, chars_max) => expectCutOf(encodeItem(value), chars_max)),
      { numRuns: 4_000 },
    );
  });

  it('writes a float64 past 2^53 as JSON.stringify does (the encoder writes none, another writer may)', () => {
    const float = Buffer.alloc(9);
    float[0] = 0xfb;
    float.writeDoubleBE(1e21, 1);
    expectCutOf(Buffer.concat([Buffer.from([0x81]), float]), 10);
  });

  it('counts long texts from their bytes and cuts them between characters', () => {
    // Past 1 KiB a text is counted, not decoded: every character kind, at every cut around a 4-byte character.
    const unit = 'ab"\\\n\b\t\f\r\u0002é→😀\u2028𝄞';
    const long = unit.repeat(400);
    for (const item of [long, { out: long, '7': [long, long] }, [Buffer.from(long)], '😀'.repeat(1_000)]) {
      const bytes = Buffer.from(encodeCbor(item));
      for (let chars_max = 0; chars_max < 80; chars_max++) expectCutOf(bytes, chars_max);
      for (const chars_max of [1_000, 4_093, 4_094, 4_095, 4_096, 8_000, 50_000]) expectCutOf(bytes, chars_max);
    }
  });

  it('decodes of a 16 MiB text only what the cut shows', () => {
    const long = Buffer.from(encodeCbor({ output: 'x'.repeat(16 * 1_048_576) }));
    const cut = jsonTextCut(long, 0, 8_000);
    expect(cut.head).toBe(`{"output":"${'x'.repeat(8_000 - 11)}`);
    expect(cut.chars).toBe(16 * 1_048_576 + 13);
  });
});

describe('a JSON cut projection', () => {
  const cut = jsonCut(40);

  it('builds a value whose text fits and cuts one that does not', () => {
    const small = { output: { a: [1, 'x'], b: new Uint8Array([1, 2]) } };
    expect(new CborDecoder(Buffer.from(encodeCbor(small))).readProjected({ output: cut })).toEqual(small);
    const large = Buffer.from(encodeCbor({ output: 'y'.repeat(5_000), other: 1 }));
    const decoder = new CborDecoder(large);
    expect(decoder.readProjected({ output: cut })).toEqual({ output: new JsonTextCut(`"${'y'.repeat(39)}`, 5_002) });
    expect(decoder.position).toBe(large.length);
  });

  it('is written inside a larger value as the text it cut', () => {
    fc.assert(
      fc.property(item, fc.nat(40), fc.nat(60), (value, chars_max, before) => {
        const bytes = encodeItem(value);
        const decoder = new CborDecoder(bytes);
        decoder.bytes_as_hex = true;
        const read = decoder.readProjected(jsonCut(chars_max));
        const around = (inner: unknown) => ['x'.repeat(before), { '1': null, output: inner }, 'end'];
        const text = JSON.stringify(around(toJsonValue(new CborDecoder(bytes).readItem())));
        expect(jsonValueCut(around(read), chars_max)).toEqual(new JsonTextCut(text.slice(0, chars_max), text.length));
      }),
      { numRuns: 3_000 },
    );
  });

  it('refuses exactly what building refuses, with its message', () => {
    const refusal = (bytes: Buffer, build: (decoder: CborDecoder) => unknown) => {
      try {
        build(new CborDecoder(bytes));
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    };
    const good = Buffer.from(encodeCbor({ output: ['z'.repeat(3_000), { k: 'v' }] }));
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const flipped = Buffer.from(good);
        flipped[at % flipped.length]! ^= flip;
        const cut_short = good.subarray(0, at % good.length);
        for (const bytes of [flipped, cut_short]) {
          expect(refusal(bytes, (decoder) => decoder.readProjected({ output: cut }))).toBe(refusal(bytes, (decoder) => decoder.readItem()));
        }
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('a JSON cut that keeps the shape', () => {
  it('keeps a long map a map and a long list a list, each long text cut alone, a media block\'s data up to its own limit', () => {
    const png = 'iVBORw0KGgo'.repeat(20);
    const output = { parts: [{ type: 'text', text: 't'.repeat(5_000) }, { type: 'media', media_type: 'image/png', data: png }, ...Array.from({ length: SHAPE_ITEMS_MAX + 3 }, () => 'z'.repeat(50))] };
    const bytes = Buffer.from(encodeCbor({ output, other: 1 }));
    const decoder = new CborDecoder(bytes);
    const read = decoder.readProjected({ output: jsonShapeCut(40, 1_000) }) as { output: { parts: unknown[] } };
    expect(decoder.position).toBe(bytes.length);
    expect(read.output.parts.slice(0, 3)).toEqual([
      { type: 'text', text: new JsonTextCut(`"${'t'.repeat(39)}`, 5_002) },
      { type: 'media', media_type: 'image/png', data: png },
      new JsonTextCut(`"${'z'.repeat(39)}`, 52),
    ]);
    expect(read.output.parts).toHaveLength(SHAPE_ITEMS_MAX + 1);
    expect(read.output.parts.at(-1)).toBe(`… (${output.parts.length - SHAPE_ITEMS_MAX} more items)`);
    // A value whose text fits is built as it is.
    expect(new CborDecoder(Buffer.from(encodeCbor({ output: { a: [1, 'x'] } }))).readProjected({ output: jsonShapeCut(40) })).toEqual({ output: { a: [1, 'x'] } });
  });

  it('refuses exactly what building refuses', () => {
    const good = Buffer.from(encodeCbor({ output: { parts: ['z'.repeat(3_000), { data: 'q'.repeat(500) }] } }));
    const refusal = (build: () => unknown) => {
      try {
        build();
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    };
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const flipped = Buffer.from(good);
        flipped[at % flipped.length]! ^= flip;
        expect(refusal(() => new CborDecoder(flipped).readProjected({ output: jsonShapeCut(40, 100) }))).toBe(refusal(() => new CborDecoder(flipped).readItem()));
      }),
      { numRuns: 1_000 },
    );
  });
});
