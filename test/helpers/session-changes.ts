// The contract of a session update's `changes` (src-shared/ipc.ts SessionChanges), held against the whole lists
// before and after it: every row before a list's first changed row is as it was (on the timeline, but the heads
// it names), and a list said unchanged is.
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import type { RowList, SessionChanges } from '../../src-shared/ipc.js';

export type Lists = Record<RowList, readonly unknown[]>;
export const LISTS: readonly RowList[] = ['timeline', 'records', 'transcript'];

/** Changes of two updates in a row as one (a row the same through both is the same across them). */
export function mergedChanges(first: SessionChanges, second: SessionChanges): SessionChanges {
  const min = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
  const from = { timeline: min(first.from.timeline, second.from.timeline), records: min(first.from.records, second.from.records), transcript: min(first.from.transcript, second.from.transcript) };
  const heads = [...new Set([...first.heads, ...second.heads])].filter((row) => from.timeline === null || row < from.timeline);
  return { restart: first.restart || second.restart, from, heads, episodes: [...new Set([...first.episodes, ...second.episodes])] };
}

/** Checks `changes` against the lists before and after; returns the rows it said to ask again for, per list. */
export function expectChangesHold(before: Lists, after: Lists, changes: SessionChanges, where: string): Record<RowList, number> {
  const asked = { timeline: 0, records: 0, transcript: 0 };
  if (changes.restart) return { timeline: after.timeline.length, records: after.records.length, transcript: after.transcript.length };
  for (const list of LISTS) {
    const was = before[list];
    const now = after[list];
    const from = changes.from[list];
    const end = Math.max(was.length, now.length);
    const differs = (row: number) => row >= was.length || row >= now.length || !isDeepStrictEqual(was[row], now[row]);
    const heads = new Set(list === 'timeline' ? changes.heads : []);
    for (let row = 0; row < (from ?? end); row++) {
      if (differs(row)) expect(heads.has(row), `${where}: ${list} row ${row} changed before the first changed row ${from}`).toBe(true);
    }
    asked[list] = Math.max(0, now.length - (from ?? now.length)) + heads.size;
  }
  return asked;
}
