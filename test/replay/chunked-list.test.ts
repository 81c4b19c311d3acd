// The chunked lists a live episode's snapshots hold (src-shared/parts.ts): every read answers as the array of the
// same items does, and a list made from another shares its chunks up to the first change.
import { describe, expect, it } from 'vitest';
import { ChunkedList, type Parts } from '../../src-shared/parts.js';

const CHUNK = 512;
const LENGTHS = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 7, 5 * CHUNK];

const items = (count: number, name = 'i') => Array.from({ length: count }, (_, at) => ({ name: `${name}${at}`, at }));

/** The chunks a list holds, looked at from outside: what two lists share is the same chunk objects. */
function chunksOf(list: ChunkedList<unknown>): readonly (readonly unknown[])[] {
  return (list as unknown as { chunks: readonly (readonly unknown[])[] }).chunks;
}

/** Every read of `list` against the same reads of `array`. */
function expectReadsOf<T extends { at: number }>(list: Parts<T>, array: readonly T[]): void {
  expect(list.length).toBe(array.length);
  expect([...list]).toEqual(array);
  for (const place of [0, 1, CHUNK - 1, CHUNK, array.length - 1, array.length, -1, -array.length, -array.length - 1]) expect(list.at(place)).toBe(array.at(place));
  const odd = (item: T) => item.at % 3 === 1;
  expect(list.map((item, index) => `${item.at}:${index}`)).toEqual(array.map((item, index) => `${item.at}:${index}`));
  expect(list.filter(odd)).toEqual(array.filter(odd));
  expect(list.find(odd)).toBe(array.find(odd));
  expect(list.findLast(odd)).toBe(array.findLast(odd));
  expect(list.findIndex((item) => item.at === CHUNK + 1)).toBe(array.findIndex((item) => item.at === CHUNK + 1));
  expect(list.flatMap((item) => (odd(item) ? [item, item] : item))).toEqual(array.flatMap((item) => (odd(item) ? [item, item] : item)));
  expect(list.some((item) => item.at === array.length - 1)).toBe(array.some((item) => item.at === array.length - 1));
  expect(list.every((item) => item.at >= 0)).toBe(array.every((item) => item.at >= 0));
  expect(list.every(odd)).toBe(array.every(odd));
  expect(list.reduce((sum, item, index) => sum + item.at * index, 0)).toBe(array.reduce((sum, item, index) => sum + item.at * index, 0));
  for (const [start, end] of [[undefined, undefined], [3, undefined], [CHUNK - 2, CHUNK + 2], [-5, -1], [10, 2], [-CHUNK * 10, CHUNK * 10]] as const) expect(list.slice(start, end)).toEqual(array.slice(start, end));
  const last = array.at(-1);
  if (last !== undefined) {
    expect(list.lastIndexOf(last)).toBe(array.lastIndexOf(last));
    for (const from of [array.length - 2, -2, 0]) expect(list.lastIndexOf(last, from)).toBe(array.lastIndexOf(last, from));
  }
  expect(JSON.stringify(list)).toBe(JSON.stringify(array));
}

describe('ChunkedList', () => {
  it('reads as the array of its items at every length around a chunk', () => {
    for (const length of LENGTHS) {
      const array = items(length);
      expectReadsOf(ChunkedList.of(array), array);
    }
  });

  it('made from another list, reads as that list changed', () => {
    const base = items(3 * CHUNK + 5);
    const list = ChunkedList.of(base);
    for (const from of [0, 1, CHUNK, CHUNK + 3, base.length]) {
      const tail = items(CHUNK + 2, 't');
      expectReadsOf(list.withTail(from, tail), [...base.slice(0, from), ...tail]);
    }
    const changes = new Map([[2, { name: 'c2', at: 2 }], [2 * CHUNK, { name: 'c', at: 2 * CHUNK }]]);
    const added = items(3, 'a');
    expectReadsOf(list.withChanges(changes, added), [...base.map((item, at) => changes.get(at) ?? item), ...added]);
    // The list it was made from is unchanged.
    expectReadsOf(list, base);
  });

  it('shares every chunk before the first change with the list it was made from', () => {
    const list = ChunkedList.of(items(200 * CHUNK + 17));
    const changed = list.withChanges(new Map([[list.length - 3, { name: 'x', at: -1 }]]), items(CHUNK, 'n'));
    const [before, after] = [chunksOf(list), chunksOf(changed)];
    expect(after.length).toBe(202);
    expect(after.slice(0, 200).every((chunk, at) => chunk === before[at])).toBe(true);
    expect(after[200]).not.toBe(before[200]);
    expect(ChunkedList.sharedPrefix(list, changed)).toBe(list.length - 3);
    expect(ChunkedList.sharedPrefix(changed, list)).toBe(list.length - 3);
    // Nothing changed: the same chunks, all shared.
    expect(ChunkedList.sharedPrefix(list, list.withChanges(new Map()))).toBe(list.length);
    expect(ChunkedList.sharedPrefix(list, ChunkedList.of([...list]))).toBe(list.length);
  });

  it('refuses a place outside the list', () => {
    const list = ChunkedList.of(items(10));
    expect(() => list.withTail(11, [])).toThrow(RangeError);
    expect(() => list.withTail(-1, [])).toThrow(RangeError);
    expect(() => list.withChanges(new Map([[10, { name: 'x', at: 10 }]]))).toThrow(RangeError);
    expect(list.length).toBe(10);
  });
});
