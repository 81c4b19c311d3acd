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
});
