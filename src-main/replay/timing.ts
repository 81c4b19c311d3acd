// Time and cost of an episode from what its records carry: model attempts' ts_ms, tool-times/v1's
// dispatched_at_ms / finished_at_ms, a held record's held_at_ms, and each step's usage. Nothing is invented:
// a record without a time adds no time, and an episode without any says so (times_recorded: false).
import type { EpisodeFold, EpisodeTiming, JsonPayload, TimedSpan } from '../../src-shared/replay.js';

/** Bars per episode's waterfall; a 5,000-step episode shows its first ones and says the rest were left out. */
export const SPANS_PER_EPISODE_MAX = 2_000;

/** Each episode's timing, made once: a fold snapshot's episodes do not change, and a live session's next
 *  snapshot hands back the same object for every episode no new frame reached. */
const timings = new WeakMap<EpisodeFold, EpisodeTiming>();

export function episodeTiming(episode: EpisodeFold): EpisodeTiming {
  let timing = timings.get(episode);
  if (timing === undefined) timings.set(episode, (timing = timingOf(episode)));
  return timing;
}

function timingOf(episode: EpisodeFold): EpisodeTiming {
  const spans: TimedSpan[] = [];
  let spans_cut = false;
  const add = (span: TimedSpan) => {
    if (spans.length < SPANS_PER_EPISODE_MAX) spans.push(span);
    else spans_cut = true;
  };
  let failed_attempts = 0;
  let last_known: number | null = null;
  let first_ms: number | null = null;
  const note = (ms: number | null) => {
    if (ms === null) return;
    first_ms = first_ms === null ? ms : Math.min(first_ms, ms);
    last_known = last_known === null ? ms : Math.max(last_known, ms);
  };
  const batches = new Map(episode.batches.map((batch) => [batch.batch_id, batch]));
  for (const step of episode.steps) {
    const times = step.attempts.map((attempt) => attempt.ts_ms).filter((ms): ms is number => ms !== null);
    const failed = step.attempts.filter((attempt) => attempt.outcome !== null && attempt.outcome !== 'completed').length;
    failed_attempts += failed;
    if (times.length > 0) {
      const end = Math.max(...times);
      add({ kind: 'step', label: `step ${step.step_id}`, start_ms: last_known ?? Math.min(...times), end_ms: end, failed, seq: step.seq });
      for (const ms of times) note(ms);
    }
    const batch = step.batch_id === null ? undefined : batches.get(step.batch_id);
    if (batch === undefined) continue;
    const starts: number[] = [];
    const ends: number[] = [];
    for (const call of batch.calls) {
      if (call.dispatched_at_ms !== null) {
        starts.push(call.dispatched_at_ms);
        const failed_call = call.terminals[0]?.is_error === true ? 1 : 0;
        add({ kind: 'call', label: `${call.tool_call_id} ${call.name}`, start_ms: call.dispatched_at_ms, end_ms: call.finished_at_ms, failed: failed_call, seq: call.intent?.seq ?? null });
      }
      if (call.held?.held_at_ms != null) {
        add({ kind: 'held', label: `${call.tool_call_id} held by ${call.held.module}`, start_ms: call.held.held_at_ms, end_ms: call.finished_at_ms, failed: 0, seq: call.held.seq });
        note(call.held.held_at_ms);
      }
      if (call.finished_at_ms !== null) ends.push(call.finished_at_ms);
      note(call.dispatched_at_ms);
      note(call.finished_at_ms);
    }
    if (starts.length > 0) {
      const open = batch.calls.some((call) => call.dispatched_at_ms !== null && call.finished_at_ms === null);
      add({ kind: 'batch', label: `batch ${batch.batch_id}`, start_ms: Math.min(...starts), end_ms: open || ends.length === 0 ? null : Math.max(...ends), failed: 0, seq: batch.started_seq });
    }
  }
  return {
    episode: episode.episode,
    times_recorded: first_ms !== null,
    first_ms,
    last_ms: last_known,
    tokens: sumUsage(episode.steps.map((step) => step.usage)),
    failed_attempts,
    spans,
    spans_cut,
  };
}

export function sumUsage(usages: readonly (JsonPayload | null)[]): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const usage of usages) {
    for (const [key, value] of Object.entries(usage ?? {})) if (typeof value === 'number' && Number.isFinite(value)) sums[key] = (sums[key] ?? 0) + value;
  }
  return sums;
}
