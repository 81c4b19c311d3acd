// What a session's fold means for the person scanning a list: derived over the fold's result (never inside
// it), so every ending reads under its own name (src-shared/status.ts), a run that finished holding an
// unknown-outcome call is "finished, unconfirmed" until the owner records what they found, and a WAL cut short
// or an export frozen mid-run says what is known of its last episode.
import type { Acknowledgement, BatchFold, CallFold, EpisodeFold, OpenCall, RecoveryEntry, RunSignal, SessionFold, UnconfirmedCall } from '../../src-shared/replay.js';
import { attentionOf, endStatus, isRefusedStatus, refusedStatus, sessionStatus, statusLabel, type ResumeAction } from '../../src-shared/status.js';
import type { LeaseTenure, TornTail, WalErrorInfo } from '../../src-shared/wal.js';
import { FINDING_WORDS } from '../../src-shared/words.js';
import { isPending } from './classify.js';
import { sharedBatches } from './resumable.js';
import { FullSums, type SumSpec, type Sums } from './sums.js';
import { currentBatch, lastFinishedStep } from './state.js';

/** What the reader said about the WAL's end. */
export interface ReadEnd {
  torn_tail: TornTail | null;
  error: WalErrorInfo | null;
}

/** Everything besides the fold that decides how the run stands. */
export interface RunFacts {
  end: ReadEnd;
  /** A copy nobody writes: an episode without run_finished is not "running" there, and advice is for support. */
  is_export: boolean;
  /** The resume plan's action (`none` for a refused WAL, which plans nothing). */
  resume_action: ResumeAction;
  /** The plan's message: why the action, for `needs_operator`, `paused_held` and `idle`. */
  resume_message: string;
  /** The WAL's recovery log (replay/recoveries.ts): its acknowledgements close unknown outcomes. */
  recoveries: readonly RecoveryEntry[];
  /** A live writer holds the lease, in the reader's words (who), or null. */
  live: string | null;
}

/** Error texts of a run_finished shown at most this long (a provider's message can be a page). */
const ERROR_MESSAGE_CHARS_MAX = 400;

export function runSignal(fold: SessionFold, facts: RunFacts, sums: Sums = new FullSums()): RunSignal {
  const episode = fold.episodes.at(-1) ?? null;
  const error_results = countErrorResults(fold, sums);
  const unconfirmed = episode === null ? [] : withAcknowledgements(unconfirmedCalls(episode, sums), facts.recoveries);
  const finish = episode?.finished == null ? null : finishOf(episode.finished.reason, episode.finished.error);
  const open_end = episode === null || episode.finished !== null ? null : facts.end.error !== null || facts.end.torn_tail !== null ? 'cut' : facts.is_export ? 'copy' : null;
  const refused = facts.end.error !== null;
  const last_durable = episode !== null && (open_end !== null || refused) ? lastDurableState(episode, sums) : null;
  const status = sessionStatus({
    refusal: facts.end.error,
    live: facts.live !== null,
    resume_action: facts.resume_action,
    episodes: fold.episodes.length,
    finish_reason: episode?.finished == null ? undefined : episode.finished.reason,
    unknown_outcomes: unconfirmed.length,
    acknowledged: unconfirmed.filter((call) => call.acknowledged !== null).length,
  });
  const open_calls = episode === null || episode.finished !== null ? [] : openCalls(currentBatch(episode, sums));
  const signal: RunSignal = { status, detail: '', finish, attention: null, unconfirmed, open_end, last_durable, error_results, open_calls };
  return { ...signal, detail: detailOf(signal, facts, episode), attention: attentionOf(status, facts.resume_action, facts.is_export) };
}

/** The open batch's calls with no terminal, held or in flight (a batch is bounded: its planned calls). */
function openCalls(batch: BatchFold | null): OpenCall[] {
  const open: OpenCall[] = [];
  for (const call of batch?.calls ?? []) {
    if (call.terminals.length > 0) continue;
    if (call.held !== null) open.push({ tool_call_id: call.tool_call_id, name: call.name, state: 'held', seq: call.held.seq, held_at_ms: call.held.held_at_ms });
    else if (call.intent !== null) open.push({ tool_call_id: call.tool_call_id, name: call.name, state: 'in_flight', seq: call.intent.seq, held_at_ms: null });
  }
  return open;
}

/** Who holds a live lease, in words: the one sentence every surface says of a running session. */
export function liveWords(tenure: LeaseTenure | null): string {
  return tenure === null ? 'a live writer holds the lease' : `written by pid ${tenure.pid} on ${tenure.host} (lease epoch ${tenure.epoch}, ${tenure.writer})`;
}

/** A session's archive refusal (engine/archive-reader.ts, or verify's report of it) in the WAL's refusal terms:
 *  verify refuses the session for it, and every surface says so alike. */
export function archiveRefusal(error: { kind: 'archive_corruption' | 'archive_malformed' | 'archive_scan_bound' | 'newer_writer' | 'io'; offset: number | null; message: string }): WalErrorInfo {
  const kind = error.kind === 'archive_malformed' ? 'archive_corruption' : error.kind === 'archive_scan_bound' ? 'tail_scan_bound' : error.kind;
  return { kind, offset: error.offset, seq: null, features: [], message: `the session's archive is refused (verify refuses the session; its live WAL reads): ${error.message}` };
}

/** The run as verify refuses it for something outside the WAL's own read (its session's archive). */
export function refusedRun(run: RunSignal, refusal: WalErrorInfo, is_export: boolean): RunSignal {
  const status = refusedStatus(refusal.kind);
  return { ...run, status, detail: refusal.message, attention: attentionOf(status, 'none', is_export) };
}

/** The run while a live writer holds the lease (`who` says which). */
export function liveRun(run: RunSignal, who: string): RunSignal {
  if (isRefusedStatus(run.status)) return run;
  return { ...run, status: 'running', detail: who, attention: null };
}

function detailOf(signal: RunSignal, facts: RunFacts, episode: EpisodeFold | null): string {
  const durable = signal.last_durable === null ? '' : `; last durable state: ${signal.last_durable}`;
  if (isRefusedStatus(signal.status)) return `${facts.end.error!.message}${durable}`;
  switch (signal.status) {
    case 'running':
      return facts.live!;
    case 'needs_operator':
    case 'paused_held':
      return `${facts.resume_message}${durable}`;
    case 'idle':
      return signal.open_end === 'copy' ? `this copy ends with the run open${durable}` : facts.resume_message;
    case 'empty':
      return 'no run was started in this WAL';
    case 'finished_unconfirmed':
      return `the run finished (${endWords(signal)}) but ${unconfirmedCount(signal.unconfirmed.filter((call) => call.acknowledged === null))} an unknown outcome: its side effect is unconfirmed; check it and record what you found`;
    case 'finished_checked':
      return `the run finished (${endWords(signal)}); each unknown outcome was checked: ${signal.unconfirmed.map(findingWords).join('; ')}`;
    default:
      return endDetail(signal, episode!);
  }
}

/** A finished run's detail beside its end state's label: for an error its kind and message, else where it ended. */
function endDetail(signal: RunSignal, episode: EpisodeFold): string {
  const finish = signal.finish!;
  const where = `episode ${episode.episode} (run ${episode.run_id ?? 'without a run_id'}) finished at seq ${episode.finished!.seq}`;
  if (finish.reason !== 'error') return finish.reason === null ? `${where}, its run_finished recording no reason` : `${where}, reason "${finish.reason}"`;
  const kind = finish.error_kind ?? 'no error kind recorded';
  return `${finish.error_message === null ? kind : `${kind} — ${finish.error_message}`} (${where})`;
}

/** "failed: provider_error — rate limited", "completed", "ended: budget_exhausted". */
function endWords(signal: RunSignal): string {
  const finish = signal.finish!;
  const label = statusLabel(endStatus(finish.reason), finish.reason);
  if (finish.reason !== 'error') return label;
  const kind = finish.error_kind ?? 'no error kind recorded';
  return finish.error_message === null ? `${label}: ${kind}` : `${label}: ${kind} — ${finish.error_message}`;
}

function findingWords(call: UnconfirmedCall): string {
  const found = call.acknowledged!;
  return `${call.tool_call_id} (${call.name}) ${FINDING_WORDS[found.finding].label}, by ${found.operator}`;
}

function finishOf(reason: string | null, error: unknown): RunSignal['finish'] {
  const map = typeof error === 'object' && error !== null && !Array.isArray(error) ? (error as Record<string, unknown>) : null;
  const textOf = (key: string): string | null => {
    const value = map !== null && Object.hasOwn(map, key) ? map[key] : undefined;
    return typeof value === 'string' ? value.slice(0, ERROR_MESSAGE_CHARS_MAX) : null;
  };
  return { reason, error_kind: textOf('kind'), error_message: textOf('message') };
}

/** Each call with the latest acknowledgement naming it (its batch and call id), if any. */
function withAcknowledgements(calls: UnconfirmedCall[], recoveries: readonly RecoveryEntry[]): UnconfirmedCall[] {
  if (calls.length === 0) return calls;
  const latest = new Map<string, Acknowledgement>();
  for (const entry of recoveries) {
    if (entry.action !== 'acknowledge' || entry.call === null || entry.finding === null) continue;
    latest.set(callKey(entry.call.batch_id, entry.call.tool_call_id), {
      seq: entry.seq,
      finding: entry.finding,
      operator: entry.operator,
      os_user: entry.os_user,
      via: entry.via,
      reason: entry.reason,
      ts_ms: entry.ts_ms,
    });
  }
  return calls.map((call) => ({ ...call, acknowledged: latest.get(callKey(call.batch_id, call.tool_call_id)) ?? null }));
}

function callKey(batch_id: string, tool_call_id: string): string {
  return JSON.stringify([batch_id, tool_call_id]);
}

/** Calls of the episode whose outcome is unknown: closed out as unknown, or dispatched without a terminal. */
export function unconfirmedCalls(episode: EpisodeFold, sums: Sums): UnconfirmedCall[] {
  return sums.sum(BATCH_SIGNALS, episode).unconfirmed.slice();
}

/** Over the batches. */
const BATCH_SIGNALS: SumSpec<BatchFold, { unconfirmed: UnconfirmedCall[]; error_results: number }> = {
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
        acknowledged: null,
      });
    }
  },
};

/** "edit_file c2.txt may have been applied — check c2.txt". */
export function mayHave(call: CallFold): string {
  const hint = call.intent?.target ?? null;
  if (hint === null) return `${call.name} may have been applied — check its effect before running it again`;
  return `${call.name} ${hint} may have been applied — check ${hint}`;
}

/** The last episode's progress as far as durable records show it, in one sentence. */
export function lastDurableState(episode: EpisodeFold, sums: Sums): string {
  const parts = [`seq ${episode.last_seq}`];
  const step = lastFinishedStep(episode, sums);
  parts.push(step === null ? 'no model step finished' : `step ${step.step_id} finished${step.natural_end ? ' with a final answer (natural end)' : ''}`);
  const batch = currentBatch(episode, sums);
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

function unconfirmedCount(calls: UnconfirmedCall[]): string {
  return calls.length === 1 ? `call ${calls[0]!.tool_call_id} (${calls[0]!.name}) has` : `${calls.length} calls have`;
}

function countErrorResults(fold: SessionFold, sums: Sums): number {
  let count = 0;
  for (const episode of fold.episodes) count += sums.sum(BATCH_SIGNALS, episode).error_results;
  return count;
}

/** The word an episode gets in a listing: its fold state, except that the last episode of a cut WAL or of an
 *  export is not "running" (nothing is running it, or what followed is lost). */
export function episodeWord(episode: EpisodeFold, signal: RunSignal, last_episode: number): string {
  if (episode.episode !== last_episode || episode.finished !== null) return episode.state;
  if (signal.open_end === 'cut') return 'cut short';
  if (signal.open_end === 'copy') return 'open in this copy';
  return episode.state;
}
