// Words for people: every call class, call plan, resume plan action and acknowledgement finding as a label (a
// chip, a column, a line of the CLI) and a sentence (a tooltip, the support report, a detail). The §10 names
// stay the data (the CLI's JSON, data-* attributes, the tests); these are what a reader is shown. The session
// status words are status.ts's.
import type { DifferenceKind, SideTrust } from './compare.js';
import type { CallClass, Finding, SpanEnd } from './replay.js';
import { STATUS_LABEL, type AttentionKind, type ResumeAction } from './status.js';

export interface Words {
  label: string;
  meaning: string;
}

/** Why a call has its class, in the operator's terms (the app's chips and details, the report, the CLI). */
export const CLASS_WORDS: Record<CallClass, Words> = {
  completed: { label: 'completed', meaning: 'Its result is recorded.' },
  no_dispatch: { label: 'not dispatched', meaning: 'It was never dispatched (denied, invalid or skipped); its record says why.' },
  indeterminate: {
    label: 'outcome unknown',
    meaning: 'It was dispatched (its intent is durable) but no result was recorded: it may have run and had its side effect. Recovery records its outcome as unknown and never sends it again.',
  },
  provider_held: { label: 'held by the provider', meaning: 'A provider holds it and owes its late result: the run stays paused until the result arrives, or the operator cancels or seals.' },
  held_successor: { label: 'waiting behind a held call', meaning: 'A later call of a sequential batch, waiting behind a held call: it was not sent.' },
  never_left: { label: 'never sent', meaning: 'No dispatch intent was recorded: it never left the process, so it cannot have had an effect.' },
  interrupted: { label: 'interrupted', meaning: 'A close-out or a cancel ended it before it produced a result.' },
  max_steps: { label: 'stopped at max steps', meaning: 'Closed because the run reached its step limit.' },
};

/** The Timeline's "errors only" filter (src-shared/timeline-filter.ts): which rows it keeps. */
export const ERRORS_ONLY_WORDS: Words = {
  label: 'errors only',
  meaning: 'Calls that ended in error (is_error) or did not complete (outcome unknown, not dispatched, interrupted, stopped at max steps), steps whose last model attempt failed, runs that finished in error, and anomalies.',
};

/** What a batch planned for a call (tool_batch_started's `plan`). */
export const CALL_PLAN_WORDS: Record<'dispatch' | 'no_dispatch', Words> = {
  dispatch: { label: 'planned to run', meaning: 'The batch planned to dispatch it.' },
  no_dispatch: { label: 'planned not to run', meaning: 'The batch planned not to dispatch it (denied, invalid or skipped).' },
};

/** What resuming a session's last episode does (wal-format §10), as the recovery panel, the report and `walscope
 *  replay` name it; the plan's own message says it of this session. */
export const PLAN_WORDS: Record<ResumeAction, Words> = {
  none: { label: 'nothing to do', meaning: 'The run has its end recorded, or none was started: resuming appends nothing.' },
  finalize: { label: 'finalize', meaning: 'The run reached its natural end but has no run_finished: resuming writes it.' },
  close_out: {
    label: 'close out',
    meaning: 'Calls were dispatched with no recorded result: resuming records their outcome as unknown, never sends them again, and seals the run interrupted.',
  },
  cancel_close_out: { label: 'finish the cancel', meaning: 'A cancel was requested and never finished: resuming closes the batch and seals the run cancelled.' },
  wait_held: { label: 'wait for the held call', meaning: 'A provider holds a call and owes its result: the run stays paused until it arrives; only cancel or seal ends it sooner.' },
  continue: { label: 'a runtime goes on', meaning: 'Recovery owes nothing: only a runtime can go on (a model step or a dispatch is owed); walscope writes nothing.' },
};

/** What the owner found when checking a call of unknown outcome (an acknowledgement, wal-format §6). */
export const FINDING_WORDS: Record<Finding, Words> = {
  applied: { label: 'applied', meaning: 'The side effect happened.' },
  not_applied: { label: 'not applied', meaning: 'The side effect did not happen.' },
  unknown_accepted: { label: 'unknown, accepted', meaning: 'The owner cannot tell, and the run stands as it is.' },
};

/** A resume action's label by name: a report read back keeps any action as text, and one this build has no
 *  words for is shown as it is. */
export function planLabel(action: string): string {
  return Object.hasOwn(PLAN_WORDS, action) ? PLAN_WORDS[action as ResumeAction].label : action;
}

/** An attention queue entry's kind in a few words: a plan's label, or the status it stands for. */
export function attentionLabel(kind: AttentionKind): string {
  return kind === 'finished_unconfirmed' || kind === 'damaged' ? STATUS_LABEL[kind] : PLAN_WORDS[kind].label;
}

/** Tool results recorded as errors, in words that do not read as damage to the WAL: "1 tool error", "8 tool errors". */
export function errorResultsWords(count: number): string {
  return `${count.toLocaleString()} tool error${count === 1 ? '' : 's'}`;
}

/** How a bar of the Time view ended (TimedSpan.ended), in words: its legend, its hover line, its accessible name. */
export const SPAN_END_WORDS: Record<SpanEnd, string> = {
  ok: 'answered or completed',
  error: 'ended in error',
  unknown: 'outcome unknown',
  closed_out: 'closed out (interrupted or max steps)',
  open: 'still open when the WAL ends',
};

/** What a difference between two sessions is about (src-shared/compare.ts), as the compare view and `walscope
 *  diff` label it. */
export const DIFFERENCE_WORDS: Record<DifferenceKind, string> = {
  episode_missing: 'episode only on one side',
  episode_end: 'how the run ended',
  side_cut: 'where a side stops being trusted',
  step_missing: 'step only on one side',
  step_unanswered: 'answered on one side only',
  request: 'request',
  answer_text: 'answer text',
  answer_calls: 'tool calls asked for',
  call_missing: 'call only on one side',
  call_class: 'call class',
  call_outcome: 'call outcome',
  call_output: 'call output',
};

/** How far a compared side can be trusted (CompareSideJson.trust). */
export const TRUST_WORDS: Record<SideTrust, string> = {
  whole: 'read whole',
  torn_tail: 'read whole but for a torn tail never committed',
  refused: 'compared up to where it can be trusted',
  stopped: 'read up to the first divergence',
};
