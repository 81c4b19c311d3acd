// Lookups over one folded episode, built once in O(n) so that walking an episode of a hundred thousand steps
// stays linear: a `find` per step or per batch made the fold, the transcript and the outline quadratic. A live
// episode's next snapshot takes its index on from the last snapshot's (where the store knows what it was made
// from: views/incremental-sums.ts): the maps copied,
// the parts past the places where the lists stop being the same set again.
import { ChunkedList, type Parts } from '../../src-shared/parts.js';
import type { BatchFold, EpisodeFold, SteerFold, StepFold } from '../../src-shared/replay.js';
import { sharedBatches, sharedBy, sharedObjects } from './resumable.js';
import { Table, type Sums, type SumsWork } from './sums.js';

interface Built {
  steps: Parts<StepFold>;
  batches: Parts<BatchFold>;
  steers: readonly SteerFold[];
  counts: number;
  index: EpisodeIndex;
}

/** The index of each open episode of a fold snapshot, with the lists it was built from: snapshots never change
 *  an episode's lists once classified, and a list replaced (a batch copied for a new verdict) builds it anew. The
 *  classification, the plan, the transcript and the timeline of one episode share one index. */
const BUILT = new Table<EpisodeFold, Built>('episode indexes');

/** A finished episode's index is kept only while it is the last one asked for, keyed by the store itself: a
 *  finished episode is walked a few times, each walk asking once per step or batch (its classification, its
 *  rows counted, its part of the request), when its session is read, and not at an append. Every finished
 *  episode's index kept was 22 MB of the million-record session's 235 MB. */
const LAST_FINISHED = new Table<Sums, Built & { episode: EpisodeFold }>('the last finished episode indexed');

export class EpisodeIndex {
  private steps = new Map<number, StepFold>();
  private batches = new Map<string, BatchFold>();
  private readonly steered = new Map<number | null, SteerFold[]>();
  /** The batch ids steps name. */
  private named = new Set<string | null>();
  /** Steps with a durable model_step_finished, by seq ascending: for "the first step recorded after". */
  private recorded: StepFold[] = [];
  /** Where each of `recorded` is in the episode's steps. */
  private recorded_places: number[] = [];
  /** `recorded` as `recordedSteps` hands it out, made once; and the list of the index this one took over, with
   *  how many leading steps the two share (the steps recorded before the places where the lists changed). */
  private recorded_copy: ChunkedList<StepFold> | null = null;
  private recorded_from: { copy: ChunkedList<StepFold>; same: number } | null = null;
  /** Set when a step recorded out of seq order made `addSteps` merge the recorded steps anew. */
  private recorded_merged = false;
  /** Batches that no step names, and where they are in the episode's batches. */
  private without_step: BatchFold[] = [];
  private without_step_places: number[] = [];
  /** A later snapshot's index took this one's maps and lists over (`takeOn`): used again, it is built anew. */
  private handed_on = false;

  /** The episode's index, built once per episode and lists. */
  static of(episode: EpisodeFold, sums: Sums): EpisodeIndex {
    const built = sums.table(BUILT);
    const last_finished = sums.table(LAST_FINISHED);
    const { steps, batches, steers } = episode;
    const counts = steps.length + batches.length + steers.length;
    const finished = last_finished.get(sums);
    const kept = episode.finished === null ? built.get(episode) : finished?.episode === episode ? finished : undefined;
    if (kept !== undefined && kept.steps === steps && kept.batches === batches && kept.steers === steers && kept.counts === counts) return kept.index;
    const before = sums.madeFrom(episode);
    const base = before === undefined ? undefined : built.get(before);
    const index = new EpisodeIndex(episode, base, sums.work);
    if (episode.finished === null) built.set(episode, { steps, batches, steers, counts, index });
    else last_finished.set(sums, { episode, steps, batches, steers, counts, index });
    return index;
  }

  private constructor(
    private readonly episode: EpisodeFold,
    base: Built | undefined,
    private readonly work: SumsWork,
  ) {
    for (const steer of episode.steers) {
      const joining = this.steered.get(steer.joins_step) ?? [];
      joining.push(steer);
      this.steered.set(steer.joins_step, joining);
    }
    if (base === undefined || base.index.handed_on || !this.takeOn(episode, base)) this.build();
  }

  private build(): void {
    this.steps = new Map();
    this.batches = new Map();
    this.named = new Set();
    this.recorded = [];
    this.recorded_places = [];
    this.without_step = [];
    this.without_step_places = [];
    this.recorded_copy = null;
    this.recorded_from = null;
    this.recorded_merged = false;
    this.addSteps(this.episode.steps, 0);
    this.addBatches(this.episode.batches, 0);
  }

  /** Itself, built anew if a later snapshot's index took its maps over. */
  private current(): this {
    if (this.handed_on) {
      this.handed_on = false;
      this.build();
    }
    return this;
  }

  /** Takes the index of `base`'s episode over for `episode`, a later snapshot of it: the lists only grow, so the
   *  maps need only the parts past the places where the lists stop holding the same objects (a live run
   *  changes its last step and batch). False, before anything is taken, when a part past those places has
   *  another id than it had, or a step names another batch, or the recorded steps are not in place order. */
  private takeOn(episode: EpisodeFold, base: Built): boolean {
    const steps_shared = sharedObjects(base.steps, episode.steps, this.work);
    const batches_shared = sharedObjects(base.batches, episode.batches, this.work);
    for (let at = steps_shared; at < base.steps.length; at++) {
      const [was, now] = [base.steps.at(at)!, episode.steps.at(at)!];
      if (now === undefined || was.step_id !== now.step_id || (was.batch_id !== null && was.batch_id !== now.batch_id)) return false;
    }
    for (let at = batches_shared; at < base.batches.length; at++) if (base.batches.at(at)!.batch_id !== episode.batches.at(at)?.batch_id) return false;
    const from = base.index;
    // The recorded steps past the shared places are dropped from the end (they are re-added below).
    let recorded_kept = from.recorded.length;
    while (recorded_kept > 0 && from.recorded_places[recorded_kept - 1]! >= steps_shared) recorded_kept--;
    for (let at = 0; at < recorded_kept; at++) if (from.recorded_places[at]! >= steps_shared) return false;
    from.handed_on = true;
    this.steps = from.steps;
    this.batches = from.batches;
    this.named = from.named;
    this.recorded = from.recorded;
    this.recorded_places = from.recorded_places;
    this.recorded.length = recorded_kept;
    this.recorded_places.length = recorded_kept;
    const newly_named = this.addSteps(episode.steps, steps_shared);
    if (from.recorded_copy !== null && !this.recorded_merged) this.recorded_from = { copy: from.recorded_copy, same: recorded_kept };
    for (const [at, place] of from.without_step_places.entries()) {
      if (place < batches_shared && !newly_named.has(from.without_step[at]!.batch_id)) this.addWithoutStep(episode.batches.at(place)!, place);
    }
    this.addBatches(episode.batches, batches_shared);
    return true;
  }

  /** Indexes the steps from place `from` on; the batch ids they name that were not named before. */
  private addSteps(steps: Parts<StepFold>, from: number): Set<string | null> {
    const newly_named = new Set<string | null>();
    const recorded: number[] = [];
    for (let at = from; at < steps.length; at++) {
      const step = steps.at(at)!;
      this.steps.set(step.step_id, step);
      if (!this.named.has(step.batch_id)) newly_named.add(step.batch_id);
      this.named.add(step.batch_id);
      if (step.seq !== null) recorded.push(at);
    }
    this.work.parts_indexed += steps.length - from;
    // In seq order, equal seqs in step order (as a stable sort of all of them by seq gives).
    recorded.sort((left, right) => steps.at(left)!.seq! - steps.at(right)!.seq! || left - right);
    const last = this.recorded.at(-1);
    if (last === undefined || recorded.length === 0 || steps.at(recorded[0]!)!.seq! > last.seq!) {
      for (const place of recorded) this.takeRecorded(steps.at(place)!, place);
      return newly_named;
    }
    this.recorded_merged = true;
    const kept = { steps: this.recorded, places: this.recorded_places };
    this.recorded = [];
    this.recorded_places = [];
    let next = 0;
    for (const place of recorded) {
      const seq = steps.at(place)!.seq!;
      while (next < kept.steps.length && (kept.steps[next]!.seq! < seq || (kept.steps[next]!.seq === seq && kept.places[next]! < place))) this.takeRecorded(kept.steps[next]!, kept.places[next++]!);
      this.takeRecorded(steps.at(place)!, place);
    }
    while (next < kept.steps.length) this.takeRecorded(kept.steps[next]!, kept.places[next++]!);
    return newly_named;
  }

  private takeRecorded(step: StepFold, place: number): void {
    this.recorded.push(step);
    this.recorded_places.push(place);
  }

  private addBatches(batches: Parts<BatchFold>, from: number): void {
    for (let at = from; at < batches.length; at++) {
      const batch = batches.at(at)!;
      this.batches.set(batch.batch_id, batch);
      if (!this.named.has(batch.batch_id)) this.addWithoutStep(batch, at);
    }
    this.work.parts_indexed += batches.length - from;
  }

  private addWithoutStep(batch: BatchFold, place: number): void {
    this.without_step.push(batch);
    this.without_step_places.push(place);
  }

  /** Batches that no step names: shown on their own. */
  get batches_without_step(): readonly BatchFold[] {
    return this.current().without_step;
  }

  step(step_id: number | null): StepFold | undefined {
    return step_id === null ? undefined : this.current().steps.get(step_id);
  }

  batch(batch_id: string | null): BatchFold | undefined {
    return batch_id === null ? undefined : this.current().batches.get(batch_id);
  }

  /** Steps with a durable model_step_finished, in WAL order. */
  recordedSteps(): Parts<StepFold> {
    // A copy, made once: `recorded` is handed on to the next snapshot's index, which changes it. The copy of the
    // index this one took over when no step was recorded or changed since (most appends record no step), else
    // that copy's chunks up to the first step that changed, and the rest anew.
    const index = this.current();
    const from = index.recorded_from;
    if (index.recorded_copy === null && from !== null && sameFrom(index.recorded, from.copy, from.same)) index.recorded_copy = from.copy;
    if (index.recorded_copy === null) {
      const same = Math.min(from?.same ?? 0, from?.copy.length ?? 0);
      index.recorded_copy = (from?.copy ?? ChunkedList.of<StepFold>([])).withTail(same, index.recorded.slice(same));
    }
    return index.recorded_copy;
  }

  /** The steers that join before `step_id`'s step, or at the run's end for null. */
  steersJoining(step_id: number | null): readonly SteerFold[] {
    return this.steered.get(step_id) ?? [];
  }

  /** The first step recorded after `seq`, by binary search over the recorded steps. */
  stepRecordedAfter(seq: number): StepFold | undefined {
    this.current();
    let low = 0;
    let high = this.recorded.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.recorded[middle]!.seq! > seq) high = middle;
      else low = middle + 1;
    }
    return this.recorded[low];
  }
}

/** Whether `list` holds `copy`'s items, the first `same` known to be the same objects. */
function sameFrom<T>(list: readonly T[], copy: Parts<T>, same: number): boolean {
  if (list.length !== copy.length) return false;
  for (let at = same; at < list.length; at++) if (list[at] !== copy.at(at)) return false;
  return true;
}

/** Per snapshot's steps list: how many leading steps it shares, with the same batches, with the steps of the
 *  snapshot it was last measured against (`sharedStepsWithBatches`). */
const STEPS_WITH_BATCHES = new Table<Parts<StepFold>, { before: WeakRef<Parts<StepFold>>; batches_before: WeakRef<Parts<BatchFold>>; batches: Parts<BatchFold>; count: number }>('steps shared with their batches');

/** For a sum over the steps that reads each step's batch: how many leading steps are the same objects with the
 *  same batches (`sharedStepsAndBatches` over the episodes' steps). Kept for the four lists it was counted over:
 *  a snapshot that changed no step shares the last one's steps list, not its batches. */
export function sharedStepsWithBatches(before: EpisodeFold, episode: EpisodeFold, sums: Sums): number {
  const steps_with_batches = sums.table(STEPS_WITH_BATCHES);
  const kept = steps_with_batches.get(episode.steps);
  if (kept?.before.deref() === before.steps && kept.batches_before.deref() === before.batches && kept.batches === episode.batches) return kept.count;
  const count = sharedStepsAndBatches(before, episode, sums, before.steps, episode.steps);
  steps_with_batches.set(episode.steps, { before: new WeakRef(before.steps), batches_before: new WeakRef(before.batches), batches: episode.batches, count });
  return count;
}

/** Batches whose ids are looked up one by one; past this many, the steps are walked. */
const CHANGED_BATCHES_LOOKED_UP_MAX = 16;

/** For a sum over a list of steps that reads each step's batch (`steps_before`, a list of `before`'s steps, and
 *  `steps`, the same list of `episode`'s): how many leading places hold the same step object in both, naming no
 *  batch that changed. A batch changed when it sits at or past the place where the two batch lists stop holding
 *  the same objects (a batch id is looked up in neither snapshot: a step whose batch id has no batch past that
 *  place finds the same batch object in both, the last batch with that id).
 *
 *  The steps naming a changed batch are found through the index, not by reading every step's batch id (100k
 *  steps of a million records' open episode, each read missing the cache): SessionFolder.startBatch is what
 *  names a step's batch, and it names the step of the batch's own step_id with a batch id started once a
 *  session, so only that step can name it. */
export function sharedStepsAndBatches(before: EpisodeFold, episode: EpisodeFold, sums: Sums, steps_before: Parts<StepFold>, steps: Parts<StepFold>): number {
  const same = sharedObjects(steps_before, steps, sums.work);
  const places = sharedBatches(before, episode, sums);
  const changed = new Map<string, number | null>();
  for (const batches of [before.batches, episode.batches]) {
    for (let at = places; at < batches.length; at++) changed.set(batches.at(at)!.batch_id, batches.at(at)!.step_id);
  }
  if (changed.size > CHANGED_BATCHES_LOOKED_UP_MAX) return sharedBy(steps_before, steps, (was, now) => was === now && (now.batch_id === null || !changed.has(now.batch_id)));
  const index = EpisodeIndex.of(episode, sums);
  let first = same;
  for (const [batch_id, step_id] of changed) {
    const step = index.step(step_id);
    if (first === 0 || step?.batch_id !== batch_id) continue;
    const at = steps.lastIndexOf(step, first - 1);
    if (at >= 0) first = at;
  }
  return first;
}
