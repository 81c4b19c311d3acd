// A live episode's snapshot holds its steps and batches as chunked lists (src-shared/parts.ts), a fresh fold as
// arrays: the same items in the same order are the same list to every test that compares folds.
import { expect } from 'vitest';
import { ChunkedList } from '../../src-shared/parts.js';

/** A chunked list's items as an array; anything else as it is. */
function asItems(value: unknown): unknown {
  return value instanceof ChunkedList ? [...(value as ChunkedList<unknown>)] : value;
}

expect.addEqualityTesters([
  function chunkedListEquals(a, b, testers) {
    if (!(a instanceof ChunkedList) && !(b instanceof ChunkedList)) return undefined;
    return this.equals(asItems(a), asItems(b), testers);
  },
]);
