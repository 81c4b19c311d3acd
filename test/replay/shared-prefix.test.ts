// The leading items two snapshots' lists share (replay/resumable.ts): what a live episode's sums go on from.
import { describe, expect, it } from 'vitest';
import { noteListMadeFrom, sharedBy, sharedByIdentityOr, sharedObjects, unknown_lists_walked } from '../../src-main/replay/resumable.js';

const item = (message: string) => ({ message });

describe('sharedByIdentityOr', () => {
  it('counts the same objects without asking `same`, and asks it only where the objects differ', () => {
    const shared = Array.from({ length: 1_000 }, (_, at) => item(`m${at}`));
    const before = [item('input'), ...shared, item('last')];
    const now = [item('input'), ...shared, item('other')];
    const asked: string[] = [];
    const same = (was: { message: string }, is: { message: string }) => {
      asked.push(was.message);
      return was.message === is.message;
    };
    expect(sharedByIdentityOr(before, now, same)).toBe(1_001);
    // The input (equal, not the same object), then the last pair, which is not the same: nothing in between.
    expect(asked).toEqual(['input', 'last']);
  });

  it('gives what sharedBy gives with the same comparison, at every length', () => {
    const objects = Array.from({ length: 12 }, (_, at) => item(`m${at % 5}`));
    const lists = [objects.slice(0, 8), objects.slice(0, 12), objects.map((entry, at) => (at === 6 ? item(entry.message) : entry)), objects.map((entry, at) => (at === 3 ? item('changed') : entry)), []];
    const same = (was: { message: string }, is: { message: string }) => was.message === is.message;
    for (const before of lists) {
      for (const now of lists) expect(sharedByIdentityOr(before, now, same)).toBe(sharedBy(before, now, (was, is) => was === is || same(was, is)));
    }
  });
});

describe('sharedObjects', () => {
  const parts = (count: number) => Array.from({ length: count }, (_, at) => item(`p${at}`));

  it('knows, without a walk, what a list made from another shares with it, through the lists it was made from', () => {
    const first = parts(100);
    const second = first.slice();
    second[70] = item('changed');
    second.push(item('new'));
    noteListMadeFrom(second, first, 70);
    const third = second.slice();
    third[90] = item('changed too');
    noteListMadeFrom(third, second, 90);
    const walked = unknown_lists_walked.items;
    expect(sharedObjects(second, third)).toBe(90);
    expect(sharedObjects(first, third)).toBe(70);
    expect(sharedObjects(first, second)).toBe(70);
    expect(unknown_lists_walked.items).toBe(walked);
    // Each equals the walk's count.
    expect([sharedBy(second, third), sharedBy(first, third), sharedBy(first, second)]).toEqual([90, 70, 70]);
  });

  it('walks lists it does not know were made from each other, and never says more than the lists hold', () => {
    const first = parts(50);
    const other = [...first.slice(0, 20), item('x')];
    const walked = unknown_lists_walked.items;
    expect(sharedObjects(first, other)).toBe(20);
    expect(unknown_lists_walked.items).toBe(walked + 20);
    const shorter = first.slice(0, 10);
    noteListMadeFrom(shorter, first, 40);
    expect(sharedObjects(first, shorter)).toBe(10);
  });
});
