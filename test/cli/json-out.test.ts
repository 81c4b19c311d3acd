import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonSequence, jsonPieces } from '../../src-main/cli/json-out.js';

const written = (value: unknown): string => [...jsonPieces(value, 0)].join('');

describe('JSON written in pieces', () => {
  it('is byte for byte JSON.stringify(value, null, 2), at every depth', () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 2 }), tie('array'), tie('object')),
      array: fc.array(fc.oneof(tie('node'), fc.constant(undefined)), { maxLength: 4 }),
      object: fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(tie('node'), fc.constant(undefined)), { maxKeys: 4 }),
    })).node;
    fc.assert(fc.property(value, (item) => {
      expect(written(item)).toBe(JSON.stringify(item, null, 2));
    }), { numRuns: 2_000 });
  });

  it('makes a sequence\'s items as it writes them, as the mapped array would be written', () => {
    const source = [1, 2, 3];
    const made: number[] = [];
    const sequence = new JsonSequence(source, (item) => {
      made.push(item);
      return { item, nested: [{ deep: [item, [item]] }] };
    });
    const pieces = jsonPieces({ head: 'h', items: sequence, tail: [] }, 0);
    expect(pieces.next().value).toBe('{\n  "head": ');
    expect(made).toEqual([]);
    const text = `{\n  "head": ${[...pieces].join('')}`;
    expect(made).toEqual(source);
    expect(text).toBe(JSON.stringify({ head: 'h', items: source.map((item) => ({ item, nested: [{ deep: [item, [item]] }] })), tail: [] }, null, 2));
  });

  it('writes long arrays deep in the document in runs, byte for byte, none whole (issue 30: an episode of 150,000 batches)', () => {
    const batch = (index: number, calls: number) => ({ batch_id: `b${index}`, gone: undefined, calls: Array.from({ length: calls }, (_, call) => ({ id: `c${call}`, skip: () => 0 })) });
    // Long lists at depth 3 and below, one item among them long itself, runs of every length around the bound.
    const value = { episodes: [{ batches: Array.from({ length: 4_003 }, (_, index) => batch(index, index === 1_700 ? 1_200 : 1)), steps: Array.from({ length: 1_001 }, (_, index) => [index, undefined]), empty: [] }] };
    const pieces = [...jsonPieces(value, 0)];
    expect(pieces.join('')).toBe(JSON.stringify(value, null, 2));
    let chars_max = 0;
    for (const piece of pieces) chars_max = Math.max(chars_max, piece.length);
    // A run of 1,000 items at most: under half of the batches' whole text.
    expect(chars_max).toBeLessThan(JSON.stringify(value.episodes[0]!.batches, null, 2).length / 2);
  });
});
