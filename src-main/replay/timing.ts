// Time and cost of an episode from what its records carry: model attempts' ts_ms, tool-times/v1's
// dispatched_at_ms / finished_at_ms, a held record's held_at_ms, and each step's usage. Nothing is invented:
// a record without a time adds no time, and an episode without any says so (times_recorded: false).
import { createHash } from 'node:crypto';
import { largest, smallest } from '../../src-shared/arrays.js';
import type { BatchFold, CallFold, Cost, EpisodeFold, SpanEnd, EpisodeTiming, EpisodeTimingSummary, JsonPayload, StepFold, TimedSpan } from '../../src-shared/replay.js';
import { addStepCost, copyCost, modelOfConfig, noCost, PriceCursor, stepPriceTime, withRunTotals } from './cost.js';
import { EpisodeIndex, sharedStepsWithBatches } from './episode-index.js';
import { FullSums, Table, type SumSpec, type Sums } from './sums.js';

/** Bars per episode's waterfall; a 5,000-step episode shows its first ones and says the rest were left out. */
export const SPANS_PER_EPISODE_MAX = 2_000;

/** Each episode's timing, made once: a fold snapshot's episodes do not change, and a live session's next
 *  snapshot hands back the same object for every episode no new frame reached. */
const TIMINGS = new Table<EpisodeFold, EpisodeTiming>('timings');

export function episodeTiming(episode: EpisodeFold, sums: Sums = new FullSums()): EpisodeTiming {
  const timings = sums.table(TIMINGS);
  let timing = timings.get(episode);
  if (timing === undefined) timings.set(episode, (timing = timingOf(episode, sums)));
  return timing;
}

/** Each episode's timing without its bars, made once per timing (the digest of 2,000 spans is ~2 ms). */
const SUMMARIES = new Table<EpisodeTiming, EpisodeTimingSummary>('timing summaries');

export function episodeTimingSummary(episode: EpisodeFold, sums: Sums = new FullSums()): EpisodeTimingSummary {
  const timing = episodeTiming(episode, sums);
  const summaries = sums.table(SUMMARIES);
  let summary = summaries.get(timing);
  if (summary === undefined) {
    const { spans, ...rest } = timing;
    const spans_digest = createHash('sha256').update(JSON.stringify(spans)).digest('base64url').slice(0, 22);
    summaries.set(timing, (summary = { ...rest, spans_count: spans.length, spans_digest }));
  }
  return summary;
}

function timingOf(episode: EpisodeFold, sums: Sums): EpisodeTiming {
  const sum = sums.sum(TIMING_SUMS, episode);
  return {
    episode: episode.episode,
    times_recorded: sum.first_ms !== null,
    first_ms: sum.first_ms,
    last_ms: sum.last_known,
    tokens: { ...sum.tokens },
    cost: withRunTotals(copyCost(sum.cost), episode),
    failed_attempts: sum.failed_attempts,
    spans: sum.spans.slice(),
    spans_cut: sum.spans_cut,
  };
}

interface TimingSum {
  spans: TimedSpan[];
  spans_cut: boolean;
  failed_attempts: number;
  first_ms: number | null;
  last_known: number | null;
  tokens: Record<string, number>;
  cost: Cost;
  /** The run's model's pricer (a cache of the price table, shared by the copies). */
  prices: PriceCursor | null;
}

/** The timing, step by step (each step with its batch): a live episode's next snapshot goes on from the last
 *  one's, over the steps after the point where they stop being the same step and batch objects. */
const TIMING_SUMS: SumSpec<StepFold, TimingSum> = {
  items: (episode) => episode.steps,
  initial: () => ({ spans: [], spans_cut: false, failed_attempts: 0, first_ms: null, last_known: null, tokens: {}, cost: noCost(), prices: null }),
  copy: (sum) => ({ ...sum, spans: sum.spans.slice(), tokens: { ...sum.tokens }, cost: copyCost(sum.cost) }),
  shared: sharedStepsWithBatches,
  add: (sum, step, episode, sums) => addStep(sum, step, EpisodeIndex.of(episode, sums).batch(step.batch_id), episode),
};

function addStep(sum: TimingSum, step: StepFold, batch: BatchFold | undefined, episode: EpisodeFold): void {
  const add = (span: TimedSpan) => {
    if (sum.spans.length < SPANS_PER_EPISODE_MAX) sum.spans.push(span);
    else sum.spans_cut = true;
  };
  const note = (ms: number | null) => {
    if (ms === null) return;
    sum.first_ms = sum.first_ms === null ? ms : Math.min(sum.first_ms, ms);
    sum.last_known = sum.last_known === null ? ms : Math.max(sum.last_known, ms);
  };
  addUsage(sum.tokens, step.usage);
  const times = step.attempts.map((attempt) => attempt.ts_ms).filter((ms): ms is number => ms !== null);
  const failed = step.attempts.filter((attempt) => attempt.outcome !== null && attempt.outcome !== 'completed').length;
  sum.failed_attempts += failed;
  const end = largest(times);
  addStepCost(sum.cost, (sum.prices ??= new PriceCursor(modelOfConfig(episode.config))), step.usage, stepPriceTime(step));
  if (end !== null) {
    add({ kind: 'step', label: `step ${step.step_id}`, start_ms: sum.last_known ?? smallest(times)!, end_ms: end, failed, ended: stepEnd(step), step_id: step.step_id, seq: step.seq });
    for (const ms of times) note(ms);
  }
  if (batch === undefined) return;
  const starts: number[] = [];
  const ends: number[] = [];
  for (const call of batch.calls) {
    if (call.dispatched_at_ms !== null) {
      starts.push(call.dispatched_at_ms);
      const ended = callEnd(call);
      add({ kind: 'call', label: `${call.name} ${call.tool_call_id}`, start_ms: call.dispatched_at_ms, end_ms: call.finished_at_ms, failed: ended === 'error' ? 1 : 0, ended, step_id: batch.step_id, seq: call.intent?.seq ?? null });
    }
    if (call.held?.held_at_ms != null) {
      add({ kind: 'held', label: `${call.name} ${call.tool_call_id} held by ${call.held.module}`, start_ms: call.held.held_at_ms, end_ms: call.finished_at_ms, failed: 0, ended: call.finished_at_ms === null ? 'open' : callEnd(call), step_id: batch.step_id, seq: call.held.seq });
      note(call.held.held_at_ms);
    }
    if (call.finished_at_ms !== null) ends.push(call.finished_at_ms);
    note(call.dispatched_at_ms);
    note(call.finished_at_ms);
  }
  const start = smallest(starts);
  if (start !== null) {
    const open = batch.calls.some((call) => call.dispatched_at_ms !== null && call.finished_at_ms === null);
    add({ kind: 'batch', label: `batch ${batch.batch_id}`, start_ms: start, end_ms: open ? null : largest(ends), failed: 0, ended: open ? 'open' : batchEnd(batch), step_id: batch.step_id, seq: batch.started_seq });
  }
}

/** A step answered once its model_step_finished is durable, however many attempts failed before; without it,
 *  its last attempt says whether it failed or is still in flight. */
function stepEnd(step: StepFold): SpanEnd {
  if (step.seq !== null) return 'ok';
  const last = step.attempts.at(-1);
  return last !== undefined && last.outcome !== null && last.outcome !== 'completed' ? 'error' : 'open';
}

function callEnd(call: CallFold): SpanEnd {
  const terminal = call.terminals[0];
  if (terminal === undefined) return 'open';
  if (terminal.is_error) return 'error';
  if (terminal.outcome === 'unknown') return 'unknown';
  if (terminal.outcome === 'interrupted' || terminal.outcome === 'max_steps') return 'closed_out';
  return 'ok';
}

/** A batch ends as its worst call: an error, then an unknown outcome, then a close-out. */
function batchEnd(batch: BatchFold): SpanEnd {
  const ends = batch.calls.map(callEnd);
  return (['error', 'unknown', 'closed_out', 'open'] as const).find((end) => ends.includes(end)) ?? 'ok';
}

export function sumUsage(usages: readonly (JsonPayload | null)[]): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const usage of usages) addUsage(sums, usage);
  return sums;
}

function addUsage(sums: Record<string, number>, usage: JsonPayload | null): void {
  for (const [key, value] of Object.entries(usage ?? {})) if (typeof value === 'number' && Number.isFinite(value)) sums[key] = (sums[key] ?? 0) + value;
}
