// The records that close a batch: one terminal for every planned call that has none, then tool_batch_finished
// and turn_finished where they are missing. A call that already has a terminal never gets a second one, which
// is what makes every close-out safe to repeat after a crash between its barriers.
import type { BatchFold, CallFold, EpisodeFold, JsonPayload } from '../../src-shared/replay.js';
import { isPending } from './classify.js';
import { owesTurnFinished } from './state.js';
import type { Sums } from './sums.js';

/** Why the batch is being closed: it decides the outcome of calls that never left and of held calls. */
export type CloseCause = 'interrupted' | 'cancelled' | 'max_steps';

/** The text a model reads on its next send for a call that has no recorded result (contract §4). */
export const UNKNOWN_OUTPUT = 'the call has no recorded result';

export const NOT_SENT_OUTPUT: Record<CloseCause, string> = {
  interrupted: 'the call was not sent: the run was interrupted',
  cancelled: 'the call was not sent: the run was cancelled',
  max_steps: 'the call was not sent: the run reached its step limit',
};

export const HELD_OUTPUT: Record<CloseCause, string> = {
  interrupted: 'the provider held the call and its result was never delivered: the run was interrupted',
  cancelled: 'the provider held the call and its result was never delivered: the run was cancelled',
  max_steps: 'the provider held the call and its result was never delivered: the run was stopped',
};

/** Close-out reasons of a provider-held call (contract §2, after the record table). */
const HELD_REASON: Record<CloseCause, string> = {
  interrupted: 'provider_held_interrupted',
  cancelled: 'provider_held_cancelled',
  max_steps: 'provider_held_stopped',
};

export function closeBatchRecords(episode: EpisodeFold, batch: BatchFold, cause: CloseCause, sums: Sums): { type: string; payload: JsonPayload }[] {
  const records = batch.calls.filter(isPending).map((call) => ({ type: 'tool_result', payload: closingResult(batch, call, cause) }));
  if (batch.finished_seq === null) records.push({ type: 'tool_batch_finished', payload: { batch_id: batch.batch_id } });
  if (owesTurnFinished(episode, batch, sums)) records.push({ type: 'turn_finished', payload: { step_id: batch.step_id } });
  return records;
}

/** The terminal a pending call gets. An intent without a terminal is indeterminate: it MAY have run, so it
 *  gets `unknown`, never a claim that it was not sent. */
function closingResult(batch: BatchFold, call: CallFold, cause: CloseCause): JsonPayload {
  const base = { batch_id: batch.batch_id, tool_call_id: call.tool_call_id };
  if (call.class === 'indeterminate') return { ...base, outcome: 'unknown', output: UNKNOWN_OUTPUT, is_error: true };
  if (call.class === 'provider_held') {
    // The mixed-crash rule (contract §2 and §4): beside an indeterminate call the held call is closed
    // interrupted / provider_held_interrupted, whatever closes the batch, and the run is sealed Interrupted.
    const held_cause: CloseCause = batch.mixed_crash ? 'interrupted' : cause;
    return { ...base, outcome: outcomeOf(held_cause), output: HELD_OUTPUT[held_cause], is_error: true, reason: HELD_REASON[held_cause] };
  }
  return { ...base, outcome: outcomeOf(cause), output: NOT_SENT_OUTPUT[cause], is_error: true };
}

function outcomeOf(cause: CloseCause): 'interrupted' | 'max_steps' {
  return cause === 'max_steps' ? 'max_steps' : 'interrupted';
}
