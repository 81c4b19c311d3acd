// Recovery plans for a session's last episode: what resume, cancel, seal and stop would append, record by
// record and barrier by barrier, so an operator reads it before approving and the action writes exactly it.
// Every plan is computed from the WAL alone; a plan for a finished episode is empty, which is what makes each
// action idempotent.
import type {
  BatchFold,
  EpisodeFold,
  JsonPayload,
  PlannedRecord,
  RecoveryKind,
  RecoveryPlan,
  ResumeAction,
  SessionFold,
  StepFold,
} from '../../src-shared/replay.js';
import { hasClass, isCloseOut, isPending } from './classify.js';
import { closeBatchRecords, type CloseCause } from './close-out.js';
import { sharedSteps } from './resumable.js';
import { FullSums, Table, type SumSpec, type Sums } from './sums.js';
import { currentBatch, lastFinishedStep, owesTurnFinished } from './state.js';
import { replayedCounts } from './transcript.js';

type Group = { type: string; payload: JsonPayload }[];

export type OperatorPlanKind = 'resume' | 'cancel' | 'seal';

/** Plans made from a fold snapshot, per kind: the session view shows the resume plan and offers every kind's
 *  (and compares each with resume's) on each refresh of its header, and a snapshot does not change once made. */
const PLANS = new Table<SessionFold, Partial<Record<OperatorPlanKind, RecoveryPlan>>>('plans');

export function planFor(fold: SessionFold, kind: OperatorPlanKind, sums: Sums = new FullSums()): RecoveryPlan {
  const plans = sums.table(PLANS);
  let made = plans.get(fold);
  if (made === undefined) plans.set(fold, (made = {}));
  return (made[kind] ??= PLANNERS[kind](fold, sums));
}

/** The contract's resume (§4): finalize a natural end, close out indeterminate calls, finish a cancel or a
 *  close-out a crash cut short, keep waiting on held calls, or leave the run to a runtime. */
export function planResume(fold: SessionFold, sums: Sums = new FullSums()): RecoveryPlan {
  const episode = fold.episodes.at(-1);
  if (episode === undefined) return emptyPlan(fold, 'resume', null, 'the session has no episode: nothing to resume', sums);
  if (episode.finished !== null) return emptyPlan(fold, 'resume', episode, `episode ${episode.episode} is finished (${episode.finished.reason}): nothing to do`, sums);
  const batch = currentBatch(episode, sums);
  if (episode.cancel_requests.length > 0) return resumeCloseOut(fold, episode, batch, 'cancel_close_out', 'cancelled', sums);
  if (batch !== null && (hasClass(batch, 'indeterminate') || batch.calls.some((call) => isCloseOut(call.class)))) {
    return resumeCloseOut(fold, episode, batch, 'close_out', closeOutCause(batch), sums);
  }
  if (batch !== null && hasClass(batch, 'provider_held') && waitsOnlyOnHeld(episode, batch)) return waitHeld(fold, episode, batch, sums);
  if (lastFinishedStep(episode, sums)?.natural_end === true && batch === null) {
    const records = [[{ type: 'run_finished', payload: runFinished('completed', episode, sums) }]];
    return plan(fold, 'resume', episode, 'finalize', 'the run ended naturally; write its run_finished without calling the model', records, sums);
  }
  return continuePlan(fold, episode, batch, sums);
}

/** The operator's cancel: run_cancel_requested{at: now} synced first, then the batch closed and the run sealed
 *  Cancelled (Interrupted when a call is indeterminate: its side effect may have applied). */
export function planCancel(fold: SessionFold, sums: Sums = new FullSums()): RecoveryPlan {
  const episode = fold.episodes.at(-1);
  if (episode === undefined || episode.finished !== null) return emptyPlan(fold, 'cancel', episode ?? null, 'no open episode: nothing to cancel', sums);
  const batch = currentBatch(episode, sums);
  const request = episode.cancel_requests.some((entry) => entry.at === 'now') ? [] : [{ type: 'run_cancel_requested', payload: { run_id: episode.run_id, at: 'now' } }];
  const groups = [request, ...closeAndSeal(episode, batch, 'cancelled', sums)];
  return plan(fold, 'cancel', episode, 'cancel_close_out', `cancel run ${episode.run_id}: close the current batch and seal the episode`, groups, sums);
}

/** The operator's forced close: every pending call gets its terminal, then run_finished{interrupted}. */
export function planSeal(fold: SessionFold, sums: Sums = new FullSums()): RecoveryPlan {
  const episode = fold.episodes.at(-1);
  if (episode === undefined || episode.finished !== null) return emptyPlan(fold, 'seal', episode ?? null, 'no open episode: nothing to seal', sums);
  const groups = closeAndSeal(episode, currentBatch(episode, sums), 'interrupted', sums);
  return plan(fold, 'seal', episode, 'close_out', `seal episode ${episode.episode} Interrupted without another model step`, groups, sums);
}

/** The runtime's stop or max-steps stop with pending calls: synthetic results, commit, then run_finished. */
export function planStop(fold: SessionFold, reason: 'interrupted' | 'max_steps', sums: Sums = new FullSums()): RecoveryPlan {
  const episode = fold.episodes.at(-1);
  if (episode === undefined || episode.finished !== null) return emptyPlan(fold, 'stop', episode ?? null, 'no open episode: nothing to stop', sums);
  const groups = closeAndSeal(episode, currentBatch(episode, sums), reason, sums);
  return plan(fold, 'stop', episode, 'close_out', `stop run ${episode.run_id} (${reason})`, groups, sums);
}

function resumeCloseOut(fold: SessionFold, episode: EpisodeFold, batch: BatchFold | null, action: ResumeAction, cause: CloseCause, sums: Sums): RecoveryPlan {
  const [close, seal] = closeAndSeal(episode, batch, cause, sums);
  const started = { type: 'resume_started', payload: resumeStarted(fold, episode, batch, sums) };
  const message =
    action === 'cancel_close_out'
      ? 'a cancel was requested: close the current batch and seal the episode without another model step'
      : 'calls may have had their side effect: record their outcome as unknown, close the batch and seal the episode Interrupted; the owner decides whether to continue';
  return plan(fold, 'resume', episode, action, message, [[started, ...close], seal], sums);
}

/** A close-out's two barriers: the batch's terminals and markers, then the seal in a barrier of its own. */
function closeAndSeal(episode: EpisodeFold, batch: BatchFold | null, cause: CloseCause, sums: Sums): [Group, Group] {
  const close = batch === null ? [] : closeBatchRecords(episode, batch, cause, sums);
  const indeterminate = batch !== null && hasClass(batch, 'indeterminate');
  const reason = indeterminate ? 'interrupted' : cause;
  return [close, [{ type: 'run_finished', payload: runFinished(reason, episode, sums) }]];
}

/** A close-out a crash cut short goes on with the outcome it started with (recognition reads the outcome). */
function closeOutCause(batch: BatchFold): CloseCause {
  const stopped = hasClass(batch, 'max_steps') && !hasClass(batch, 'indeterminate');
  return stopped ? 'max_steps' : 'interrupted';
}

/** Paused tool_held: every open call is provider-held or waits behind one, and no approval card is open. */
function waitsOnlyOnHeld(episode: EpisodeFold, batch: BatchFold): boolean {
  if (episode.approvals.some((card) => card.requested_seq !== null && card.resolved_seq === null)) return false;
  const firstHeld = batch.calls.findIndex((call) => call.class === 'provider_held');
  return batch.calls.filter(isPending).every((call) => {
    if (call.class === 'provider_held' || call.class === 'held_successor') return true;
    return batch.sequential && call.index > firstHeld;
  });
}

function waitHeld(fold: SessionFold, episode: EpisodeFold, batch: BatchFold, sums: Sums): RecoveryPlan {
  const heldSince = heldSeqMax(batch);
  const paused = episode.pauses.some((pause) => pause.reason === 'tool_held' && pause.seq > heldSince);
  const records = paused ? [] : [[{ type: 'run_paused', payload: { run_id: episode.run_id, reason: 'tool_held' } }]];
  const message = 'a provider holds a call and owes its late result: the run stays paused (tool_held); cancel or seal closes it out';
  return plan(fold, 'resume', episode, 'wait_held', message, records, sums);
}

/** The latest provider hold's seq (0 when none): a loop, since spread arguments overflow past ~100k calls. */
function heldSeqMax(batch: BatchFold): number {
  let seq = 0;
  for (const call of batch.calls) seq = Math.max(seq, call.held?.seq ?? 0);
  return seq;
}

function continuePlan(fold: SessionFold, episode: EpisodeFold, batch: BatchFold | null, sums: Sums): RecoveryPlan {
  const redone = batch?.calls.filter((call) => call.class === 'never_left' && call.plan === 'dispatch').map((call) => call.tool_call_id) ?? [];
  const result = plan(fold, 'resume', episode, 'continue', `only a runtime can go on: ${owed(episode, batch, redone, sums)} is owed; walscope writes nothing`, [], sums);
  result.redone = redone;
  return result;
}

function owed(episode: EpisodeFold, batch: BatchFold | null, redone: string[], sums: Sums): string {
  if (episode.approvals.some((card) => card.requested_seq !== null && card.resolved_seq === null)) return 'an approval decision';
  if (redone.length > 0) return `the dispatch of ${redone.join(', ')}`;
  if (batch !== null && batch.calls.some(isPending)) return 'a terminal for each pending call';
  if (batch !== null && batch.finished_seq === null) return 'the batch commit (tool_batch_finished)';
  if (batch !== null && owesTurnFinished(episode, batch, sums)) return `the turn boundary (turn_finished) of step ${batch.step_id}, then a model step`;
  const last = lastFinishedStep(episode, sums);
  if (batch === null && last !== null && !last.natural_end) return `the tool batch of step ${last.step_id}`;
  return 'a model step';
}

function resumeStarted(fold: SessionFold, episode: EpisodeFold, batch: BatchFold | null, sums: Sums): JsonPayload {
  return {
    episode: episode.episode,
    resumed_from_seq: fold.last_seq,
    replayed: replayedCounts(fold, episode, sums),
    redone: [],
    indeterminate: indeterminateIds(batch),
  };
}

function indeterminateIds(batch: BatchFold | null): string[] {
  return batch?.calls.filter((call) => call.class === 'indeterminate').map((call) => call.tool_call_id) ?? [];
}

/** run_finished with the episode's summed model usage (numeric fields), when any step recorded usage. */
function runFinished(reason: string, episode: EpisodeFold, sums: Sums): JsonPayload {
  const usage = summedUsage(episode, sums);
  return usage === null ? { reason } : { reason, usage };
}

/** The sum of every step's numeric usage fields, or null when no step recorded one. Keys are WAL text, so the
 *  sums live in a Map ("constructor" or "__proto__" is an ordinary field, not an Object.prototype member), and a
 *  field whose sum a CBOR number cannot hold exactly (an integer past 2^53 - 1, or not finite) is left out:
 *  usage only informs, and a wrong count or a refused close-out would both be worse (docs/replay.md). */
function summedUsage(episode: EpisodeFold, sums: Sums): JsonPayload | null {
  const usage: JsonPayload = Object.create(null) as JsonPayload;
  for (const [key, sum] of sums.sum(USAGE_SUMS, episode)) {
    if (sum === null) continue;
    Object.defineProperty(usage, key, { value: sum, enumerable: true, writable: true, configurable: true });
  }
  return Object.keys(usage).length === 0 ? null : usage;
}

/** The sums step by step, taken on from the last snapshot's for a live episode (views/incremental-sums.ts). null: a
 *  partial sum was already inexact, so no later term can make the field right again. */
const USAGE_SUMS: SumSpec<StepFold, Map<string, number | null>> = {
  items: (episode) => episode.steps,
  shared: sharedSteps,
  initial: () => new Map(),
  copy: (sums) => new Map(sums),
  add(sums, step) {
    for (const [key, value] of Object.entries(step.usage ?? {})) {
      if (typeof value !== 'number') continue;
      const sum = sums.has(key) ? sums.get(key)! : 0;
      sums.set(key, sum === null || !isExactNumber(sum + value) ? null : sum + value);
    }
  },
};

/** A number the WAL holds exactly: a safe integer, or a finite non-integral float (wal-format §3). */
function isExactNumber(value: number): boolean {
  return Number.isInteger(value) ? Number.isSafeInteger(value) : Number.isFinite(value);
}

function plan(fold: SessionFold, kind: RecoveryKind, episode: EpisodeFold, action: ResumeAction, message: string, groups: Group[], sums: Sums): RecoveryPlan {
  const records = episode.tagged ? withRunnerTags(inBarriers(groups), fold.next_tag) : inBarriers(groups);
  return {
    kind,
    action,
    episode: episode.episode,
    message,
    replayed: replayedCounts(fold, episode, sums),
    redone: [],
    indeterminate: indeterminateIds(currentBatch(episode, sums)),
    records,
  };
}

/** The groups in order, each made durable by a barrier of its own; an empty group takes no barrier. */
function inBarriers(groups: Group[]): PlannedRecord[] {
  const records: PlannedRecord[] = [];
  for (const group of groups.filter((candidate) => candidate.length > 0)) {
    const barrier = records.length === 0 ? 0 : records.at(-1)!.barrier + 1;
    for (const record of group) records.push({ ...record, barrier });
  }
  return records;
}

/** runner-tags/v1: each planned record holding a message part gets the next tag, in WAL order, so every writer
 *  that carries out the plan (the CLI, the app, the runtime) appends the same bytes. A close-out's tool_results
 *  are the only records with a part that a plan writes; the writer gates them runner-tags/v1 itself. */
function withRunnerTags(records: PlannedRecord[], next_tag: number): PlannedRecord[] {
  let tag = next_tag;
  return records.map((record) => (record.type === 'tool_result' ? { ...record, payload: { ...record.payload, tags: tag++ } } : record));
}

function emptyPlan(fold: SessionFold, kind: RecoveryKind, episode: EpisodeFold | null, message: string, sums: Sums): RecoveryPlan {
  if (episode !== null) return { ...plan(fold, kind, episode, 'none', message, [], sums), indeterminate: [] };
  return { kind, action: 'none', episode: null, message, replayed: { messages: 0, model_steps: 0, tool_results: 0 }, redone: [], indeterminate: [], records: [] };
}

const PLANNERS: Record<OperatorPlanKind, (fold: SessionFold, sums: Sums) => RecoveryPlan> = { resume: planResume, cancel: planCancel, seal: planSeal };
