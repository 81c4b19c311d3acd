// One model step's tool batch, driven through the contract's §3 barrier protocol:
//   1. plan every call (dispatch, or no_dispatch with a reason; approval cards requested and resolved first);
//   2. tool_batch_started + EVERY intent in ONE barrier, awaited before anything is dispatched;
//   3. dispatch, recording each outcome (Completed, NotSent, SentButOutcomeUnknown, ScopeDrained, held);
//   5. in a batch with an unknown outcome, send nothing more that is not declared safe;
//   6. show a result to the caller only after the barrier that makes it durable;
//   7. tool_batch_finished only once every planned call has exactly one terminal, then turn_finished;
//   8. a provider-held call's record is synced before anything else; in a sequential batch the calls after it
//      wait (their intents already durable) until its late result is synced, then go in order, no new intent.
// A batch is built fresh from a model step, or resumed from the replay library's classification of a batch
// found in the WAL; both then run the same code.
import { HELD_OUTPUT, NOT_SENT_OUTPUT as CLOSE_OUT_NOT_SENT_OUTPUT } from '../replay/close-out.js';
import { intentArgs, stepMessage } from '../replay/payloads.js';
import assert from 'node:assert/strict';
import type { BatchFold, EpisodeFold } from '../../src-shared/replay.js';
import type { Payload } from '../../src-shared/wal.js';
import { tagged, timed, toolUsesOf, type RunContext } from './context.js';
import { CALLS_PER_BATCH_MAX } from './limits.js';
import { fireOwnerActions } from './owner-actions.js';
import type { CallKey, DispatchOutcome, LateDelivery, ToolUse } from './ports.js';
import type { NoDispatchReason } from './script.js';

export type BatchOutcome = 'committed' | 'paused' | 'interrupted' | 'cancelled';

type Progress =
  /** planned dispatchable, no intent yet */
  | 'needs_intent'
  /** planned no_dispatch, its record not yet written */
  | 'needs_no_dispatch'
  /** intent durable, not sent by any process */
  | 'ready'
  /** the provider holds it and owes its late result */
  | 'held'
  /** one terminal written */
  | 'done';

interface CallState {
  use: ToolUse;
  plan: 'dispatch' | 'no_dispatch';
  reason: NoDispatchReason | null;
  safe: boolean;
  progress: Progress;
  held_key: string | null;
}

type CloseCause = 'unknown' | 'cancelled' | 'interrupted';

// The close-out texts are replay's, so a live close and a recovered one write the same bytes.
const NOT_SENT_OUTPUT: Record<CloseCause, string> = {
  unknown: 'the call was not sent: another call of its batch has an unknown outcome',
  cancelled: CLOSE_OUT_NOT_SENT_OUTPUT.cancelled,
  interrupted: CLOSE_OUT_NOT_SENT_OUTPUT.interrupted,
};

export class BatchRun {
  private unknown_seen = false;
  private pause_written: boolean;
  /** Every call_key a provider held in this batch: released once the batch and turn are synced. */
  private readonly held_keys_all: string[] = [];

  private constructor(
    private readonly ctx: RunContext,
    readonly batch_id: string,
    readonly step_id: number,
    readonly sequential: boolean,
    private readonly calls: CallState[],
    private started: boolean,
    private finished_marker: boolean,
    private turn_marker: boolean,
    pause_written: boolean,
  ) {
    assert.ok(calls.length >= 1 && calls.length <= CALLS_PER_BATCH_MAX, `a batch holds 1..${CALLS_PER_BATCH_MAX} calls`);
    this.pause_written = pause_written;
  }

  /** A new batch for a finished model step. Approval cards already in the WAL (a resumed plan) are reused. */
  static planned(ctx: RunContext, step_id: number, uses: readonly ToolUse[], episode: EpisodeFold | null): BatchRun {
    const calls = uses.map((use) => planCall(ctx, use, episode));
    const sequential = ctx.ports.policy.sequential(ctx.run_id, uses);
    return new BatchRun(ctx, batchIdFor(ctx.run_id, step_id), step_id, sequential, calls, false, false, false, false);
  }

  /** A batch found in the WAL, classified by the replay library. Indeterminate calls never reach here (the
   *  library closes them out) unless the test-only plant re-sends them. */
  static resumed(ctx: RunContext, batch: BatchFold, episode: EpisodeFold): BatchRun {
    const step = episode.steps.find((candidate) => candidate.step_id === batch.step_id);
    assert.ok(step !== undefined && step.seq !== null && batch.step_id !== null, `batch ${batch.batch_id} belongs to a finished step`);
    const payloads = ctx.journal.payloads;
    const uses = new Map(toolUsesOf(stepMessage(step, payloads)).map((use) => [use.id, use]));
    const calls = batch.calls.map((call): CallState => {
      const use = uses.get(call.tool_call_id) ?? { id: call.tool_call_id, name: call.name, input: intentArgs(call, payloads) };
      const reason = call.plan === 'no_dispatch' ? noDispatchReason(ctx, use, episode) : null;
      const state: CallState = { use, plan: call.plan, reason, safe: call.safe, progress: 'done', held_key: call.held?.call_key ?? null };
      if (call.terminals.length > 0) return state;
      switch (call.class) {
        case 'never_left':
          return { ...state, progress: call.plan === 'dispatch' ? 'needs_intent' : 'needs_no_dispatch' };
        case 'provider_held':
          return { ...state, progress: 'held' };
        case 'held_successor':
          return { ...state, progress: 'ready' };
        case 'indeterminate':
          assert.ok(ctx.plants.redispatch_indeterminate === true, `call ${call.tool_call_id} is indeterminate: it must be closed out, never re-sent`);
          return { ...state, progress: 'ready' };
        default:
          assert.fail(`call ${call.tool_call_id} of class ${call.class} has no terminal`);
      }
    });
    const held_since = batch.calls.reduce((highest, call) => Math.max(highest, call.held?.seq ?? 0), 0);
    const paused = episode.pauses.some((pause) => pause.reason === 'tool_held' && pause.seq > held_since);
    const run = new BatchRun(ctx, batch.batch_id, batch.step_id, batch.sequential, calls, true, batch.finished_seq !== null, step.turn_finished_seq !== null, paused);
    run.unknown_seen = batch.calls.some((call) => call.terminals[0]?.outcome === 'unknown');
    for (const call of batch.calls) if (call.held !== null) run.held_keys_all.push(call.held.call_key);
    return run;
  }

  /** call_keys of the calls the providers still hold. */
  get held_keys(): string[] {
    return this.calls.filter((call) => call.progress === 'held').map((call) => call.held_key!);
  }

  run(): BatchOutcome {
    const resumed = this.started;
    this.writeStart();
    // A result durable before a crash may have been followed by an owner action that never became durable.
    if (resumed) for (const call of this.calls) if (call.progress === 'done') fireOwnerActions(this.ctx, { after_result: call.use.id });
    return this.dispatchAll();
  }

  /** Late results for held calls: each synced before any later call is sent (the sequential sync rule). */
  deliver(deliveries: readonly LateDelivery[]): BatchOutcome {
    for (const delivery of deliveries) {
      const call = this.calls.find((candidate) => candidate.progress === 'held' && candidate.held_key === delivery.call_key);
      if (call === undefined) continue;
      this.ctx.journal.append('late_result', { call_key: delivery.call_key, status: 'completed', output: delivery.output });
      this.result(call, { outcome: 'completed', output: delivery.output, is_error: false }, true);
    }
    return this.dispatchAll();
  }

  /** Step 2: tool_batch_started and every missing intent (and no-dispatch terminal) in one barrier. */
  private writeStart(): void {
    const journal = this.ctx.journal;
    const owed = this.calls.filter((call) => call.progress === 'needs_intent' || call.progress === 'needs_no_dispatch');
    if (this.started && owed.length === 0) return;
    if (!this.started) {
      journal.append('tool_batch_started', {
        batch_id: this.batch_id,
        step_id: this.step_id,
        sequential: this.sequential,
        planned_calls: this.calls.map((call) => ({ tool_call_id: call.use.id, name: call.use.name, plan: call.plan, ...(call.safe ? { safe: true } : {}) })),
      });
      this.started = true;
    }
    for (const call of owed) {
      if (call.progress === 'needs_intent') {
        journal.append('tool_dispatch_intent', timed(this.ctx, { batch_id: this.batch_id, tool_call_id: call.use.id, args: call.use.input }, 'dispatched_at_ms'));
        call.progress = 'ready';
      } else {
        const seq = journal.append('tool_no_dispatch', tagged(this.ctx, timed(this.ctx, { batch_id: this.batch_id, tool_call_id: call.use.id, reason: call.reason! }, 'dispatched_at_ms')));
        journal.show({ kind: 'tool_result', seq, type: 'tool_no_dispatch', detail: `${call.use.id}: not dispatched (${call.reason})` });
        call.progress = 'done';
      }
    }
    const first = this.calls.find((call) => call.progress === 'ready');
    if (this.ctx.plants.dispatch_before_intent_barrier === true && first !== undefined) this.dispatch(first);
    journal.barrier();
  }

  private dispatchAll(): BatchOutcome {
    for (const call of this.calls) {
      if (this.ctx.cancel.at === 'now') break;
      if (call.progress !== 'ready') continue;
      // Sequential sync rule: nothing after a held call is sent until the held call has its terminal.
      if (this.sequential && this.calls.some((other) => other.progress === 'held')) break;
      // §3 step 5: after an unknown outcome, only calls declared safe may still run (never in sequence).
      if (this.unknown_seen && (this.sequential || !call.safe) && this.ctx.plants.ignore_unknown_stop !== true) {
        this.closeUnsent(call, 'unknown');
        continue;
      }
      this.dispatch(call);
    }
    return this.settle();
  }

  private dispatch(call: CallState): void {
    const key: CallKey = { session: this.ctx.journal.session_id, run_id: this.ctx.run_id, batch_id: this.batch_id, tool_call_id: call.use.id };
    const outcome = this.ctx.ports.plane.dispatch(key, call.use.name, call.use.input);
    if (outcome.kind === 'held') return this.hold(call, outcome);
    this.result(call, resultFields(outcome), !this.sequential);
    if (outcome.kind === 'unknown' || (outcome.kind === 'scope_drained' && outcome.sent)) this.unknown_seen = true;
  }

  /** Step 8: the held record is synced before anything else happens. */
  private hold(call: CallState, outcome: Extract<DispatchOutcome, { kind: 'held' }>): void {
    this.ctx.journal.append('tool_call_provider_held', {
      batch_id: this.batch_id,
      tool_call_id: call.use.id,
      call_key: outcome.call_key,
      module: outcome.module,
      reason: outcome.reason,
      detail_digest: Buffer.from(outcome.detail_digest, 'hex'),
      held_at_ms: this.ctx.clock.now_ms(),
      sequential: this.sequential,
    });
    this.ctx.journal.barrier();
    call.progress = 'held';
    call.held_key = outcome.call_key;
    this.held_keys_all.push(outcome.call_key);
    this.pause_written = false;
  }

  /** Appends a call's terminal; with `sync`, its own barrier (a sequential batch syncs at the commit). */
  private result(call: CallState, fields: Payload, sync: boolean): void {
    const journal = this.ctx.journal;
    const seq = journal.append('tool_result', tagged(this.ctx, timed(this.ctx, { batch_id: this.batch_id, tool_call_id: call.use.id, ...fields }, 'finished_at_ms')));
    journal.show({ kind: 'tool_result', seq, type: 'tool_result', detail: `${call.use.id}: ${String(fields['outcome'])}` });
    call.progress = 'done';
    if (sync) journal.barrier();
    fireOwnerActions(this.ctx, { after_result: call.use.id });
  }

  private closeUnsent(call: CallState, cause: CloseCause): void {
    this.result(call, { outcome: 'interrupted', output: NOT_SENT_OUTPUT[cause], is_error: true }, false);
  }

  private closeHeld(call: CallState, requested: 'cancelled' | 'interrupted'): void {
    // The mixed-crash rule (contract §2, §4): beside an unknown outcome a held call closes interrupted.
    const cause = this.unknown_seen ? 'interrupted' : requested;
    const reason = cause === 'cancelled' ? 'provider_held_cancelled' : 'provider_held_interrupted';
    const output = HELD_OUTPUT[cause];
    this.result(call, { outcome: 'interrupted', output, is_error: true, reason }, false);
  }

  private settle(): BatchOutcome {
    if (this.ctx.cancel.at === 'now') {
      this.closeOpen('cancelled');
      this.commit();
      return this.unknown_seen ? 'interrupted' : 'cancelled';
    }
    if (this.calls.some((call) => call.progress === 'held')) {
      // The indeterminate handling wins over a held call: close it out and interrupt the run.
      if (this.unknown_seen) {
        this.closeOpen('interrupted');
        this.commit();
        return 'interrupted';
      }
      if (!this.pause_written) this.ctx.journal.append('run_paused', { run_id: this.ctx.run_id, reason: 'tool_held', ts_ms: this.ctx.clock.now_ms() });
      this.pause_written = true;
      this.ctx.journal.barrier();
      return 'paused';
    }
    this.commit();
    return this.unknown_seen ? 'interrupted' : 'committed';
  }

  private closeOpen(cause: 'cancelled' | 'interrupted'): void {
    for (const call of this.calls) {
      if (call.progress === 'held') this.closeHeld(call, cause);
      else if (call.progress === 'ready') this.closeUnsent(call, cause);
    }
  }

  /** Step 7: the commit marker after exactly one terminal per planned call, then the turn boundary. */
  private commit(): void {
    assert.ok(this.calls.every((call) => call.progress === 'done'), `batch ${this.batch_id} commits only with every call terminal`);
    const journal = this.ctx.journal;
    if (!this.finished_marker) journal.append('tool_batch_finished', { batch_id: this.batch_id });
    if (!this.turn_marker) journal.append('turn_finished', { step_id: this.step_id });
    this.finished_marker = true;
    this.turn_marker = true;
    journal.barrier();
    // Intake registrations of held calls are pruned only now that the batch and the turn are synced.
    for (const call_key of this.held_keys_all) this.ctx.ports.plane.release(call_key);
  }
}

export function batchIdFor(run_id: string, step_id: number): string {
  return `${run_id}.b${step_id}`;
}

function resultFields(outcome: Exclude<DispatchOutcome, { kind: 'held' }>): Payload {
  switch (outcome.kind) {
    case 'completed':
      return { outcome: 'completed', output: outcome.output, is_error: false };
    case 'not_sent':
      return { outcome: 'completed', output: outcome.output, is_error: true };
    case 'unknown':
      return { outcome: 'unknown', output: 'unknown_outcome', is_error: true };
    case 'scope_drained':
      // Sent: the side effect may have applied (unknown, the run stops Interrupted). Not sent: route_drained,
      // a completed error that is never re-dispatched.
      return outcome.sent
        ? { outcome: 'unknown', output: 'unknown_outcome', is_error: true, reason: outcome.reason }
        : { outcome: 'completed', output: 'route_drained', is_error: true, reason: outcome.reason };
  }
}

/** Step 1: capability validation and policy, then the approval card where the call needs one. */
function planCall(ctx: RunContext, use: ToolUse, episode: EpisodeFold | null): CallState {
  const plan = ctx.ports.policy.plan(ctx.run_id, use);
  const base: CallState = { use, plan: plan.plan, reason: plan.reason, safe: plan.safe, progress: 'needs_intent', held_key: null };
  if (plan.plan === 'no_dispatch') return { ...base, progress: 'needs_no_dispatch' };
  if (!plan.needs_approval) return base;
  const decision = approve(ctx, use.id, episode);
  return decision === 'approved' ? base : { ...base, plan: 'no_dispatch', reason: 'denied', progress: 'needs_no_dispatch' };
}

/** The card is requested and resolved, each synced before it is shown; a decision already durable stands. */
function approve(ctx: RunContext, tool_call_id: string, episode: EpisodeFold | null): string {
  const card = episode?.approvals.find((candidate) => candidate.tool_call_id === tool_call_id);
  if (card?.decision != null) return card.decision;
  const journal = ctx.journal;
  if (card?.requested_seq == null) {
    journal.append('approval_requested', { tool_call_id, run_id: ctx.run_id });
    journal.barrier();
  }
  const decision = ctx.ports.policy.decide(ctx.run_id, tool_call_id);
  journal.append('approval_resolved', { tool_call_id, decision });
  journal.barrier();
  return decision;
}

function noDispatchReason(ctx: RunContext, use: ToolUse, episode: EpisodeFold): NoDispatchReason {
  const card = episode.approvals.find((candidate) => candidate.tool_call_id === use.id);
  if (card?.decision === 'denied') return 'denied';
  return ctx.ports.policy.plan(ctx.run_id, use).reason ?? 'policy_blocked';
}
