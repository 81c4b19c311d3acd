// The contract's §4 classification table, per planned call, in source order. The order matters only in a
// sequential batch: a call there is sent only after its predecessor resolves, so an intent planned after a
// provider-held call, or after a close-out terminal (which sends nothing), is a held successor and was never
// sent. Behind a DELIVERED held terminal (completed) nothing durable separates a crash before its send from one
// after it, so the same intent is ordinary indeterminate.
import { NONE, withItem } from '../../src-shared/arrays.js';
import type { BatchFold, CallClass, CallFold, Live } from '../../src-shared/replay.js';

/** Classifies a batch the folder has not handed out yet, in place. */
export function classifyBatch(batch: Live<BatchFold>): void {
  let blocker: Live<CallFold> | null = null;
  for (const call of batch.calls) {
    call.behind = null;
    call.successors = NONE;
    call.class = terminalClass(call) ?? openClass(call, batch.sequential ? blocker : null);
    if (call.class === 'held_successor' && blocker !== null) {
      call.behind = blocker.tool_call_id;
      blocker.successors = withItem(blocker.successors, call.tool_call_id);
    }
    if (blocksSuccessors(call.class)) blocker = call;
  }
  batch.mixed_crash = hasClass(batch, 'indeterminate') && hasClass(batch, 'provider_held');
}

/** The class a call's first terminal gives it; null while it has none. */
function terminalClass(call: CallFold): CallClass | null {
  const terminal = call.terminals[0];
  if (terminal === undefined) return null;
  if (terminal.type === 'tool_no_dispatch') return 'no_dispatch';
  if (terminal.outcome === 'unknown') return 'indeterminate';
  if (terminal.outcome === 'interrupted' || terminal.outcome === 'max_steps') return terminal.outcome;
  return 'completed';
}

/** A call without a terminal. A planned no_dispatch call whose record was lost never left either. */
function openClass(call: CallFold, blocker: CallFold | null): CallClass {
  if (call.held !== null) return 'provider_held';
  if (call.intent === null) return 'never_left';
  return blocker === null ? 'indeterminate' : 'held_successor';
}

function blocksSuccessors(value: CallClass): boolean {
  return value === 'provider_held' || isCloseOut(value);
}

/** interrupted and max_steps terminals are written only by a close-out (cancel, stop, seal, resume). */
export function isCloseOut(value: CallClass): boolean {
  return value === 'interrupted' || value === 'max_steps';
}

export function hasClass(batch: BatchFold, value: CallClass): boolean {
  return batch.calls.some((call) => call.class === value);
}

/** A call that still needs a terminal before its batch can commit. */
export function isPending(call: CallFold): boolean {
  return call.terminals.length === 0;
}
