// The §10 words as chips: colour + icon + the word itself, so neither colour nor icon alone carries meaning.
import type { CallClass } from '../../src-shared/replay.js';
import type { SessionStatus } from '../../src-shared/ipc.js';

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

export function ClassChip({ value }: { value: CallClass }) {
  return (
    <span className={`chip class-${value}`} data-testid="class-chip" data-class={value}>
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
  finished: 'finished',
  idle: 'idle',
  loading: 'loading',
};

export function StatusChip({ value, title }: { value: SessionStatus; title?: string }) {
  return (
    <span className={`chip status-${value}`} data-testid="status-chip" data-status={value} title={title}>
      <span aria-hidden="true">{STATUS_ICON[value]}</span> {STATUS_WORD[value]}
    </span>
  );
}
