// The demo state root's sessions: stable ids the app and its tests rely on, each with the state `walscope
// replay` reports for it. The demo's own tests check every entry through the replay library.
import type { EpisodeState, ResumeAction } from '../../src-shared/replay.js';
import type { SessionStatus } from '../../src-shared/status.js';
import type { ArchiveReport, WalErrorKind } from '../../src-shared/wal.js';

export interface DemoExpectation {
  /** What a user meets in this session. */
  shows: string;
  /** The reader's verdict: 'ok', a torn tail that is discarded, or the refusal's kind. */
  integrity: 'ok' | 'torn_tail' | WalErrorKind;
  /** The replay's resume action (a refused WAL plans none). */
  resume: ResumeAction;
  /** The last episode's state; null when the WAL is refused. */
  state: EpisodeState | null;
  /** The last episode's run_finished reason; null when it has none. */
  finished: string | null;
  /** The session's status word (wal-format §10) when nobody writes it, as `verify` and the list say it. */
  status: SessionStatus;
  /** Sessions with history (wal-format §11): the lineages newest first, and what `verify` says of the archive. */
  history?: {
    lineages: readonly ('live' | 'sealed' | 'deleted' | 'missing')[];
    index: ArchiveReport['index'];
    torn_tail: boolean;
    archive_error: 'archive_corruption' | null;
  };
}

export const DEMO_SESSIONS = {
  finished: {
    shows: 'a run that finished: a parallel batch after a retried provider attempt, then a text answer',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'completed',
    status: 'completed',
  },
  'natural-end': {
    shows: 'a natural end without run_finished: the process died between the final answer and its terminal',
    integrity: 'ok',
    resume: 'finalize',
    state: 'running',
    finished: null,
    status: 'needs_operator',
  },
  indeterminate: {
    shows: 'an indeterminate call awaiting close-out: dispatched, its side effect applied, no result recorded',
    integrity: 'ok',
    resume: 'close_out',
    state: 'running',
    finished: null,
    status: 'needs_operator',
  },
  'parallel-unknown': {
    shows: 'a parallel batch with an unknown outcome: the side-effecting call after it was stopped, the safe one ran, the run was interrupted',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'interrupted',
    status: 'finished_unconfirmed',
  },
  'held-sequential': {
    shows: 'a sequential batch behind a provider-held call: the run is paused tool_held, the next call waits',
    integrity: 'ok',
    resume: 'wait_held',
    state: 'paused',
    finished: null,
    status: 'paused_held',
  },
  cancelled: {
    shows: 'a run cancelled now in the middle of a sequential batch',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'cancelled',
    status: 'cancelled',
  },
  'max-steps': {
    shows: 'a run stopped by max_steps while the model kept calling tools',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'max_steps',
    status: 'max_steps',
  },
  'steered-queued': {
    shows: 'a steer, a queued send and an interrupting send: the interrupt cancels at the step boundary and drains first',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'completed',
    status: 'completed',
  },
  approvals: {
    shows: 'approval cards (one approved, one denied), a schema-invalid call, and tool times',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'completed',
    status: 'completed',
  },
  'compaction-ceiling': {
    shows: 'two compaction views superseding each other with a notice at every boundary, ceiling waits that end in permission and one that ends in refusal, and a stale view that no longer assembles, refused at its step',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'error',
    status: 'failed',
  },
  'coding-agent': {
    shows: 'a coding agent at work: thinking (reasoning with its signature, one redacted) before its steps, three reads at once, long shell commands with coloured test output, an edit, and a screenshot (an image) in a tool result',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'completed',
    status: 'completed',
  },
  'long-run': {
    shows: 'a run of 300 steps: a codemod and its tests, one package a step, each with its times, then a summary',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'completed',
    status: 'completed',
  },
  'torn-tail': {
    shows: 'a torn tail: the process died part-way through writing run_finished',
    integrity: 'torn_tail',
    resume: 'finalize',
    state: 'running',
    finished: null,
    status: 'needs_operator',
  },
  'newer-writer': {
    shows: 'a WAL refused as NewerWriter: its last frame requires a feature this build does not know',
    integrity: 'newer_writer',
    resume: 'none',
    state: null,
    finished: null,
    status: 'newer_writer',
  },
  'corrupt-middle': {
    shows: 'non-tail corruption: a damaged frame with intact frames after it; refused, never repaired',
    integrity: 'non_tail_corruption',
    resume: 'none',
    state: null,
    finished: null,
    status: 'damaged',
  },
  live: {
    shows: 'a run in progress; `walscope demo --live` keeps appending a step every second through the real lease',
    integrity: 'ok',
    resume: 'continue',
    state: 'running',
    finished: null,
    status: 'idle',
  },
  history: {
    shows: 'a session with history: a sealed lineage, a deleted one (a tombstone), and the live one (each the compaction script, so its last run ends refused, in error); runner tags and notice numbers carry on across them',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'error',
    status: 'failed',
    history: { lineages: ['live', 'deleted', 'sealed'], index: 'valid', torn_tail: false, archive_error: null },
  },
  'history-stale-index': {
    shows: 'history with a stale archive index (a retire died before rewriting it): the later member is found by its header',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'completed',
    status: 'completed',
    history: { lineages: ['live', 'sealed', 'sealed'], index: 'stale', torn_tail: false, archive_error: null },
  },
  'history-no-index': {
    shows: 'history without an archive index: every member header is read from offset 0',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'completed',
    status: 'completed',
    history: { lineages: ['live', 'sealed', 'deleted'], index: 'missing', torn_tail: false, archive_error: null },
  },
  'history-torn-archive': {
    shows: 'an archive with a torn tail: a retire died part-way through appending a member, never committed',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'completed',
    status: 'completed',
    history: { lineages: ['live', 'sealed', 'deleted'], index: 'valid', torn_tail: true, archive_error: null },
  },
  'history-damaged-archive': {
    shows: 'a damaged archive header with a whole member after it: archive corruption, the session refused by verify',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'completed',
    status: 'damaged',
    history: { lineages: ['live'], index: 'invalid', torn_tail: false, archive_error: 'archive_corruption' },
  },
  checked: {
    shows: 'a run that finished with an unknown outcome, which its owner checked and recorded (an acknowledgement): finished, checked',
    integrity: 'ok',
    resume: 'none',
    state: 'finished',
    finished: 'interrupted',
    status: 'finished_checked',
  },
  'not-a-wal': {
    shows: 'a file that is not a WAL at all (notes saved where the WAL should be): refused by name, never called a torn tail',
    integrity: 'not_a_wal',
    resume: 'none',
    state: null,
    finished: null,
    status: 'not_a_wal',
  },
} as const satisfies Record<string, DemoExpectation>;

export type DemoSessionId = keyof typeof DEMO_SESSIONS;

export const DEMO_SESSION_IDS = Object.keys(DEMO_SESSIONS) as DemoSessionId[];

/** The session `walscope demo --live` keeps appending to. */
export const LIVE_SESSION_ID: DemoSessionId = 'live';
