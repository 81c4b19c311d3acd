// What a session's update changed since the last one (the `changes` of its event): per list, the first row that
// may differ, found from the fold's change list (FoldChanges) and the views' parts, so that a window asks again
// for only the pages at or after it. Conservative where exactness is costly: a row said to have changed may not
// have, a row said not to have changed has not (test/app/session-changes.test.ts holds it).
import { EVERYTHING_CHANGED, type SessionChanges } from '../../src-shared/ipc.js';
import type { BatchFold, EpisodeChange, EpisodeFold, FoldChanges, PartChanges } from '../../src-shared/replay.js';
import { EpisodeIndex } from '../replay/episode-index.js';
import type { Sums } from '../replay/sums.js';
import { episodeTiming } from '../replay/timing.js';
import type { SessionViews } from './session-views.js';
import { entryKey, episodeRowsBefore, type StepRowCache } from './timeline.js';

/** Past this many episodes changed in one update (a late record, a big append), it says everything changed. */
export const EPISODES_CHANGED_MAX = 64;

/** A session as one update showed it. */
export interface Shown {
  views: SessionViews;
  /** Its records verified, and listed (past a damage, the frames found after it follow the verified ones). */
  records: { verified: number; listed: number };
}

/** What `now` changed against `before`; `changes` is the fold's change list against `before`'s fold, null when
 *  the fold was not taken on from it (then everything changed, as after a restart). */
export function sessionChanges(before: Shown | null, now: Shown, changes: FoldChanges | null, steps: StepRowCache): SessionChanges {
  if (before === null) return EVERYTHING_CHANGED;
  if (now.views === before.views) return { restart: false, from: { timeline: null, records: recordsFrom(before, now), transcript: null }, heads: [], episodes: [] };
  if (changes === null || changes.from_scratch || changes.episodes.length > EPISODES_CHANGED_MAX) return EVERYTHING_CHANGED;
  const timeline = timelineFrom(before, now, changes.episodes, steps);
  return {
    restart: false,
    from: { timeline: timeline.from, records: recordsFrom(before, now), transcript: transcriptFrom(before, now, changes.episodes) },
    heads: timeline.heads,
    episodes: changes.episodes.map((change) => now.views.fold.episodes[change.index]!.episode),
  };
}

/** A list's first changed row `from`, or null when the list is as it was (no row from it on, either side). */
function changedFrom(from: number, before_rows: number, now_rows: number): number | null {
  return from >= Math.max(before_rows, now_rows) ? null : from;
}

/** The verified records only grow; the frames found past a damage are scanned again at every read. */
function recordsFrom(before: Shown, now: Shown): number | null {
  const from = Math.min(before.records.verified, now.records.verified);
  const past_damage = now.records.listed > now.records.verified || before.records.listed > before.records.verified;
  return past_damage ? from : changedFrom(from, before.records.listed, now.records.listed);
}

/** The next request is its episodes' parts joined (none when any part cannot be rendered): the parts before the
 *  first changed episode are the very same. */
function transcriptFrom(before: Shown, now: Shown, changed: readonly EpisodeChange[]): number | null {
  const was = before.views.messages;
  const is = now.views.messages;
  let from = Math.min(was.length, is.length);
  if (was.part_count === 0 || is.part_count === 0) from = 0;
  for (const change of changed) from = Math.min(from, change.index < is.part_count ? is.startOf(change.index) : is.length);
  return changedFrom(from, was.length, is.length);
}

/** The session's own rows (records outside every episode, recoveries, anomalies) are laid out anew at every
 *  build and come last: the first changed row is at their start at the latest. */
function timelineFrom(before: Shown, now: Shown, changed: readonly EpisodeChange[], steps: StepRowCache): { from: number | null; heads: number[] } {
  const timeline = now.views.timeline;
  const episodes = now.views.fold.episodes;
  let from = timeline.startOf(timeline.part_count - 1);
  const heads = new Set<number>();
  for (const change of changed) {
    const start = timeline.startOf(change.index);
    heads.add(start);
    from = Math.min(from, change.added ? start : start + firstChangedRow(before.views.fold.episodes[change.index]!, episodes[change.index]!, change, steps));
  }
  // The last episode's own row is marked with the run's signal; an episode added takes the mark over.
  const last_before = before.views.fold.episodes.length - 1;
  if (episodes.length > 0 && JSON.stringify(before.views.run) !== JSON.stringify(now.views.run)) heads.add(timeline.startOf(episodes.length - 1));
  if (last_before >= 0 && last_before < episodes.length - 1) heads.add(timeline.startOf(last_before));
  const early = [...heads].filter((head) => head < from).sort((a, b) => a - b);
  return { from: changedFrom(from, before.views.timeline.length, timeline.length), heads: early };
}

/** The first of an episode's rows but its own (its state and times, a head) that may differ between `was` and
 *  `now`: the rows of its entries keyed below the least key of what changed stay as they were. */
function firstChangedRow(was: EpisodeFold, now: EpisodeFold, change: EpisodeChange, steps: StepRowCache): number {
  // Every step's and batch's rows show times from the episode's first one.
  if (was.input !== now.input || episodeTiming(was, steps.sums).first_ms !== episodeTiming(now, steps.sums).first_ms || now.steps.length < was.steps.length) return 1;
  const key = Math.min(changedStepsKey(was, now, change.steps), changedBatchesKey(was, now, change.batches, steps.sums), changedEntriesKey(was, now));
  if (key !== Infinity) return episodeRowsBefore(now, steps, key);
  return episodeRowsBefore(now, steps, key) + firstDifferent(was.anomalies, now.anomalies);
}

function changedStepsKey(was: EpisodeFold, now: EpisodeFold, change: PartChanges): number {
  let key = Infinity;
  for (const at of change.changed) key = Math.min(key, entryKey.step(was.steps.at(at)!), entryKey.step(now.steps.at(at)!));
  for (let at = change.added_from; at < now.steps.length; at++) key = Math.min(key, entryKey.step(now.steps.at(at)!));
  return key;
}

/** A batch shows in its step's rows (the step of its own step_id, SessionFolder.startBatch), or on its own. */
function changedBatchesKey(was: EpisodeFold, now: EpisodeFold, change: PartChanges, sums: Sums): number {
  const index = EpisodeIndex.of(now, sums);
  let key = Infinity;
  const add = (batch: BatchFold | undefined) => {
    if (batch === undefined) return;
    const step = index.step(batch.step_id);
    key = Math.min(key, batch.started_seq ?? Number.MAX_SAFE_INTEGER, step === undefined ? Infinity : entryKey.step(step));
  };
  for (const at of change.changed) {
    add(was.batches.at(at));
    add(now.batches.at(at));
  }
  for (let at = change.added_from; at < now.batches.length; at++) add(now.batches.at(at));
  return key;
}

/** The episode's few other entries, compared by identity (the fold shares the ones no frame reached). */
function changedEntriesKey(was: EpisodeFold, now: EpisodeFold): number {
  const bySeq = (entry: { seq: number }) => entry.seq;
  let key = Math.min(
    changedListKey(was.steers, now.steers, bySeq),
    changedListKey(was.approvals, now.approvals, entryKey.approval),
    changedListKey(was.cancel_requests, now.cancel_requests, bySeq),
    changedListKey(was.pauses, now.pauses, bySeq),
    changedListKey(was.resumes, now.resumes, bySeq),
    changedListKey(was.shown, now.shown, bySeq),
  );
  if (was.finished !== now.finished) key = Math.min(key, was.finished?.seq ?? Infinity, now.finished?.seq ?? Infinity);
  return key;
}

/** The least key of the entries of either list from the first place where they differ. */
function changedListKey<T>(was: readonly T[], now: readonly T[], keyOf: (entry: T) => number): number {
  let key = Infinity;
  for (const list of [was, now]) for (let at = firstDifferent(was, now); at < list.length; at++) key = Math.min(key, keyOf(list[at]!));
  return key;
}

function firstDifferent<T>(was: readonly T[], now: readonly T[]): number {
  if (was === now) return was.length;
  let at = 0;
  while (at < was.length && at < now.length && was[at] === now[at]) at++;
  return at;
}
