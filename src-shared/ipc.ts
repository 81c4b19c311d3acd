// THE contract between the main side (session service) and the renderer. One API interface and its event
// types: the Electron preload, the Electron IPC handlers and the HTTP transport (`walscope serve`) all
// implement or carry exactly this, so the renderer never knows which transport it runs on. Plain JSON data
// only. Everything a WAL says (text, titles, ids, outputs) is untrusted: the renderer shows it as text.
import type {
  CallClass,
  EpisodeState,
  EpisodeTiming,
  EpisodeTimingSummary,
  MessageOrigin,
  RequestProblem,
  ViewInRequest,
  JsonPayload,
  JsonValue,
  PlannedRecord,
  RecoveryEntry,
  RecoveryKind,
  RecoveryPlan,
  RunSignal,
  Cost,
} from './replay.js';
import type { AlertEvent, AlertsView } from './alerts.js';
import type { ComparePage } from './compare.js';
import { REDACT_CLASSES, redactList, type BundleFile, type RedactClass, type SavedBundle } from './bundle.js';
import type { ShownBlock } from './blocks.js';
import { FINDINGS, type Finding } from './replay.js';
import type { SupportReport } from './report.js';
import { filterProblem, type TimelineFilter } from './timeline-filter.js';
import type { TerminalRow } from './terminal-text.js';
import { isListedStatus, type Attention, type ListedStatus, type ResumeAction } from './status.js';
import type { ArchiveReport, DigestAlgorithmName, InProgressTail, LeaseTenure, RetirePlan, TornTail, WalErrorInfo } from './wal.js';

/** Rows per page request; the renderer asks for windows, never whole lists (a session may hold 1M records). */
export const PAGE_ROWS_MAX = 2_000;
/** Matches one search returns; the UI says "first N" past it. */
export const SEARCH_MATCHES_MAX = 1_000;
export const SEARCH_QUERY_CHARS_MAX = 200;
/** A search over payloads on disk answers after at most about this long with the matches so far
 *  (`SearchResult.complete` false); asking again with the same query goes on. */
export const SEARCH_STEP_MS = 200;
/** Raw bytes of one frame shown as hex; larger frames are cut, with the cut said. */
export const RECORD_HEX_BYTES_MAX = 65_536;
/** A payload tree larger than this (as JSON text) is cut to a preview. */
export const RECORD_PAYLOAD_CHARS_MAX = 1_048_576;

/** A state root, one session folder of a state root (both acted on under the session's lease), an export
 *  (a copied WAL file or folder: read-only for ever), or a set of exports (several files, or a folder of them;
 *  `path` is the folder holding them all). */
export interface Workspace {
  path: string;
  kind: 'state_root' | 'session' | 'export' | 'exports' | 'fleet';
  read_only: boolean;
  /** Entries under sessions/ (or in a folder of exports) that are not sessions: listed, never opened. */
  not_sessions: string[];
}

export interface SessionSummary {
  /** Stable key for API calls: the session id in a state root, the file name for an export. */
  key: string;
  session_id: string | null;
  /** The one status word (wal-format §10, src-shared/status.ts), or `loading` while first read. */
  status: ListedStatus;
  /** A sentence saying why the status, for tooltips and the list. */
  status_detail: string;
  /** A torn tail is integrity, not a state of the run: shown beside the status (null: none). */
  torn_tail: { offset: number; bytes: number } | null;
  /** The session's entry in the attention queue (what it waits for, what closes it), or null. */
  attention: Attention | null;
  /** What resuming its last episode would do, in a word and a sentence (null while loading): a fleet's agent
   *  publishes it without opening the session. */
  plan: { action: ResumeAction; message: string } | null;
  /** mtime of the WAL, ms since the epoch. */
  last_activity_ms: number | null;
  episodes: number;
  records: number;
  last_seq: number;
  size_bytes: number;
  /** The last episode's state, null before any episode. */
  episode_state: EpisodeState | null;
  finish_reason: string | null;
  /** Counts of call classes over the session, for the list's chips. */
  class_counts: Partial<Record<CallClass, number>>;
  /** How the last run stands (unconfirmed calls, error results, the last durable state of a cut WAL); null
   *  while loading. */
  run: RunSignal | null;
  /** The session's recovery history (operator_action records, most recent last; at most the last 50). */
  recoveries: RecoveryEntry[];
  /** In a fleet: the host whose agent holds the session (absent for a local workspace). */
  host?: string;
  /** In a fleet: set when the summary is the host's last known one (its agent is offline), saying why. */
  stale?: string;
}

/** What a session list page keeps (null: any; `attention`: only the sessions in the attention queue). */
export interface SessionFilter {
  status: ListedStatus | null;
  host: string | null;
  attention: boolean;
}

/** The filter that keeps every session. */
export const ALL_SESSIONS: SessionFilter = { status: null, host: null, attention: false };

export function filterKeeps(filter: SessionFilter, session: SessionSummary): boolean {
  return (filter.status === null || session.status === filter.status) && (filter.host === null || session.host === filter.host) && (!filter.attention || session.attention !== null);
}

/** One host of a fleet as the viewer sees it (a local workspace has none). */
export interface HostView {
  host: string;
  online: boolean;
  /** Why offline (how old its last heartbeat is), or what it runs. */
  why: string;
  sessions: number;
  beat_ms: number;
}

/** One window of the filtered session list, with the filtered total; `complete` is false while a fleet's
 *  index is still filling (the total then grows). */
export interface SessionPage {
  filter: SessionFilter;
  start: number;
  total: number;
  complete: boolean;
  rows: SessionSummary[];
  hosts: HostView[];
}

/** `listed` with the summaries in `changed` in place of theirs (one not listed is left out: a session new to the
 *  list comes with the whole list). */
export function withChangedSummaries(listed: readonly SessionSummary[], changed: readonly SessionSummary[]): SessionSummary[] {
  const by_key = new Map(changed.map((summary) => [summary.key, summary]));
  return listed.map((summary) => by_key.get(summary.key) ?? summary);
}

/** The filtered window of `sessions`, for a workspace whose whole list is at hand. */
export function pageSessions(sessions: readonly SessionSummary[], filter: SessionFilter, start: number, count: number): SessionPage {
  const kept = sessions.filter((session) => filterKeeps(filter, session));
  return { filter, start, total: kept.length, complete: true, rows: kept.slice(start, start + Math.min(count, PAGE_ROWS_MAX)), hosts: [] };
}

export type LeaseView = { state: 'live'; holder: LeaseTenure | null } | { state: 'free'; last: LeaseTenure | null } | { state: 'absent' };

export interface Integrity {
  torn_tail: TornTail | null;
  in_progress_tail: InProgressTail | null;
  error: WalErrorInfo | null;
}

/** The header of a session view; its long lists come as pages (see `RowList`). */
export interface SessionDetail {
  summary: SessionSummary;
  wal_path: string;
  wal_id: string | null;
  read_only: boolean;
  lease: LeaseView;
  integrity: Integrity;
  digest_algorithms: DigestAlgorithmName[];
  features: string[];
  /** Row counts of each list, so the renderer can size its virtualizers. */
  rows: Record<RowList, number>;
  /** The resume plan for the last episode (absent actions are still explained in `message`). */
  resume: RecoveryPlan;
  queue: QueueView[];
  /** The provider-validity check of the transcript the next request would carry. */
  transcript_valid: boolean;
  /** Resume, Cancel and Seal: which apply now, and why the others do not. */
  actions: ActionChoice[];
  /** Retire (wal-format §11): whether it applies now, and why not. */
  retire: WriteChoice;
  /** Recording what the owner found for a call of unknown outcome (wal-format §6): whether this session may take
   *  an acknowledgement now (an export, a refused WAL or a live lease may not), and why not. */
  acknowledge: WriteChoice;
  /** The last episode's timing: when its work happened (as recorded), tokens and failed attempts, without the
   *  waterfall's bars (`EpisodeTimingSummary`); the bars, and an earlier episode's timing, come from `getTiming`
   *  (every episode's in each detail weighed 11 MB at a million records, sent again on every live append).
   *  Empty when there is no episode. */
  timing: EpisodeTimingSummary[];
  /** Numeric usage fields summed over every episode. */
  tokens: Record<string, number>;
  /** What every episode's steps cost, and the price table (name, version, date) it was priced by. */
  cost: Cost & { table: string };
  /** After a non-tail damage: the frames found past it, listed unverified at the end of the record list. */
  after_damage: AfterDamageView | null;
  /** What the Timeline's filter offers beside the classes of `summary.class_counts`. */
  filter_choices: FilterChoices;
}

/** The tools the session called (calls per name, most called first, at most FILTER_TOOLS_MAX names) and its
 *  records' types. */
export interface FilterChoices {
  tools: { name: string; calls: number }[];
  record_types: string[];
}

/** One recovery action as offered in the session view: computed by the service, shown by the renderer. */
export interface ActionChoice {
  kind: ActionKind;
  /** true when it would write something and this workspace may write it now. */
  applies: boolean;
  /** Why it applies (what it would do) or why not. */
  why: string;
  /** Records it would append (the audit record not counted). */
  records: number;
  /** How the run would end (its run_finished reason), or null when it writes none. */
  finishes_as: string | null;
  /** Set when it contradicts the recommended (resume) plan: said before confirmation. */
  contradicts: string | null;
}

/** A write the session view offers besides Resume, Cancel and Seal: whether it applies now, and why (not). */
export interface WriteChoice {
  applies: boolean;
  why: string;
}

/** A torn tail the action's writer truncates before appending (the bytes are kept in `copy_path` first). */
export interface TailRepair {
  offset: number;
  bytes: number;
  copy_path: string;
}

export interface QueueView {
  submission_id: string;
  seq: number;
  state: 'pending' | 'retracted' | 'delivered';
  delivery: string | null;
  title: string | null;
}

export type RowList = 'timeline' | 'records' | 'transcript';

/** A call's row in its batch table. */
export interface CallRow {
  tool_call_id: string;
  name: string;
  class: CallClass;
  plan: 'dispatch' | 'no_dispatch';
  safe: boolean;
  /** Previews (timeline.ts ROW_VALUE_CHARS_MAX): the detail shows them, the search reads them. */
  args: JsonValue;
  output: JsonValue;
  /** What the call was asked to do, in one line: a shell tool's command, a file tool's path, else its first short
   *  text argument (null: no intent, or no argument to show). */
  args_gist: string | null;
  /** An output other than a text (Parts: a screenshot and its caption) as its blocks; null for a text. */
  output_blocks: ShownBlock[] | null;
  /** The first line of its output with text on it, its terminal escapes dropped, or null. */
  output_line: string | null;
  outcome: string | null;
  reason: string | null;
  is_error: boolean;
  /** tool-times: when the intent was written, and when the counting result says the call finished. */
  dispatched_at_ms: number | null;
  finished_at_ms: number | null;
  /** Held calls: what holds them, and the successors waiting behind. */
  held: { call_key: string; module: string; reason: string | null; held_at_ms: number | null; seq: number } | null;
  behind: string | null;
  successors: readonly string[];
  /** Every record of the call (intent, held, terminals), for jump-to-record. */
  seqs: number[];
  /** The seq of the tool_result whose output `output` previews: the whole of it reads with `getOutput`. */
  output_seq: number | null;
}

/** What a batch's row says of it (a batch of one call says it in its call's row). */
export interface BatchHead {
  step_id: number | null;
  sequential: boolean;
  finished: boolean;
  committable: boolean;
  mixed_crash: boolean;
}

/** One row of the session timeline: episodes → turns → steps → batches, flattened so it can be windowed. */
export type TimelineRow =
  | {
      kind: 'episode';
      episode: number;
      run_id: string | null;
      state: EpisodeState;
      /** The word shown: `state`, unless the WAL is cut or an export ends mid-run ("cut short", …). */
      state_word: string;
      /** The last durable state when the WAL is cut or the copy ends mid-run; null otherwise. */
      last_durable: string | null;
      finish_reason: string | null;
      /** The first and last time its records carry (ms since the epoch); both null when none carries one. */
      first_ms: number | null;
      last_ms: number | null;
      seqs: number[];
    }
  | { kind: 'input'; episode: number; role: string; text: string; seqs: number[] }
  | { kind: 'steer'; episode: number; title: string | null; delivery: string | null; text: string; seqs: number[] }
  | {
      kind: 'step';
      episode: number;
      step_id: number;
      /** The assistant message's blocks (blocks.ts): the model's words, its thinking (folded), its calls. */
      blocks: ShownBlock[];
      tool_calls: number;
      usage: JsonPayload | null;
      /** What the step cost by the shipped price table (replay/cost.ts); null when it could not be priced. */
      cost_usd: number | null;
      attempts: { attempt: number | null; outcome: string | null; http_status: number | null }[];
      /** The last model attempt's recorded time (ts_ms), or null when none carries one. */
      ts_ms: number | null;
      /** The episode's first recorded time, so the row can say how far into the episode it is. */
      episode_first_ms: number | null;
      in_flight: boolean;
      seqs: number[];
    }
  | { kind: 'note'; episode: number; step_id: number | null; type: string; summary: string; seqs: number[] }
  | ({ kind: 'batch'; episode: number; batch_id: string; seqs: number[] } & BatchHead)
  /** `batch`: the batch of this one call, folded into its row (a batch of several calls has a row of its own). */
  | { kind: 'call'; episode: number; batch_id: string; call: CallRow; batch: BatchHead | null; episode_first_ms: number | null; seqs: number[] }
  | { kind: 'approval'; episode: number; tool_call_id: string; decision: string | null; seqs: number[] }
  | { kind: 'event'; episode: number | null; type: string; summary: string; seqs: number[] }
  | { kind: 'anomaly'; episode: number | null; anomaly: string; message: string; seqs: number[] };

/** One frame of the record list (payload comes with `getRecord`). */
export interface RecordRow {
  index: number;
  offset: number;
  size_bytes: number;
  seq: number;
  ver: number;
  fence: number;
  type: string;
  features: string[];
  digest_algorithm: DigestAlgorithmName;
  /** A frame found after a non-tail damage (resynchronised on the frame magic): digest-valid, but its place
   *  in the sequence is unverified. Listed after the reader's records, read-only; never folded, never planned
   *  from. Absent on the reader's own records. */
  unverified?: true;
}

/** The frames found after a non-tail damage, as the record list shows them (after its last verified row). */
export interface AfterDamageView {
  damage_offset: number;
  /** The record list's index of the first frame found after the damage (= the verified records' count). */
  first_index: number;
  frames: number;
  records: number;
  seq_first: number | null;
  seq_last: number | null;
  /** Frames listed (at most AFTER_DAMAGE_ROWS_MAX); the rest are counted only. */
  listed: number;
  /** The scan stopped at one of its limits: the counts are a lower bound. */
  scan_cut: boolean;
}

/** Frames after a damage listed in the record list at most (each row held in memory while the session is resident); past it they are counted, not listed. */
export const AFTER_DAMAGE_ROWS_MAX = 10_000;

export interface TranscriptRow {
  index: number;
  role: string;
  /** Its blocks as shown (blocks.ts): each as what it is, a tool result naming the record of its whole output. */
  blocks: ShownBlock[];
}

export interface RowTypes {
  timeline: TimelineRow;
  records: RecordRow;
  transcript: TranscriptRow;
}

export interface RowPage<L extends RowList> {
  key: string;
  list: L;
  start: number;
  /** Total rows now (a live session grows between requests). */
  total: number;
  rows: RowTypes[L][];
}

/** A record of a provisional tail: where it is and what its header says. Its index in the record list is not
 *  known until the read from the start reaches it. */
export type TailRecordRow = Omit<RecordRow, 'index' | 'unverified'>;

/** Rows of each list a provisional tail carries at most: a screenful and more, never the whole episode. */
export const TAIL_ROWS_MAX = 200;

/** The end of a session whose WAL is still being read from its start: its last frames, found from the end of
 *  the file (a bounded backward scan that requires each frame's digest and a chain of frames to the end),
 *  shown at once. Provisional: their place in the sequence is unverified until the read reaches them, so
 *  nothing is planned from them and no action is offered; the real rows replace them when the read ends. */
export interface SessionTail {
  key: string;
  provisional: true;
  /** How far the read from the start has verified the WAL now, of `total_bytes`. */
  head_bytes_read: number;
  total_bytes: number;
  /** How far that read had got when the tail was found: 0 when the tail came first. */
  scanned_at_head_bytes: number;
  /** Bytes read from the end to find it. */
  window_bytes: number;
  /** The last records, in file order (at most TAIL_ROWS_MAX). */
  records: TailRecordRow[];
  /** The last rows of the timeline (at most TAIL_ROWS_MAX): the last episode folded from its run_started when
   *  that is within the window (its number is not known: 0), else one row per record, as they are. */
  timeline: TimelineRow[];
  timeline_from: 'episode_start' | 'records';
  /** What the tail holds and why it starts where it does, in words. */
  note: string;
  /** A partial last frame after the tail's last record. */
  torn_tail: { offset: number; bytes: number } | null;
}

/** Rows of a tool output per `getOutput` answer at most (each at most OUTPUT_ROW_CHARS_MAX characters). */
export const OUTPUT_PAGE_ROWS_MAX = 500;

/** A window of a tool output's rows as a terminal shows them (terminal-text.ts), read from its record. */
export interface OutputPage {
  seq: number;
  start: number;
  rows: TerminalRow[];
  /** The output's rows, lines and characters of text (escape codes included) in all. */
  total_rows: number;
  lines: number;
  chars: number;
}

export interface RecordDetail extends RecordRow {
  /** The digest was recomputed when the frame was read for this view. */
  digest_ok: boolean;
  payload: JsonValue;
  payload_truncated: boolean;
  hex: string;
  hex_truncated: boolean;
  /** Where the record shows in the timeline, for jump-back; null when it shows nowhere. */
  timeline_row: number | null;
}

export interface SearchResult {
  list: RowList;
  query: string;
  rows: number[];
  truncated: boolean;
  /** false while rows remain unsearched: ask again with the same query for more matches. */
  complete: boolean;
}

/** One row the Timeline's filter keeps: where it is in the whole timeline, and whether it is only there so a
 *  kept row reads in place (its episode, step or batch). */
export interface FilteredRow {
  at: number;
  context: boolean;
  row: TimelineRow;
}

/** A window of the filtered timeline. The filter walks the timeline as a search does (for about SEARCH_STEP_MS
 *  an answer): while `complete` is false, `total` and `matched` are the rows found so far; ask again for more. */
export interface FilteredTimeline {
  key: string;
  filter: TimelineFilter;
  start: number;
  /** Rows kept so far: the matched ones and their context. */
  total: number;
  matched: number;
  /** Rows of the whole timeline. */
  of: number;
  complete: boolean;
  /** FILTER_ROWS_MAX rows were kept: the rest are not. */
  truncated: boolean;
  rows: FilteredRow[];
}

export type ActionKind = Exclude<RecoveryKind, 'stop'>;

/** What an action would write, and whether this workspace may do it now. */
export interface ActionPreview {
  kind: ActionKind;
  plan: RecoveryPlan;
  /** The session's last seq the plan was made from: the confirmation carries it back. */
  based_on_seq: number;
  refusal: ActionRefusal | null;
  /** A write besides the appends: the torn tail the writer truncates first. */
  tail_repair: TailRepair | null;
  /** Said before confirmation when this action contradicts the recommended plan. */
  contradicts: string | null;
}

export type ActionRefusal =
  | { reason: 'read_only'; message: string }
  | { reason: 'lease_held'; message: string; holder: LeaseTenure | null }
  | { reason: 'refused_wal'; message: string }
  | { reason: 'nothing_to_do'; message: string }
  | { reason: 'stale_plan'; message: string }
  | { reason: 'audit'; message: string }
  | { reason: 'unavailable'; message: string };

export interface WrittenRecord extends PlannedRecord {
  seq: number;
  fence: number;
}

export type ActionOutcome =
  | { ok: true; kind: ActionKind; written: WrittenRecord[]; message: string }
  | { ok: false; kind: ActionKind; refusal: ActionRefusal };

/** A call named by its batch and id: what an acknowledgement records (wal-format §6). */
export interface CallRef {
  batch_id: string;
  tool_call_id: string;
}

/** What acknowledging a call would write (one operator_action, in a barrier of its own), or why it cannot. */
export interface AcknowledgePreview {
  call: CallRef;
  finding: Finding;
  /** The call as found in the WAL, with what to check; null when it is not there. */
  found: { episode: number; name: string; may_have: string } | null;
  based_on_seq: number;
  refusal: ActionRefusal | null;
  tail_repair: TailRepair | null;
}

export type AcknowledgeResult =
  | { ok: true; seq: number; epoch: number; message: string }
  | { ok: false; refusal: ActionRefusal };

/** Long work (a first read of a large WAL) reports progress; the window never freezes meanwhile. */
export interface Progress {
  key: string;
  task: 'read';
  done_bytes: number;
  total_bytes: number;
  finished: boolean;
}

/** What a session's update changed since its last one, so that a window asks again for only what moved. */
export interface SessionChanges {
  /** Everything may have changed (a first read, a read restarted, a fold not taken on from the last one). */
  restart: boolean;
  /** Per list, the first row that may differ from the last update's (every row before it is as it was), or
   *  null when the list is as it was. */
  from: Record<RowList, number | null>;
  /** Timeline rows before `from.timeline` that may differ too: the episodes' own rows (their state and times)
   *  of the episodes that changed and of the last one (its mark). */
  heads: number[];
  /** The numbers of the episodes whose fold changed (their waterfall, their context). */
  episodes: number[];
}

/** The update that says everything may have changed. */
export const EVERYTHING_CHANGED: SessionChanges = { restart: true, from: { timeline: 0, records: 0, transcript: 0 }, heads: [], episodes: [] };

export type WalscopeEvent =
  | { type: 'workspace'; workspace: Workspace }
  | { type: 'sessions'; sessions: SessionSummary[] }
  /** The summaries of these listed sessions changed; the list is otherwise as last sent. */
  | { type: 'summaries'; changed: SessionSummary[] }
  | { type: 'session'; key: string; last_seq: number; rows: Record<RowList, number>; changes: SessionChanges }
  | { type: 'progress'; progress: Progress }
  /** Said by a transport, not the service: events may have been lost (an event stream connected again), so what
   *  a window keeps may be older than the updates it missed. */
  | { type: 'missed' }
  /** A fleet's list moved: `changed` names the sessions whose summary changed (null: too many to name), and
   *  every host is given with whether it is online. */
  | { type: 'fleet'; hosts: HostView[]; changed: string[] | null }
  /** The workspace's alerts changed (docs/alerts.md): `events` as its tracker made them (a fleet's: fired and
   *  cleared as `host`'s agent published them), for a window's notices; the panel asks getAlerts. */
  | { type: 'alerts'; revision: number; host: string | null; events: AlertEvent[] };

/** The one API object the renderer talks to (`window.walscope` under Electron, an HTTP client in a browser). */
/** One lineage of a session's history (wal-format §11), newest first in `SessionHistory`. */
export interface HistoryLineage {
  wal_id: string;
  parent_wal_id: string | null;
  where: 'live' | 'sealed' | 'deleted' | 'missing';
  first_seq: number | null;
  last_seq: number | null;
  next_tag: number | null;
  next_notice_seq: number | null;
  first_ms: number | null;
  last_ms: number | null;
}

/** A session's whole history: its lineages, what is wrong with the chain, and the archive's integrity (null
 *  when it has no archive, or for an export that is a bare WAL file). */
/** A lineage as the History panel shows it: with the retire that sealed it, when its member records one (the
 *  operator_action {action: "retire"} the retire wrote first into it; null for the live lineage, a deleted one
 *  — its content is gone — and one retired without an audit). */
export interface HistoryLineageView extends HistoryLineage {
  retired_by: RecoveryEntry | null;
}

export interface SessionHistory {
  lineages: HistoryLineageView[];
  problems: { kind: 'counter_regression' | 'missing_parent' | 'archive_corruption' | 'member_damaged'; message: string }[];
  archive: ArchiveReport | null;
  /** The session's first read is still under way: the live lineage's figures (last seq, counters, time span)
   *  are the read's so far, and it is left out until the read reaches its lineage frame. */
  live_reading: boolean;
}

/** What retiring the live lineage would write, or why it cannot be retired (an export, a live lease, …). */
export interface RetirePreview {
  reason: 'sealed' | 'deleted';
  plan: RetirePlan | null;
  refusal: { code: string; message: string } | null;
}

export type RetireResult =
  | { ok: true; message: string; successor_wal_id: string | null; epoch: number }
  | { ok: false; refusal: { code: string; message: string } };

export interface WalscopeApi {
  getWorkspace(): Promise<Workspace>;
  listSessions(): Promise<SessionSummary[]>;
  /** A window of the session list, filtered by status and host: how a fleet's 100,000 sessions are listed. */
  listPage(filter: SessionFilter, start: number, count: number): Promise<SessionPage>;
  getSession(key: string): Promise<SessionDetail>;
  getRows<L extends RowList>(key: string, list: L, start: number, count: number): Promise<RowPage<L>>;
  getRecord(key: string, index: number): Promise<RecordDetail>;
  /** Rows [start, start + count) of the output of the tool_result at `seq` (count at most OUTPUT_PAGE_ROWS_MAX). */
  getOutput(key: string, seq: number, start: number, count: number): Promise<OutputPage>;
  /** The record list index of a seq (jump-to-record), or null. */
  locateSeq(key: string, seq: number): Promise<number | null>;
  /** `filter` narrows a timeline search to the rows it keeps (the matches are then places in the filtered
   *  timeline); the other lists take ALL_ROWS. */
  search(key: string, list: RowList, query: string, filter: TimelineFilter): Promise<SearchResult>;
  /** A window of the timeline's rows that `filter` keeps (a filter that keeps everything is getRows'). */
  filterTimeline(key: string, filter: TimelineFilter, start: number, count: number): Promise<FilteredTimeline>;
  previewAction(key: string, kind: ActionKind): Promise<ActionPreview>;
  /** Writes only when the session is still at `based_on_seq`: what was confirmed is what gets written, with
   *  the operator's `reason` in its operator_action record (required), and the name `operator` gave (self-declared:
   *  the record names the OS user beside it; through a fleet, the server's authenticated user is recorded). */
  runAction(key: string, kind: ActionKind, based_on_seq: number, reason: string, operator: string): Promise<ActionOutcome>;
  /** What acknowledging the call (recording what its owner found) would write, or why it cannot. */
  previewAcknowledge(key: string, call: CallRef, finding: Finding): Promise<AcknowledgePreview>;
  /** Appends the acknowledgement only when the session is still at `based_on_seq` and the call's outcome still
   *  unknown, with the operator's `reason` (required) and name. */
  runAcknowledge(key: string, call: CallRef, finding: Finding, based_on_seq: number, reason: string, operator: string): Promise<AcknowledgeResult>;
  /** The support report of a session's WAL (read-only); the renderer saves it as HTML (report-html.ts). */
  getReport(key: string): Promise<SupportReport>;
  /** The session's lineages (live, sealed, deleted, missing) and its archive's integrity. Read-only. */
  getHistory(key: string): Promise<SessionHistory>;
  previewRetire(key: string, reason: 'sealed' | 'deleted'): Promise<RetirePreview>;
  /** Writes only when the plan under the lease equals `plan` (the one the operator confirmed), with the
   *  operator's `audit_reason` in an operator_action record first (required). */
  runRetire(key: string, reason: 'sealed' | 'deleted', plan: RetirePlan, audit_reason: string, operator: string): Promise<RetireResult>;
  /** The Context view of one step (null: the last episode / its first step): its request as the model saw it. */
  getContext(key: string, episode: number | null, step_id: number | null): Promise<StepContext>;
  /** One episode's timing and waterfall (the session detail carries the last episode's). */
  getTiming(key: string, episode: number): Promise<EpisodeTiming>;
  /** The provisional tail of a session still being read from its start (found from the end first); null once
   *  the read is complete, or when there is nothing to show before it (a WAL read in one slice). */
  getTail(key: string): Promise<SessionTail | null>;
  /** The workspace's alerts now and lately (a fleet's: every host's, from the alerts stream). Read-only. */
  getAlerts(): Promise<AlertsView>;
  /** Sessions `a` and `b` compared as `walscope diff A B` compares them (docs/compare.md): where they first went
   *  apart and what differs step by step, both read read-only; `episode` compares that episode of each only (null:
   *  all). The listed steps come a window at a time, [start, start + count) with count at most
   *  COMPARE_PAGE_STEPS_MAX; the answer from 0 carries the outline of every listed step. In a fleet, a and b may be
   *  on two hosts. */
  compareSessions(a: string, b: string, episode: number | null, start: number, count: number): Promise<ComparePage>;
  /** The session as one self-contained page (docs/share.md, `walscope bundle`), `redact`'s classes redacted, within
   *  the bundle's default size: read-only (the WAL is read; the window saves the page as a new file it names). */
  getBundle(key: string, redact: RedactClass[]): Promise<BundleFile>;
  /** Returns the unsubscribe function. */
  subscribe(listener: (event: WalscopeEvent) => void): () => void;
  /** Desktop only: a dropped file or folder opened as a workspace. Absent in the browser. */
  openDropped?: (file: DroppedFile) => Promise<Workspace>;
  /** Desktop only: the session's bundle (getBundle) saved as a new file chosen in a save dialog. Absent in the
   *  browser, which downloads getBundle's page. */
  saveBundle?: (key: string, redact: RedactClass[]) => Promise<SavedBundle>;
}

/** A file or folder dropped on the window: the DOM's File, handed from the renderer to the preload as it is.
 *  Named by shape, since src-shared names no runtime's types (neither the DOM's nor Node's). */
export interface DroppedFile {
  readonly name: string;
  readonly size: number;
}

/** The request methods, by name: what the IPC channels and HTTP routes carry. */
export type ApiMethod = Exclude<keyof WalscopeApi, 'subscribe' | 'openDropped' | 'saveBundle'>;
/** Whether each request method only reads (`read`) or may write to a WAL, its archive or its folder (`write`):
 *  the one classification of the API. A write is an operator's: through a fleet it travels on a write subject
 *  the server allows only operators to publish, the agent refuses it on any other and audits it before it runs
 *  (docs/fleet.md "Who may call what"). A method added to the API does not compile until it is classified here. */
export const API_METHOD_ACCESS = {
  getWorkspace: 'read',
  listSessions: 'read',
  listPage: 'read',
  getSession: 'read',
  getRows: 'read',
  getRecord: 'read',
  getOutput: 'read',
  locateSeq: 'read',
  search: 'read',
  filterTimeline: 'read',
  previewAction: 'read',
  runAction: 'write',
  previewAcknowledge: 'read',
  runAcknowledge: 'write',
  getReport: 'read',
  getHistory: 'read',
  previewRetire: 'read',
  runRetire: 'write',
  getContext: 'read',
  getTiming: 'read',
  getTail: 'read',
  getAlerts: 'read',
  compareSessions: 'read',
  getBundle: 'read',
} as const satisfies { [M in ApiMethod]: ApiAccess };

export type ApiAccess = 'read' | 'write';
/** The methods that write: each needs an operator and an audit entry first. */
export type WriteMethod = { [M in ApiMethod]: (typeof API_METHOD_ACCESS)[M] extends 'write' ? M : never }[ApiMethod];

export const API_METHODS = Object.keys(API_METHOD_ACCESS) as readonly ApiMethod[];

export function isWriteMethod(method: ApiMethod): method is WriteMethod {
  return API_METHOD_ACCESS[method] === 'write';
}

/** The main side's implementation: requests by method name with positional arguments. */
export type ApiRequest = { [M in ApiMethod]: { method: M; args: Parameters<WalscopeApi[M]> } }[ApiMethod];

/** Electron channel names: one for requests, one for events pushed to the window. */
export const IPC_REQUEST_CHANNEL = 'walscope:request';
export const IPC_EVENT_CHANNEL = 'walscope:event';
export const IPC_OPEN_PATH_CHANNEL = 'walscope:open-path';
export const IPC_SAVE_BUNDLE_CHANNEL = 'walscope:save-bundle';

/** A request or reply larger than this is refused: nothing the renderer legitimately sends is near it. */
export const REQUEST_BYTES_MAX = 65_536;

export function isApiMethod(name: unknown): name is ApiMethod {
  return typeof name === 'string' && (API_METHODS as readonly string[]).includes(name);
}

/** Errors cross the transport as this shape; the renderer shows `message` as text. */
export interface ApiError {
  error: string;
  code: ApiErrorCode;
}

/** `unavailable`: the session's fleet host does not answer (offline); asking again later may succeed. */
export type ApiErrorCode = 'bad_request' | 'not_found' | 'unavailable' | 'internal';

/** The one error of the API on every side of every transport (worker, preload, HTTP): a code and a reason. */
export class ApiFailure extends Error {
  override name = 'ApiFailure';
  constructor(
    readonly code: ApiErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A key or record that does not exist: "not found" (404 over HTTP). */
export class NotFoundError extends ApiFailure {
  constructor(message: string) {
    super('not_found', message);
  }
}

/** What an error becomes on the wire: an ApiFailure keeps its code, anything else is internal. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiFailure) return { error: error.message, code: error.code };
  return { error: error instanceof Error ? error.message : String(error), code: 'internal' };
}

type ArgCheck = (value: unknown) => string | null;
const SESSION_KEY_CHARS_MAX = 4_096;
const key: ArgCheck = (value) => (typeof value === 'string' && value.length > 0 && value.length <= SESSION_KEY_CHARS_MAX ? null : 'a session key (text)');
const count: ArgCheck = (value) => (Number.isSafeInteger(value) && (value as number) >= 0 ? null : 'a whole number ≥ 0');
const countOrNull: ArgCheck = (value) => (value === null ? null : count(value) === null ? null : 'a whole number ≥ 0 or null');
const episodeOrNull: ArgCheck = (value) => (value === null || (Number.isSafeInteger(value) && (value as number) >= 1) ? null : 'an episode number (≥ 1) or null');
const list: ArgCheck = (value) => (value === 'timeline' || value === 'records' || value === 'transcript' ? null : 'one of timeline, records, transcript');
const text: ArgCheck = (value) => (typeof value === 'string' ? null : 'text');
const action: ArgCheck = (value) => (value === 'resume' || value === 'cancel' || value === 'seal' ? null : 'one of resume, cancel, seal');
const HOST_CHARS_MAX = 200;
const filter: ArgCheck = (value) => {
  const f = value as SessionFilter;
  if (typeof f !== 'object' || f === null || Object.keys(f).length !== 3) return '{status, host, attention}';
  const status_ok = f.status === null || isListedStatus(f.status);
  const host_ok = f.host === null || (typeof f.host === 'string' && f.host.length > 0 && f.host.length <= HOST_CHARS_MAX);
  return status_ok && host_ok && typeof f.attention === 'boolean' ? null : '{status: a status or null, host: a host name or null, attention: true or false}';
};
/** The operator's name as a person gives it: a line of text, no control characters. */
export const OPERATOR_NAME_CHARS_MAX = 200;
/** A name the API records as the operator's: a line of text, nothing that steers a terminal or reorders a page
 *  (control characters, line separators, bidi overrides). */
export function isOperatorName(value: unknown): value is string {
  // eslint-disable-next-line no-control-regex
  return typeof value === 'string' && value.trim().length > 0 && value.length <= OPERATOR_NAME_CHARS_MAX && !/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(value);
}
const operatorName: ArgCheck = (value) => (isOperatorName(value) ? null : `your name (1 to ${OPERATOR_NAME_CHARS_MAX} characters of text, no control characters)`);
const ID_CHARS_MAX = 1_024;
const callRef: ArgCheck = (value) => {
  const ref = value as CallRef;
  const id = (field: unknown) => typeof field === 'string' && field.length > 0 && field.length <= ID_CHARS_MAX;
  return typeof ref === 'object' && ref !== null && Object.keys(ref).length === 2 && id(ref.batch_id) && id(ref.tool_call_id) ? null : '{batch_id, tool_call_id} (text)';
};
const finding: ArgCheck = (value) => ((FINDINGS as readonly unknown[]).includes(value) ? null : `one of ${FINDINGS.join(', ')}`);
const redact: ArgCheck = (value) => (redactList(value) !== null ? null : `a list of ${REDACT_CLASSES.join(', ')}, each at most once`);
const retireReason: ArgCheck = (value) => (value === 'sealed' || value === 'deleted' ? null : 'one of sealed, deleted');
// The plan is compared field by field with a fresh preview under the lease before anything is written; here it
// need only be the object a preview returned.
const retirePlan: ArgCheck = (value) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? null : 'the plan previewRetire returned (an object)');

/** Each method's arguments, checked once where a request enters (HTTP, the Electron IPC, the fleet's NATS). */
const API_ARGUMENTS: { [M in ApiMethod]: readonly [string, ArgCheck][] } = {
  getWorkspace: [],
  listSessions: [],
  listPage: [['filter', filter], ['start', count], ['count', count]],
  getSession: [['key', key]],
  getRows: [['key', key], ['list', list], ['start', count], ['count', count]],
  getRecord: [['key', key], ['index', count]],
  getOutput: [['key', key], ['seq', count], ['start', count], ['count', count]],
  locateSeq: [['key', key], ['seq', count]],
  search: [['key', key], ['list', list], ['query', text], ['filter', filterProblem]],
  filterTimeline: [['key', key], ['filter', filterProblem], ['start', count], ['count', count]],
  previewAction: [['key', key], ['kind', action]],
  runAction: [['key', key], ['kind', action], ['based_on_seq', count], ['reason', text], ['operator', operatorName]],
  previewAcknowledge: [['key', key], ['call', callRef], ['finding', finding]],
  runAcknowledge: [['key', key], ['call', callRef], ['finding', finding], ['based_on_seq', count], ['reason', text], ['operator', operatorName]],
  getReport: [['key', key]],
  getHistory: [['key', key]],
  previewRetire: [['key', key], ['reason', retireReason]],
  runRetire: [['key', key], ['reason', retireReason], ['plan', retirePlan], ['audit_reason', text], ['operator', operatorName]],
  getContext: [['key', key], ['episode', countOrNull], ['step_id', countOrNull]],
  getTiming: [['key', key], ['episode', count]],
  getTail: [['key', key]],
  getAlerts: [],
  compareSessions: [['a', key], ['b', key], ['episode', episodeOrNull], ['start', count], ['count', count]],
  getBundle: [['key', key], ['redact', redact]],
};

/** The API's request methods, without its event subscription: what one transport call can reach. */
export type ApiRequests = Pick<WalscopeApi, ApiMethod>;

/** Calls checked by apiCallProblem in this thread, for the tests that hold a request to one check. */
export const api_calls_checked = { count: 0 };

/** Why `method` cannot be called with `args` from the wire, or null: an unknown method is not found, arguments of
 *  the wrong number or kind are a bad request that names the argument. The one check of a request's arguments,
 *  made once, by the outermost transport that receives it (HTTP, the Electron IPC, the fleet's NATS handler). */
export function apiCallProblem(method: unknown, args: unknown): ApiFailure | null {
  api_calls_checked.count += 1;
  if (!isApiMethod(method)) return new ApiFailure('not_found', `no API method ${String(method).slice(0, 100)}`);
  const expected = API_ARGUMENTS[method];
  if (!Array.isArray(args) || args.length !== expected.length) {
    return new ApiFailure('bad_request', `${method} takes ${expected.length} argument(s): ${expected.map(([name]) => name).join(', ') || 'none'}`);
  }
  for (const [index, [name, check]] of expected.entries()) {
    const problem = check(args[index]);
    if (problem !== null) return new ApiFailure('bad_request', `${method}: ${name} must be ${problem}`);
  }
  return null;
}

/** `method` with `args` from the wire as a call the layers inside take (typed: never checked again), or the
 *  ApiFailure apiCallProblem found. */
export function checkedCall(method: unknown, args: unknown): ApiRequest {
  const problem = apiCallProblem(method, args);
  if (problem !== null) throw problem;
  return { method, args } as ApiRequest;
}

/** Calls `method` on `api` with `args` from the wire, checked by apiCallProblem: what an outer transport does
 *  with a request. */
export function dispatchApi(api: ApiRequests, method: unknown, args: unknown): Promise<unknown> {
  let call: ApiRequest;
  try {
    call = checkedCall(method, args);
  } catch (problem) {
    return Promise.reject(problem as ApiFailure);
  }
  return callApi(api, call);
}

/** Makes `call`, checked already (or typed by its caller): the worker and the approved API, inside a transport. */
export function callApi(api: ApiRequests, call: ApiRequest): Promise<unknown> {
  const method = api[call.method] as (...values: unknown[]) => Promise<unknown>;
  // eslint-disable-next-line walscope/no-spread-arguments -- as many as the method's arguments, checked at the transport
  return method.apply(api, call.args);
}

/** The API's request methods over any transport: `send` carries one call and returns its answer. */
export function apiClient(send: (method: ApiMethod, args: unknown[]) => Promise<unknown>): ApiRequests {
  const client: Partial<Record<ApiMethod, (...args: unknown[]) => Promise<unknown>>> = {};
  for (const method of API_METHODS) client[method] = (...args: unknown[]) => send(method, args);
  return client as ApiRequests;
}

/** Messages of one step's request the Context view shows; past it the view says how many were left out. */
export const CONTEXT_MESSAGES_MAX = 1_000;
/** Of a longer request, its first messages shown (the session's first input, its oldest turns); the rest of the
 *  CONTEXT_MESSAGES_MAX are its last (this episode's, what the step added). */
export const CONTEXT_HEAD_MESSAGES = 100;
/** A message's text is cut past this in the Context view. */
export const CONTEXT_TEXT_CHARS_MAX = 8_000;
/** Steps the context lane shows around the selected one. */
export const CONTEXT_LANE_STEPS_MAX = 200;

/** One message of a step's request, as the Context view shows it (text, never markup). */
export interface ContextMessage {
  origin: MessageOrigin;
  /** Where it came from, in words: "input", "view r1.compact v2", "step 3", "steer (seq 9)". */
  label: string;
  role: string;
  /** Its blocks as shown (blocks.ts), its texts and values within CONTEXT_TEXT_CHARS_MAX characters. */
  blocks: ShownBlock[];
}

/** One step in the context lane: the prompt's size at that step and whether a view applied there. */
export interface ContextLaneStep {
  step_id: number;
  /** CBOR bytes of the step's request; null when it could not be rendered. */
  size_bytes: number | null;
  /** The view in force at this step, and whether its record was written at this step (it applied here). */
  view: { view_id: string; version: number; applied_here: boolean } | null;
  /** The step was refused: its view no longer assembles, or the context ceiling refused it. */
  refused: boolean;
}

export interface ContextNotice {
  seq: number;
  notice_seq: number | null;
  headers: [string, string][];
}

export interface ContextCeiling {
  wait: { seq: number; deadline_ms: number | null } | null;
  /** permitted: detail null; refused: its window, size and cause. */
  decision: { seq: number; permitted: boolean; window: number | null; size: number | null; cause: string | null } | null;
}

export interface StepContext {
  /** The picker's episodes; the steps of the one shown only (`steps`): every episode's step list made each answer
   *  move at every append to the open episode, and a million records' was 100,000 numbers. */
  episodes: { episode: number; run_id: string | null }[];
  episode: number | null;
  steps: number[];
  step_id: number | null;
  view: ViewInRequest | null;
  messages: ContextMessage[];
  /** Messages of the request not shown: past CONTEXT_MESSAGES_MAX, its first CONTEXT_HEAD_MESSAGES and its last
   *  ones are shown, and these lie between them, before `messages[messages_left_out_at]`. */
  messages_left_out: number;
  messages_left_out_at: number;
  size_bytes: number;
  problems: RequestProblem[];
  notices: ContextNotice[];
  ceiling: ContextCeiling;
  /** The step's compaction and ceiling records in words, in WAL order. */
  notes: { seq: number; type: string; label: string; summary: string }[];
  lane: ContextLaneStep[];
}
