// Lookups over one folded episode, built once in O(n) so that walking an episode of a hundred thousand steps
// stays linear: a `find` per step or per batch made the fold, the transcript and the outline quadratic.
import type { BatchFold, EpisodeFold, SteerFold, StepFold } from '../../src-shared/replay.js';

/** The index of each episode of a fold snapshot, with the lists it was built from: snapshots never change an
 *  episode's lists once classified, and a list replaced (a batch copied for a new verdict) builds it anew. The
 *  classification, the plan, the transcript and the timeline of one episode share one index. */
const built = new WeakMap<EpisodeFold, { steps: readonly StepFold[]; batches: readonly BatchFold[]; steers: readonly SteerFold[]; counts: number; index: EpisodeIndex }>();

export class EpisodeIndex {
  private readonly steps = new Map<number, StepFold>();
  private readonly batches = new Map<string, BatchFold>();
  private readonly steered = new Map<number | null, SteerFold[]>();
  /** Steps with a durable model_step_finished, by seq ascending: for "the first step recorded after". */
  private readonly recorded: StepFold[];
  /** Batches that no step names: shown on their own. */
  readonly batches_without_step: BatchFold[];

  /** The episode's index, built once per episode and lists. */
  static of(episode: EpisodeFold): EpisodeIndex {
    const { steps, batches, steers } = episode;
    const counts = steps.length + batches.length + steers.length;
    const kept = built.get(episode);
    if (kept !== undefined && kept.steps === steps && kept.batches === batches && kept.steers === steers && kept.counts === counts) return kept.index;
    const index = new EpisodeIndex(episode);
    built.set(episode, { steps, batches, steers, counts, index });
    return index;
  }

  private constructor(episode: EpisodeFold) {
    for (const step of episode.steps) this.steps.set(step.step_id, step);
    for (const batch of episode.batches) this.batches.set(batch.batch_id, batch);
    for (const steer of episode.steers) {
      const joining = this.steered.get(steer.joins_step) ?? [];
      joining.push(steer);
      this.steered.set(steer.joins_step, joining);
    }
    this.recorded = episode.steps.filter((step) => step.seq !== null).sort((left, right) => left.seq! - right.seq!);
    const named = new Set(episode.steps.map((step) => step.batch_id));
    this.batches_without_step = episode.batches.filter((batch) => !named.has(batch.batch_id));
  }

  step(step_id: number | null): StepFold | undefined {
    return step_id === null ? undefined : this.steps.get(step_id);
  }

  batch(batch_id: string | null): BatchFold | undefined {
    return batch_id === null ? undefined : this.batches.get(batch_id);
  }

  /** Steps with a durable model_step_finished, in WAL order. */
  recordedSteps(): readonly StepFold[] {
    return this.recorded;
  }

  /** The steers that join before `step_id`'s step, or at the run's end for null. */
  steersJoining(step_id: number | null): readonly SteerFold[] {
    return this.steered.get(step_id) ?? [];
  }

  /** The first step recorded after `seq`, by binary search over the recorded steps. */
  stepRecordedAfter(seq: number): StepFold | undefined {
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
