// What a session's fold means for the person scanning a list: derived over the fold's result (never inside
// it), so a run that finished holding an unknown-outcome call, a WAL cut short and an export frozen mid-run
// each get a word of their own instead of "finished" or "running".
import type { BatchFold, CallFold, EpisodeFold, RunSignal, SessionFold, UnconfirmedCall } from '../../src-shared/replay.js';
import type { TornTail, WalErrorInfo } from '../../src-shared/wal.js';
import { isPending } from './classify.js';
import { EpisodeSum, sharedBatches } from './resumable.js';
import { currentBatch, lastFinishedStep } from './state.js';

/** What the reader said about the WAL's end. */
export interface ReadEnd {
  torn_tail: TornTail | null;
  error: WalErrorInfo | null;
}

/** `is_export`: a copy nobody writes, so an episode without run_finished is not "running" there. */
export function runSignal(fold: SessionFold, end: ReadEnd, is_export: boolean): RunSignal {
  const episode = fold.episodes.at(-1);
  const error_results = countErrorResults(fold);
  if (episode === undefined) {
    const detail = end.error === null ? 'no run was started in this WAL' : `the WAL is damaged before any run_started (${end.error.kind})`;
    return { status: end.error === null ? 'no_run' : 'cut', detail, unconfirmed: [], last_durable: null, error_results };
  }
  const unconfirmed = unconfirmedCalls(episode);
  const damaged = end.error !== null || end.torn_tail !== null;
  if (episode.finished !== null && end.error === null) {
    if (unconfirmed.length === 0) return { status: 'finished', detail: `the run finished (${episode.finished.reason ?? 'no reason'})`, unconfirmed, last_durable: null, error_results };
    const detail = `the run finished (${episode.finished.reason ?? 'no reason'}) but ${unconfirmedCount(unconfirmed)} an unknown outcome: its side effect is unconfirmed and the owner must decide`;
    return { status: 'finished_unconfirmed', detail, unconfirmed, last_durable: null, error_results };
  }
  const last_durable = damaged || is_export || episode.finished !== null ? lastDurableState(episode) : null;
  if (damaged) return { status: 'cut', detail: `${cutCause(end)}: what the run did after seq ${episode.last_seq} is unknown; last durable state: ${last_durable}`, unconfirmed, last_durable, error_results };
  const detail = is_export ? `this copy ends with the run open; last durable state: ${last_durable}` : `episode ${episode.episode} has no run_finished yet`;
  return { status: 'open', detail, unconfirmed, last_durable, error_results };
}

/** Calls of the episode whose outcome is unknown: closed out as unknown, or dispatched without a terminal. */
export function unconfirmedCalls(episode: EpisodeFold): UnconfirmedCall[] {
  return batch_signals.of(episode).unconfirmed.slice();
}

/** Over the batches, taken on from the last snapshot's for a live episode (replay/resumable.ts). */
const batch_signals = new EpisodeSum<BatchFold, { unconfirmed: UnconfirmedCall[]; error_results: number }>({
  items: (episode) => episode.batches,
  shared: sharedBatches,
  initial: () => ({ unconfirmed: [], error_results: 0 }),
  copy: (sum) => ({ unconfirmed: sum.unconfirmed.slice(), error_results: sum.error_results }),
  add(sum, batch, episode) {
    for (const call of batch.calls) {
      if (call.terminals[0]?.is_error === true) sum.error_results += 1;
      if (call.class !== 'indeterminate') continue;
      const closed = call.terminals.find((terminal) => terminal.outcome === 'unknown');
      sum.unconfirmed.push({
        episode: episode.episode,
        batch_id: batch.batch_id,
        tool_call_id: call.tool_call_id,
        name: call.name,
        intent_seq: call.intent?.seq ?? null,
        closed_out_seq: closed?.seq ?? null,
        may_have: mayHave(call),
      });
    }
  },
});

/** "edit_file c2.txt may have been applied — check c2.txt". */
export function mayHave(call: CallFold): string {
  const hint = call.intent?.target ?? null;
  if (hint === null) return `${call.name} may have been applied — check its effect before running it again`;
  return `${call.name} ${hint} may have been applied — check ${hint}`;
}

/** The last episode's progress as far as durable records show it, in one sentence. */
export function lastDurableState(episode: EpisodeFold): string {
  const parts = [`seq ${episode.last_seq}`];
  const step = lastFinishedStep(episode);
  parts.push(step === null ? 'no model step finished' : `step ${step.step_id} finished${step.natural_end ? ' with a final answer (natural end)' : ''}`);
  const batch = currentBatch(episode);
  if (batch !== null) parts.push(batchProgress(batch));
  if (episode.cancel_requests.length > 0) parts.push('a cancel was requested');
  parts.push(episode.finished === null ? 'no run_finished' : `run_finished (${episode.finished.reason ?? 'no reason'})`);
  return parts.join('; ');
}

function batchProgress(batch: BatchFold): string {
  const done = batch.calls.filter((call) => !isPending(call)).length;
  const state = batch.finished_seq === null ? 'open' : 'committed';
  return `batch ${batch.batch_id} ${state} (${done} of ${batch.calls.length} calls have a result)`;
}

function cutCause(end: ReadEnd): string {
  if (end.error !== null) return `the WAL is damaged at offset ${end.error.offset ?? '?'} (${end.error.kind.replaceAll('_', ' ')})`;
  return `the WAL is cut: ${end.torn_tail!.bytes} bytes at offset ${end.torn_tail!.offset} were never committed`;
}

function unconfirmedCount(calls: UnconfirmedCall[]): string {
  return calls.length === 1 ? `call ${calls[0]!.tool_call_id} (${calls[0]!.name}) has` : `${calls.length} calls have`;
}

function countErrorResults(fold: SessionFold): number {
  let count = 0;
  for (const episode of fold.episodes) count += batch_signals.of(episode).error_results;
  return count;
}

/** The word an episode gets in a listing: its fold state, except that the last episode of a cut WAL or of an
 *  export is not "running" (nothing is running it, or what followed is lost). */
export function episodeWord(episode: EpisodeFold, signal: RunSignal, last_episode: number): string {
  if (episode.episode !== last_episode || episode.finished !== null) return episode.state;
  if (signal.status === 'cut') return 'cut short';
  if (signal.status === 'open' && signal.last_durable !== null) return 'open in this copy';
  return episode.state;
}
