// The leading items two snapshots' lists share (replay/resumable.ts): what a live episode's sums go on from.
import { describe, expect, it } from 'vitest';
import { sharedBy, sharedByIdentityOr } from '../../src-main/replay/resumable.js';

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
