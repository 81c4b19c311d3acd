// The §10 words as chips: colour + icon + the word itself, so neither colour nor icon alone carries meaning.
import type { CallClass } from '../../src-shared/replay.js';
import type { SessionStatus } from '../../src-shared/ipc.js';
import { CLASS_MEANING } from '../../src-shared/report.js';

const CLASS_ICON: Record<CallClass, string> = {
  completed: '✓',
  no_dispatch: '⊘',
  indeterminate: '?',
  provider_held: '‖',
  held_successor: '⋯',
  never_left: '↷',
  interrupted: '✕',
  max_steps: '⌛',
};

/** Why a call has its class: one text for the app and the support report. */
export { CLASS_MEANING };

export function ClassChip({ value }: { value: CallClass }) {
  return (
    <span className={`chip class-${value}`} data-testid="class-chip" data-class={value} title={CLASS_MEANING[value]}>
      <span aria-hidden="true">{CLASS_ICON[value]}</span> {value}
    </span>
  );
}

const STATUS_ICON: Record<SessionStatus, string> = {
  refused: '⊗',
  live: '●',
  torn_tail: '✂',
  paused_held: '‖',
  needs_operator: '!',
  finished_unconfirmed: '⚠',
  finished: '✓',
  idle: '○',
  loading: '…',
};

export const STATUS_WORD: Record<SessionStatus, string> = {
  refused: 'refused',
  live: 'live',
  torn_tail: 'torn tail',
  paused_held: 'paused on a held call',
  needs_operator: 'needs operator',
  finished_unconfirmed: 'finished, unconfirmed',
  finished: 'finished',
  idle: 'idle',
  loading: 'loading',
};

/** What each status asks of the reader, for the overview shown before a session is picked. */
export const STATUS_MEANING: Record<SessionStatus, string> = {
  refused: 'The WAL cannot be trusted past a point (damage, or a newer writer): shown up to it, never acted on.',
  live: 'A writer holds the lease and is appending; actions wait until it lets go.',
  torn_tail: 'The last write was cut short: those bytes are not shown. In a state root the next writer truncates them (a recovery keeps a copy beside the WAL); an export is never written.',
  paused_held: 'A provider holds a call and owes its result: the run waits (cancel or seal closes it out).',
  needs_operator: 'A recovery is planned: open it to read the exact records it would append, then approve it.',
  finished_unconfirmed: 'The run ended, but a call\'s side effect is unconfirmed (its outcome is unknown): the owner must check what happened and decide.',
  finished: 'The run ended: nothing to do.',
  idle: 'Nothing is writing it and recovery owes nothing: only a runtime can go on.',
  loading: 'Being read for the first time.',
};

/** A tool result that says the tool failed (is_error): shown beside its class, never as a green completion. */
export function ErrorChip() {
  return (
    <span className="chip result-error" data-testid="error-chip" title="The tool result is marked is_error: the tool reported a failure.">
      <span aria-hidden="true">✕</span> error
    </span>
  );
}

export function StatusChip({ value, title }: { value: SessionStatus; title?: string }) {
  return (
    <span className={`chip status-${value}`} data-testid="status-chip" data-status={value} title={title}>
      <span aria-hidden="true">{STATUS_ICON[value]}</span> {STATUS_WORD[value]}
    </span>
  );
}
