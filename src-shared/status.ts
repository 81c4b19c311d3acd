// The one status word of a session (wal-format §10 "Session status") and the one queue of sessions that wait on
// a person ("Needs attention"): decided here, from facts every surface has, and named here for people. The CLI's
// JSON (`run.status`, `attention`), the app's list, overview and header, the support report, the fleet list and
// `fleet ls` all take their word, label and meaning from this file, so no two of them can disagree.
import type { WalErrorKind } from './wal.js';

/** What resuming a session's last episode does (wal-format §10). */
export type ResumeAction = 'none' | 'finalize' | 'close_out' | 'cancel_close_out' | 'wait_held' | 'continue';

export const RESUME_ACTIONS: readonly ResumeAction[] = ['none', 'finalize', 'close_out', 'cancel_close_out', 'wait_held', 'continue'];

/** A WAL walscope will not act on. `unreadable` (the file cannot be read: permissions, a missing `wal`),
 *  `too_large` (intact, but more than walscope folds) and `needs_full_scan` (a damaged frame whose tail the
 *  default scan could not prove, in the budget it has: `verify --full-scan` can) are this project's words where
 *  §10 names none. */
export type RefusedStatus = 'not_a_wal' | 'newer_writer' | 'damaged' | 'unreadable' | 'too_large' | 'needs_full_scan';

/** A finished run, by its run_finished reason. `ended`: a reason this build has no word for (kept by name in the
 *  label, `statusLabel`), or none recorded. */
export type EndStatus = 'completed' | 'failed' | 'cancelled' | 'interrupted' | 'max_steps' | 'context_ceiling' | 'ended';

export type SessionStatus =
  | RefusedStatus
  | 'running'
  | 'needs_operator'
  | 'paused_held'
  | 'idle'
  | 'empty'
  | EndStatus
  | 'finished_unconfirmed'
  | 'finished_checked';

/** What a list shows: the status, or `loading` while a WAL is read for the first time (the app's alone). */
export type ListedStatus = SessionStatus | 'loading';

/** Every listed status, most urgent first: the order of the overview, the filters and a sort by status. */
export const LISTED_STATUSES: readonly ListedStatus[] = [
  'damaged',
  'not_a_wal',
  'unreadable',
  'newer_writer',
  'needs_full_scan',
  'too_large',
  'needs_operator',
  'paused_held',
  'finished_unconfirmed',
  'running',
  'failed',
  'interrupted',
  'cancelled',
  'max_steps',
  'context_ceiling',
  'ended',
  'finished_checked',
  'idle',
  'empty',
  'completed',
  'loading',
];

export function isListedStatus(value: unknown): value is ListedStatus {
  return typeof value === 'string' && (LISTED_STATUSES as readonly string[]).includes(value);
}

const REFUSED: ReadonlySet<ListedStatus> = new Set<RefusedStatus>(['not_a_wal', 'newer_writer', 'damaged', 'unreadable', 'too_large', 'needs_full_scan']);

export function isRefusedStatus(status: ListedStatus): status is RefusedStatus {
  return REFUSED.has(status);
}

/** The word of a refused read, by the reader's (or the archive's) refusal kind. */
export function refusedStatus(kind: WalErrorKind | 'archive_malformed' | 'archive_scan_bound'): RefusedStatus {
  switch (kind) {
    case 'not_a_wal':
      return 'not_a_wal';
    case 'newer_writer':
      return 'newer_writer';
    case 'non_tail_corruption':
    case 'malformed_frame':
    case 'sequence_error':
    case 'archive_corruption':
    case 'archive_malformed':
    case 'archive_member_damaged':
      return 'damaged';
    case 'too_large':
      return 'too_large';
    case 'tail_scan_bound':
    case 'archive_scan_bound':
      return 'needs_full_scan';
    case 'io':
    case 'not_archived':
      return 'unreadable';
  }
}

/** The run_finished reasons that have a word of their own. */
const END_STATUS: Readonly<Record<string, EndStatus>> = {
  completed: 'completed',
  error: 'failed',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
  max_steps: 'max_steps',
  context_ceiling: 'context_ceiling',
};

export function endStatus(reason: string | null): EndStatus {
  return reason !== null && Object.hasOwn(END_STATUS, reason) ? END_STATUS[reason]! : 'ended';
}

/** What decides a session's word, in §10's order. */
export interface StatusFacts {
  /** The reader's refusal of the WAL, or the archive's (verify refuses the session for either). */
  refusal: { kind: WalErrorKind | 'archive_malformed' | 'archive_scan_bound' } | null;
  /** A live writer holds the lease. */
  live: boolean;
  /** The resume plan's action for the last episode. */
  resume_action: ResumeAction;
  episodes: number;
  /** The last episode's run_finished reason; undefined while it has none. */
  finish_reason: string | null | undefined;
  /** The last episode's calls whose outcome the WAL leaves unknown, and how many of them are acknowledged. */
  unknown_outcomes: number;
  acknowledged: number;
}

export function sessionStatus(facts: StatusFacts): SessionStatus {
  if (facts.refusal !== null) return refusedStatus(facts.refusal.kind);
  if (facts.live) return 'running';
  switch (facts.resume_action) {
    case 'finalize':
    case 'close_out':
    case 'cancel_close_out':
      return 'needs_operator';
    case 'wait_held':
      return 'paused_held';
    case 'continue':
      return 'idle';
    case 'none':
      break;
  }
  if (facts.episodes === 0 || facts.finish_reason === undefined) return 'empty';
  if (facts.unknown_outcomes > facts.acknowledged) return 'finished_unconfirmed';
  if (facts.unknown_outcomes > 0) return 'finished_checked';
  return endStatus(facts.finish_reason);
}

/** Why a session is in the attention queue (§10): the resume action it waits for, a run paused on a held call,
 *  an unknown outcome nobody has checked, or a damaged WAL. */
export type AttentionKind = 'finalize' | 'close_out' | 'cancel_close_out' | 'wait_held' | 'finished_unconfirmed' | 'damaged';

export interface Attention {
  kind: AttentionKind;
  /** What it waits for and what closes it, in one or two sentences. */
  message: string;
}

/** The queue entry's kind, or null: nothing enters that nothing here can close (a running session, a WAL that
 *  needs a newer walscope, a file that is not a WAL). */
export function attentionKind(status: ListedStatus, resume_action: ResumeAction): AttentionKind | null {
  switch (status) {
    case 'damaged':
      return 'damaged';
    case 'needs_operator':
      return resume_action === 'finalize' || resume_action === 'close_out' || resume_action === 'cancel_close_out' ? resume_action : null;
    case 'paused_held':
      return 'wait_held';
    case 'finished_unconfirmed':
      return 'finished_unconfirmed';
    default:
      return null;
  }
}

/** What each kind waits for and what closes it, where the session is a state root's (an action here closes it)
 *  or an export's (a copy: it is closed on the customer's state root, or by a good copy). */
export const ATTENTION_MEANING: Record<AttentionKind, { state_root: string; export: string }> = {
  finalize: {
    state_root: 'The run reached its natural end but has no run_finished: Resume writes it (finalize).',
    export: 'The run reached its natural end but this copy has no run_finished: Resume on the customer\'s state root writes it.',
  },
  close_out: {
    state_root: 'Calls were dispatched with no recorded result: check their side effects, then Resume closes them out (sealed interrupted) or Cancel or Seal ends the run.',
    export: 'Calls were dispatched with no recorded result: on the customer\'s state root, check their side effects, then resume, cancel or seal.',
  },
  cancel_close_out: {
    state_root: 'A cancel was requested and never finished: Resume (or Cancel) closes the batch and seals the run cancelled.',
    export: 'A cancel was requested and never finished in this copy: resume or cancel on the customer\'s state root closes it.',
  },
  wait_held: {
    state_root: 'A provider holds a call and owes its result: the run waits for it; only Cancel or Seal closes it before the late result.',
    export: 'A provider holds a call and owes its result: on the customer\'s state root the run waits for it; only cancel or seal closes it sooner.',
  },
  finished_unconfirmed: {
    state_root: 'The run finished, but a call\'s outcome is unknown: check what it did, then record what you found (Record what you found…, walscope acknowledge).',
    export: 'The run finished, but a call\'s outcome is unknown: the owner checks what it did and records it on the customer\'s state root (walscope acknowledge).',
  },
  damaged: {
    state_root: 'Committed data is damaged (in the WAL or the session\'s archive): nothing after the damage is used. Restore the damaged file from a good copy; walscope never repairs it.',
    export: 'Committed data is damaged: nothing after the damage is used. Ask the customer for the file again with its size and SHA-256, to tell damage in transfer from damage on their disk.',
  },
};

export function attentionOf(status: ListedStatus, resume_action: ResumeAction, is_export: boolean): Attention | null {
  const kind = attentionKind(status, resume_action);
  return kind === null ? null : { kind, message: ATTENTION_MEANING[kind][is_export ? 'export' : 'state_root'] };
}

/** The person's word for each status; `statusLabel` adds an unnamed end's own reason. */
export const STATUS_LABEL: Record<ListedStatus, string> = {
  not_a_wal: 'not a WAL',
  newer_writer: 'needs a newer walscope',
  damaged: 'damaged',
  unreadable: 'unreadable',
  too_large: 'too large to show',
  needs_full_scan: 'needs a full scan',
  running: 'running',
  needs_operator: 'needs operator',
  paused_held: 'paused on a held call',
  idle: 'idle',
  empty: 'empty',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
  max_steps: 'stopped at max steps',
  context_ceiling: 'stopped at the context ceiling',
  ended: 'ended',
  finished_unconfirmed: 'finished, unconfirmed',
  finished_checked: 'finished, checked',
  loading: 'loading',
};

/** The label, with an unnamed end's reason by its own name ("ended: budget_exhausted"). */
export function statusLabel(status: ListedStatus, finish_reason: string | null = null): string {
  if (status !== 'ended') return STATUS_LABEL[status];
  return finish_reason === null ? 'ended (no reason recorded)' : `ended: ${finish_reason}`;
}

/** What each status means and asks of the reader: the overview's legend, the docs' table. */
export const STATUS_MEANING: Record<ListedStatus, string> = {
  not_a_wal: 'The file is not a WAL at all (its first bytes are not the frame magic): the wrong file, never a cut one. Nothing is read from it.',
  newer_writer: 'Written by a newer runtime: a version or feature this walscope does not know. Shown up to it; a newer walscope reads the rest. Nothing is damaged.',
  damaged: 'Committed data is damaged (corruption before intact frames, a malformed frame, a sequence error): nothing after it is used, nothing is acted on.',
  unreadable: 'The file cannot be read (permissions, a missing WAL): the cause is named; nothing is known of the run.',
  too_large: 'The WAL may be intact, but a record holds more than walscope keeps in memory to show it: walscope verify still checks it whole.',
  needs_full_scan: 'A frame is damaged, and more candidate frames follow it than walscope checks by default: whether it is a torn tail or damage is not proven yet. walscope verify --full-scan checks every one.',
  running: 'A writer holds the lease and is appending; actions wait until it lets go.',
  needs_operator: 'A recovery is planned: open it to read the exact records it would append, then approve it.',
  paused_held: 'A provider holds a call and owes its result: the run waits (cancel or seal closes it out).',
  idle: 'Nothing is writing it and recovery owes nothing: only a runtime can go on (a model step or a dispatch is owed).',
  empty: 'No run was started in this WAL.',
  completed: 'The run completed. Nothing to do.',
  failed: 'The run ended in an error: its kind and message say which.',
  cancelled: 'The run was cancelled.',
  interrupted: 'The run was sealed interrupted: a close-out ended it before its work was done.',
  max_steps: 'The run was stopped at its step limit (max_steps) before a final answer.',
  context_ceiling: 'The run was stopped because its context reached the ceiling.',
  ended: 'The run finished with a reason this walscope has no word for (shown by its own name), or none.',
  finished_unconfirmed: 'The run ended, but a call\'s side effect is unconfirmed (its outcome is unknown): the owner must check what happened and record it.',
  finished_checked: 'The run ended with calls of unknown outcome, and the owner checked each one: the findings and who recorded them are in its history.',
  loading: 'Being read for the first time.',
};

/** How a status reads at a glance: `completed` is the only good one (green). */
export type StatusTone = 'good' | 'bad' | 'warn' | 'held' | 'info' | 'neutral';

export const STATUS_TONE: Record<ListedStatus, StatusTone> = {
  not_a_wal: 'bad',
  newer_writer: 'info',
  damaged: 'bad',
  unreadable: 'bad',
  too_large: 'warn',
  needs_full_scan: 'warn',
  running: 'info',
  needs_operator: 'warn',
  paused_held: 'held',
  idle: 'neutral',
  empty: 'neutral',
  completed: 'good',
  failed: 'bad',
  cancelled: 'neutral',
  interrupted: 'warn',
  max_steps: 'neutral',
  context_ceiling: 'neutral',
  ended: 'neutral',
  finished_unconfirmed: 'warn',
  finished_checked: 'neutral',
  loading: 'neutral',
};

/** What to do about a refused WAL or a torn tail, for a state root (the session acted on here) and for an export
 *  (a copy a customer sent: the advice is support's). One text for the CLI, the app and the report. */
export const WHAT_TO_DO: Record<RefusedStatus | 'torn_tail', { state_root: string; export: string }> = {
  not_a_wal: {
    state_root: 'this file is not a WAL: check what wrote it there; walscope never repairs, truncates or replaces it',
    export: 'this is not the session\'s WAL: ask the customer for the file named "wal" in sessions/<session id>/ under their state root',
  },
  newer_writer: {
    state_root: 'open it with a walscope that knows the named version or features; nothing is damaged and nothing was changed',
    export: 'ask which runtime version wrote it, and open it with a walscope that knows the named version or features; nothing is damaged',
  },
  damaged: {
    state_root: 'restore the WAL from a good copy; walscope never repairs or truncates committed data',
    export: 'ask the customer for the file again with its size and SHA-256 (e.g. `sha256sum wal`): a different digest means the copy was damaged in transfer, the same means their disk holds the damage',
  },
  unreadable: {
    state_root: 'check that the path exists and is readable by this user, then look again',
    export: 'check that the file exists and is readable by this user, then open it again',
  },
  too_large: {
    state_root: 'walscope verify checks it whole; nothing was changed',
    export: 'walscope verify checks it whole; nothing was changed',
  },
  needs_full_scan: {
    state_root: 'run walscope verify --full-scan on it to check every candidate frame; nothing was changed, and no writer truncates it meanwhile',
    export: 'run walscope verify --full-scan on it to check every candidate frame; nothing was changed',
  },
  torn_tail: {
    state_root: 'nothing committed is lost; the next writer opening the session under its lease (a recovery here, or the runtime) truncates those bytes, keeping a copy of them beside the WAL',
    export: 'this copy may have been cut in transfer: ask the customer for the size and SHA-256 of their WAL (e.g. `sha256sum wal`) and compare; if theirs is larger, ask for it again, whole. An export is never written',
  },
};
