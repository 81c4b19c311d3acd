// The compare view's row model (src-renderer/components/compare-rows.ts): identical runs of steps folded, a fold
// expanded in place, each episode's differences after its steps and the session's last, the walk from difference
// to difference, and the first divergence's row.
import { describe, expect, it } from 'vitest';
import type { EpisodeDifference, StepOutline } from '../../src-shared/compare.js';
import { compareRows, differencePlace, divergenceRow, nextDifference, type CompareRow } from '../../src-renderer/components/compare-rows.js';

const outline: StepOutline[] = [
  [1, 1, true], [1, 2, true], [1, 3, true], [1, 4, false], [1, 5, true],
  [2, 1, false], [2, 2, true], [2, 3, true],
];
const differences: EpisodeDifference[] = [
  { episode: 2, difference: { kind: 'episode_end', sentence: 'the run finished in A only', words: null } },
  { episode: null, difference: { kind: 'side_cut', sentence: 'B is cut', words: null } },
];
const shape = (rows: CompareRow[]) => rows.map((row) => {
  switch (row.kind) {
    case 'episode': return `episode ${row.episode}`;
    case 'fold': return `${row.expanded ? 'open ' : ''}fold ${row.first_step_id}–${row.last_step_id}`;
    case 'step': return `step ${row.episode}.${row.step_id}${row.identical ? ' =' : ' ≠'}`;
    case 'difference': return `difference ${row.index}`;
  }
});

describe('compare rows', () => {
  it('fold runs of identical steps within an episode, never a lone one, and put each episode\'s differences after its steps', () => {
    expect(shape(compareRows(outline, differences, new Set()))).toEqual([
      'episode 1', 'fold 1–3', 'step 1.4 ≠', 'step 1.5 =',
      'episode 2', 'step 2.1 ≠', 'fold 2–3', 'difference 0',
      'difference 1',
    ]);
  });

  it('an expanded fold keeps its row and shows its steps under it', () => {
    expect(shape(compareRows(outline, differences, new Set([0])))).toEqual([
      'episode 1', 'open fold 1–3', 'step 1.1 =', 'step 1.2 =', 'step 1.3 =', 'step 1.4 ≠', 'step 1.5 =',
      'episode 2', 'step 2.1 ≠', 'fold 2–3', 'difference 0',
      'difference 1',
    ]);
  });

  it('a run does not fold across episodes, and an episode only a difference names has its head', () => {
    const rows = compareRows([[1, 1, true], [2, 1, true]], [{ episode: 3, difference: { kind: 'episode_missing', sentence: 'only A has episode 3', words: null } }], new Set());
    expect(shape(rows)).toEqual(['episode 1', 'step 1.1 =', 'episode 2', 'step 2.1 =', 'episode 3', 'difference 0']);
  });

  it('n and p walk the differences, from the top or the bottom when none is current, and stop at the ends', () => {
    const rows = compareRows(outline, differences, new Set());
    expect(nextDifference(rows, null, 1)).toBe('s3');
    expect(nextDifference(rows, 's3', 1)).toBe('s5');
    expect(nextDifference(rows, 's5', 1)).toBe('d0');
    expect(nextDifference(rows, 'd0', 1)).toBe('d1');
    expect(nextDifference(rows, 'd1', 1)).toBeNull();
    expect(nextDifference(rows, 's3', -1)).toBeNull();
    expect(nextDifference(rows, null, -1)).toBe('d1');
    // From a row that is no difference (a fold, an identical step opened), the next one after it.
    expect(nextDifference(rows, 'f6', 1)).toBe('d0');
    expect(nextDifference(rows, 'f6', -1)).toBe('s5');
    expect(differencePlace(rows, 's5')).toEqual({ at: 2, of: 4 });
    expect(differencePlace(rows, null)).toEqual({ at: 0, of: 4 });
  });

  it('the first divergence\'s row: its step, or the episode\'s difference of its kind', () => {
    const rows = compareRows(outline, differences, new Set());
    expect(divergenceRow(rows, outline, differences, { episode: 1, step_id: 4, kind: 'answer_text', sentence: '' })).toBe('s3');
    expect(divergenceRow(rows, outline, differences, { episode: 2, step_id: null, kind: 'episode_end', sentence: '' })).toBe('d0');
    expect(divergenceRow(rows, outline, differences, { episode: 2, step_id: null, kind: 'side_cut', sentence: '' })).toBe('d1');
    expect(divergenceRow(rows, outline, differences, null)).toBeNull();
  });
});
