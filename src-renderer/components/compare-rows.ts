// The compare view's rows, from a comparison's outline (ComparePage.outline) before any step's detail is asked
// for: each episode's head, its steps aligned (A and B side by side), a run of identical steps folded into one
// "N identical steps" row until it is expanded, then what differs of the episode beyond its steps; what differs of
// the session last. And the walk from difference to difference (`n` / `p`): a folded run never holds one.
import type { Divergence, EpisodeDifference, StepOutline } from '../../src-shared/compare.js';

/** Identical steps in a row folded into one row at least: a lone identical step is shown as it is. */
export const FOLD_STEPS_MIN = 2;

/** A row's id, which expanding a fold does not change: `s<at>` a step (its place in the listed steps), `f<at>` the
 *  fold of the run starting there, `e<episode>` an episode's head, `d<index>` an episode difference. */
export type CompareRowId = string;

export type CompareRow =
  | { kind: 'episode'; id: CompareRowId; episode: number }
  | { kind: 'step'; id: CompareRowId; at: number; episode: number; step_id: number; identical: boolean }
  | { kind: 'fold'; id: CompareRowId; from: number; to: number; episode: number; first_step_id: number; last_step_id: number; expanded: boolean }
  | { kind: 'difference'; id: CompareRowId; index: number; episode: number | null };

export const stepRowId = (at: number): CompareRowId => `s${at}`;
export const foldRowId = (from: number): CompareRowId => `f${from}`;

/** The rows of `outline` with `expanded` folds (by the first listed step of their run) opened. */
export function compareRows(outline: readonly StepOutline[], episode_differences: readonly EpisodeDifference[], expanded: ReadonlySet<number>): CompareRow[] {
  const episodes = episodesOf(outline, episode_differences);
  const rows: CompareRow[] = [];
  let at = 0;
  for (const episode of episodes) {
    rows.push({ kind: 'episode', id: `e${episode}`, episode });
    while (at < outline.length && outline[at]![0] === episode) {
      const run_end = identicalRunEnd(outline, at);
      if (run_end - at >= FOLD_STEPS_MIN) {
        const open = expanded.has(at);
        rows.push({ kind: 'fold', id: foldRowId(at), from: at, to: run_end - 1, episode, first_step_id: outline[at]![1], last_step_id: outline[run_end - 1]![1], expanded: open });
        if (open) for (let step = at; step < run_end; step += 1) rows.push(stepRow(outline, step));
        at = run_end;
      } else {
        rows.push(stepRow(outline, at));
        at += 1;
      }
    }
    episode_differences.forEach((difference, index) => {
      if (difference.episode === episode) rows.push({ kind: 'difference', id: `d${index}`, index, episode });
    });
  }
  episode_differences.forEach((difference, index) => {
    if (difference.episode === null) rows.push({ kind: 'difference', id: `d${index}`, index, episode: null });
  });
  return rows;
}

/** The episodes in the order compared: the outline's (its steps come episode by episode), and any only a
 *  difference names (an episode one side has no step of), in number order. */
function episodesOf(outline: readonly StepOutline[], episode_differences: readonly EpisodeDifference[]): number[] {
  const seen = new Set<number>();
  for (const [episode] of outline) seen.add(episode);
  for (const { episode } of episode_differences) if (episode !== null) seen.add(episode);
  return [...seen].sort((left, right) => left - right);
}

function stepRow(outline: readonly StepOutline[], at: number): CompareRow {
  const [episode, step_id, identical] = outline[at]!;
  return { kind: 'step', id: stepRowId(at), at, episode, step_id, identical };
}

/** Where the run of identical steps of one episode from `at` ends (exclusive); `at` itself when it differs. */
function identicalRunEnd(outline: readonly StepOutline[], at: number): number {
  const episode = outline[at]![0];
  let end = at;
  while (end < outline.length && outline[end]![2] && outline[end]![0] === episode) end += 1;
  return end;
}

/** A row that is a difference: a step that differs, or what differs of an episode or of the session. */
export function isDifference(row: CompareRow): boolean {
  return (row.kind === 'step' && !row.identical) || row.kind === 'difference';
}

/** The next (`direction` 1) or previous (-1) difference's row id from `current` (none: from the top or the
 *  bottom), or null when there is none that way. */
export function nextDifference(rows: readonly CompareRow[], current: CompareRowId | null, direction: 1 | -1): CompareRowId | null {
  const from = current === null ? -1 : rows.findIndex((row) => row.id === current);
  const start = from === -1 ? (direction === 1 ? 0 : rows.length - 1) : from + direction;
  for (let index = start; index >= 0 && index < rows.length; index += direction) {
    if (isDifference(rows[index]!)) return rows[index]!.id;
  }
  return null;
}

/** The row of the first divergence: its step, or (of an episode or the session) the first difference of its kind
 *  there; null when the runs are the same. */
export function divergenceRow(rows: readonly CompareRow[], outline: readonly StepOutline[], episode_differences: readonly EpisodeDifference[], divergence: Divergence | null): CompareRowId | null {
  if (divergence === null) return null;
  if (divergence.step_id !== null) {
    const at = outline.findIndex(([episode, step_id]) => episode === divergence.episode && step_id === divergence.step_id);
    if (at >= 0) return stepRowId(at);
  }
  const index = episode_differences.findIndex((difference) => difference.difference.kind === divergence.kind && (difference.episode === divergence.episode || difference.episode === null));
  if (index >= 0) return `d${index}`;
  return nextDifference(rows, null, 1);
}

/** The difference rows in all, and which of them `current` is (1-based; 0 when it is none). */
export function differencePlace(rows: readonly CompareRow[], current: CompareRowId | null): { at: number; of: number } {
  let of = 0;
  let at = 0;
  for (const row of rows) {
    if (!isDifference(row)) continue;
    of += 1;
    if (row.id === current) at = of;
  }
  return { at, of };
}
