// The owner's steers, queued sends and cancels at a trigger point. Each is synced BEFORE it is acknowledged
// (contract §2: steered, queued, run_cancel_requested). Each carries an identity (send_id, submission_id, the
// run's cancel), and an action already in the WAL is not written again: an owner that retries an
// unacknowledged send after a crash sends the same identity, and the runtime must not record it twice.
import assert from 'node:assert/strict';
import type { SessionFold } from '../../src-shared/replay.js';
import type { Payload } from '../../src-shared/wal.js';
import { configPayload } from './config.js';
import { taggedEach, userMessage, type RunContext } from './context.js';
import { RuntimeStateError } from './errors.js';
import { EVENTS_PER_TRIGGER_MAX, QUEUE_LENGTH_MAX } from './limits.js';
import type { OwnerAction } from './ports.js';
import type { EventTrigger } from './script.js';

export function fireOwnerActions(ctx: RunContext, trigger: EventTrigger): void {
  const actions = ctx.ports.owner.actions(ctx.run_id, trigger);
  if (actions.length === 0) return;
  assert.ok(actions.length <= EVENTS_PER_TRIGGER_MAX, `at most ${EVENTS_PER_TRIGGER_MAX} owner actions at one trigger`);
  const fold = ctx.journal.fold();
  for (const action of actions) perform(ctx, fold, action);
}

function perform(ctx: RunContext, fold: SessionFold, action: OwnerAction): void {
  const journal = ctx.journal;
  const episode = fold.episodes.at(-1);
  assert.ok(episode !== undefined && episode.run_id === ctx.run_id, 'owner actions reach the open run');
  let last: { seq: number; type: string } | null = null;
  const append = (type: string, payload: Payload) => {
    last = { seq: journal.append(type, payload), type };
  };
  const requestCancel = (at: 'now' | 'step_boundary') => {
    const already = ctx.cancel.at === 'now' || ctx.cancel.at === at;
    if (already) return;
    append('run_cancel_requested', { run_id: ctx.run_id, at, ts_ms: ctx.clock.now_ms() });
    ctx.cancel.at = at;
  };
  switch (action.kind) {
    case 'steer': {
      if (fold.episodes.some((candidate) => candidate.steers.some((steer) => steer.send_id === action.send_id))) return;
      append('steered', taggedEach(ctx, { send_id: action.send_id, input: [userMessage(action.text)] }, 1, true));
      break;
    }
    case 'queue': {
      if (!fold.queue.some((entry) => entry.submission_id === action.submission_id)) {
        const pending = fold.queue.filter((entry) => entry.state === 'pending').length;
        if (pending >= QUEUE_LENGTH_MAX) throw new RuntimeStateError(`the queue holds ${pending} sends, its limit: send ${action.submission_id} refused`);
        const request = { input: [userMessage(action.text)], config: configPayload(action.config) };
        append('queued', { submission_id: action.submission_id, request, ...(action.delivery === 'interrupt' ? { delivery: 'interrupt' } : {}) });
      }
      // An interrupting send ends the running turn at its next step boundary; its entry drains first.
      if (action.delivery === 'interrupt') requestCancel('step_boundary');
      break;
    }
    case 'cancel':
      requestCancel(action.at);
      break;
  }
  const acked = last as { seq: number; type: string } | null;
  if (acked === null) return;
  journal.show({ kind: 'ack', seq: acked.seq, type: acked.type, detail: `${action.kind} acknowledged for run ${ctx.run_id}` });
  journal.barrier();
}
