// One run (episode), advanced one unit at a time: a model step with its batch, a late delivery into a paused
// batch, or the run's seal. The same loop serves a fresh run and one resumed from the WAL: a resumed loop only
// starts from what the replay library says is durable (steps finished, the batch and its calls' classes).
//
// At every step boundary: the owner's actions first, then a cancel seals the run (no model step after a
// cancel), then max_steps, then the boundary records and the model step. The one-step crash bound holds
// because every turn ends in a barrier (turn_finished) before the next model step starts.
import assert from 'node:assert/strict';
import type { EpisodeFold } from '../../src-shared/replay.js';
import type { Payload } from '../../src-shared/wal.js';
import { stepMessage } from '../replay/payloads.js';
import { currentBatch, lastFinishedStep } from '../replay/state.js';
import { BatchRun, type BatchOutcome } from './batch.js';
import { toolUsesOf, type RunContext } from './context.js';
import { STEPS_PER_RUN_MAX } from './limits.js';
import { runModelStep, writeFinalNotice, writeStepBoundary } from './model-step.js';
import { fireOwnerActions } from './owner-actions.js';

export type Advance = 'continued' | 'paused' | 'finished';

export type SealReason = 'completed' | 'interrupted' | 'cancelled' | 'max_steps' | 'context_ceiling' | 'error';

export class RunLoop {
  private state: 'running' | 'paused' | 'finished' = 'running';
  private batch: BatchRun | null = null;

  private constructor(
    readonly ctx: RunContext,
    private next_step_id: number,
    private steps_taken: number,
  ) {
    assert.ok(ctx.config.max_steps <= STEPS_PER_RUN_MAX, 'max_steps within the runtime limit');
  }

  static started(ctx: RunContext): RunLoop {
    return new RunLoop(ctx, 1, 0);
  }

  /** A loop over an episode found open in the WAL, which the replay library left to a runtime to go on with. */
  static resumed(ctx: RunContext, episode: EpisodeFold): RunLoop {
    const finished = episode.steps.filter((step) => step.seq !== null);
    const next_step_id = finished.reduce((highest, step) => Math.max(highest, step.step_id), 0) + 1;
    const loop = new RunLoop(ctx, next_step_id, finished.length);
    const batch = currentBatch(episode, ctx.journal.sums);
    const last = lastFinishedStep(episode, ctx.journal.sums);
    if (batch !== null) {
      const step = episode.steps.find((candidate) => candidate.step_id === batch.step_id);
      const committed = batch.finished_seq !== null && step?.turn_finished_seq != null;
      if (!committed) loop.batch = BatchRun.resumed(ctx, batch, episode);
    } else if (last !== null && !last.natural_end && last.batch_id === null) {
      // The step finished with tool calls but its batch never started: plan it now (nothing was sent).
      loop.batch = BatchRun.planned(ctx, last.step_id, toolUsesOf(stepMessage(last, ctx.journal.payloads)), episode);
    }
    return loop;
  }

  get run_id(): string {
    return this.ctx.run_id;
  }

  get finished(): boolean {
    return this.state === 'finished';
  }

  get paused(): boolean {
    return this.state === 'paused';
  }

  advance(): Advance {
    if (this.state === 'finished') return 'finished';
    if (this.state === 'paused') return this.advancePaused();
    if (this.batch !== null) return this.afterBatch(this.batch.run());
    return this.step();
  }

  private step(): Advance {
    const step_id = this.next_step_id;
    fireOwnerActions(this.ctx, { before_step: step_id });
    // At a step boundary, now and step_boundary both mean: no further model step.
    if (this.ctx.cancel.at !== null) return this.seal('cancelled', null);
    if (this.steps_taken >= this.ctx.config.max_steps) return this.seal('max_steps', step_id - 1);
    const boundary = writeStepBoundary(this.ctx, step_id);
    if (boundary.kind === 'ceiling_refused') return this.seal('context_ceiling', null);
    if (boundary.kind === 'view_refused') return this.seal('error', null, { kind: 'view_not_assembled', message: boundary.message });
    const result = runModelStep(this.ctx, step_id);
    this.next_step_id += 1;
    this.steps_taken += 1;
    if (result.uses.length === 0) return this.seal('completed', step_id);
    this.batch = BatchRun.planned(this.ctx, step_id, result.uses, null);
    return this.afterBatch(this.batch.run());
  }

  private advancePaused(): Advance {
    assert.ok(this.batch !== null, 'a paused run waits on a batch');
    const held = this.batch.held_keys;
    const deliveries = this.ctx.ports.plane.deliverable().filter((delivery) => held.includes(delivery.call_key));
    if (deliveries.length === 0) return 'paused';
    this.state = 'running';
    return this.afterBatch(this.batch.deliver(deliveries));
  }

  private afterBatch(outcome: BatchOutcome): Advance {
    switch (outcome) {
      case 'committed':
        this.batch = null;
        return 'continued';
      case 'paused':
        this.state = 'paused';
        return 'paused';
      case 'interrupted':
      case 'cancelled':
        this.batch = null;
        return this.seal(outcome, null);
    }
  }

  /** run_finished, synced before the terminal is shown and before the lease may be released (§5). */
  private seal(reason: SealReason, last_step_id: number | null, error: Payload | null = null): Advance {
    const journal = this.ctx.journal;
    if (last_step_id !== null && last_step_id >= 1) writeFinalNotice(this.ctx, last_step_id);
    const payload = runFinishedPayload(reason, journal.fold().episodes.at(-1)!);
    const seq = journal.append('run_finished', error === null ? payload : { ...payload, error });
    journal.show({ kind: 'run_finished', seq, type: 'run_finished', detail: `${this.ctx.run_id}: ${reason}` });
    journal.barrier();
    this.state = 'finished';
    return 'finished';
  }
}

/** run_finished with the episode's summed model usage. */
export function runFinishedPayload(reason: string, episode: EpisodeFold): Payload {
  let input_tokens = 0;
  let output_tokens = 0;
  for (const step of episode.steps) {
    const usage = step.usage ?? {};
    if (typeof usage['input_tokens'] === 'number') input_tokens += usage['input_tokens'];
    if (typeof usage['output_tokens'] === 'number') output_tokens += usage['output_tokens'];
  }
  return { reason, usage: { input_tokens, output_tokens } };
}
