// The §10 words as chips: colour + icon + a word for people, so neither colour nor icon alone carries meaning. The
// words, their meanings and their tones are src-shared/status.ts's and words.ts's: the CLI, the report and the
// fleet say the same. The §10 name stays in data-class / data-status.
import type { CallClass } from '../../src-shared/replay.js';
import { STATUS_TONE, statusLabel, type ListedStatus } from '../../src-shared/status.js';
import { CLASS_WORDS } from '../../src-shared/words.js';

const CLASS_ICON: Record<CallClass, string> = {
  completed: '✓',
  no_dispatch: '⊘',
  indeterminate: '?',
  provider_held: '‖',
  held_successor: '⋯',
  never_left: '↷',
  interrupted: '✕',
  max_steps: '⊣',
};

export function ClassChip({ value }: { value: CallClass }) {
  return (
    <span className={`chip class-${value}`} data-testid="class-chip" data-class={value} title={CLASS_WORDS[value].meaning}>
      <span aria-hidden="true">{CLASS_ICON[value]}</span> {CLASS_WORDS[value].label}
    </span>
  );
}

const STATUS_ICON: Record<ListedStatus, string> = {
  not_a_wal: '⊘',
  newer_writer: '⇡',
  damaged: '⊗',
  unreadable: '⊗',
  too_large: '⊗',
  needs_full_scan: '⋯',
  running: '●',
  needs_operator: '!',
  paused_held: '‖',
  idle: '○',
  empty: '∅',
  completed: '✓',
  failed: '✕',
  cancelled: '⊘',
  interrupted: '✕',
  max_steps: '⊣',
  context_ceiling: '⤒',
  ended: '■',
  finished_unconfirmed: '⚠',
  finished_checked: '☑',
  loading: '…',
};

/** A tool result that says the tool failed (is_error): shown beside its class, never as a green completion. */
export function ErrorChip() {
  return (
    <span className="chip result-error" data-testid="error-chip" title="The tool result is marked is_error: the tool reported a failure.">
      <span aria-hidden="true">✕</span> error
    </span>
  );
}

/** A session's status word (src-shared/status.ts): `finishReason` names an end this build has no word for. */
export function StatusChip({ value, title, finishReason = null }: { value: ListedStatus; title?: string; finishReason?: string | null }) {
  return (
    <span className={`chip status-${value} tone-${STATUS_TONE[value]}`} data-testid="status-chip" data-status={value} title={title}>
      <span aria-hidden="true">{STATUS_ICON[value]}</span> {statusLabel(value, finishReason)}
    </span>
  );
}

/** A torn tail beside the status (integrity, not a state of the run). */
export function TornTailChip({ tail }: { tail: { offset: number; bytes: number } }) {
  return (
    <span className="chip tone-warn" data-testid="torn-tail-chip" title={`${tail.bytes} byte(s) at offset ${tail.offset} were never committed: not shown`}>
      <span aria-hidden="true">✂</span> torn tail
    </span>
  );
}
