// Where an episode stands, derived from its classified records: the facts the resume plan and the outline share.
import type { BatchFold, EpisodeFold, EpisodeState, StepFold } from '../../src-shared/replay.js';
import { isCloseOut } from './classify.js';
import { EpisodeIndex } from './episode-index.js';
import { sharedBatches, sharedSteps } from './resumable.js';
import { FullSums, type SumSpec, type Sums } from './sums.js';

/** The batch a recovery acts on: the episode's last one, unless a model step was recorded after it started
 *  (then it was committed or abandoned and the run went on past it). */
export function currentBatch(episode: EpisodeFold, sums: Sums = new FullSums()): BatchFold | null {
  const batch = episode.batches.at(-1);
  if (batch === undefined) return null;
  return (sums.sum(STEP_SEQS, episode).last_finished?.seq ?? 0) > batch.started_seq ? null : batch;
}

/** The batch's step has no durable turn_finished yet (false when the batch names no step: no turn to close). */
export function owesTurnFinished(episode: EpisodeFold, batch: BatchFold, sums: Sums = new FullSums()): boolean {
  if (batch.step_id === null) return false;
  return EpisodeIndex.of(episode, sums).step(batch.step_id)?.turn_finished_seq == null;
}

/** The last model step with a durable model_step_finished (the first of the steps in order with the latest seq). */
export function lastFinishedStep(episode: EpisodeFold, sums: Sums = new FullSums()): StepFold | null {
  return sums.sum(STEP_SEQS, episode).last_finished;
}

export function episodeState(episode: EpisodeFold, sums: Sums): EpisodeState {
  if (episode.finished !== null) return 'finished';
  // Summed at every snapshot of an open episode, asked for or not: each snapshot's sum is then taken on from the
  // last one's (a few items an append), where a sum first asked for at a live run's first pause cost the whole
  // episode in that one append (83 ms at 100,000 records in one run, the slowest append of the live tail).
  const progress = progressSeq(episode, sums);
  if (episode.cancel_requests.length > 0) return 'cancelling';
  if (currentBatch(episode, sums)?.calls.some((call) => isCloseOut(call.class))) return 'closing';
  const pause = episode.pauses.at(-1);
  return pause !== undefined && pause.seq > progress ? 'paused' : 'running';
}

/** The seq of the episode's latest step, batch or call record: a pause after it is still in force. */
function progressSeq(episode: EpisodeFold, sums: Sums): number {
  return Math.max(episode.started_seq, sums.sum(STEP_SEQS, episode).progress, sums.sum(BATCH_SEQS, episode).progress);
}

/** Over the steps: the latest model_step_finished (its seq and its step), and the latest step record of any kind.
 *  Summed, not walked: the plan asks for the last finished step at every snapshot of a live episode. */
const STEP_SEQS: SumSpec<StepFold, { last_finished: StepFold | null; progress: number }> = {
  items: (episode) => episode.steps,
  shared: sharedSteps,
  initial: () => ({ last_finished: null, progress: 0 }),
  add(state, step) {
    if (step.seq !== null && (state.last_finished === null || step.seq > state.last_finished.seq!)) state.last_finished = step;
    state.progress = Math.max(state.progress, step.seq ?? 0, step.turn_finished_seq ?? 0);
  },
  copy: (state) => ({ ...state }),
};

/** Over the batches: the latest batch or call record. */
const BATCH_SEQS: SumSpec<BatchFold, { progress: number }> = {
  items: (episode) => episode.batches,
  shared: sharedBatches,
  initial: () => ({ progress: 0 }),
  add(state, batch) {
    let seq = Math.max(state.progress, batch.started_seq, batch.finished_seq ?? 0);
    for (const call of batch.calls) {
      seq = Math.max(seq, call.intent?.seq ?? 0, call.held?.seq ?? 0);
      // A loop, not a spread: one call may have 150k terminals, and spread arguments overflow the stack.
      for (const terminal of call.terminals) seq = Math.max(seq, terminal.seq);
    }
    state.progress = seq;
  },
  copy: (state) => ({ ...state }),
};
