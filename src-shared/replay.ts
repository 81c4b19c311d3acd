// Types of the replay fold (contract §4, wal-format §10) and of `walscope replay --json`: what a session's
// records mean after a crash, which calls are done, held, never sent or indeterminate, and what recovery would
// append. Plain JSON data only (byte strings become lowercase hex), so the CLI, the app and the tests share it;
// a live episode's snapshot holds its steps and batches as chunked lists (parts.ts), whose JSON is an array.
import type { JsonValue } from './json.js';
import type { Parts } from './parts.js';
import type { Attention, ResumeAction, SessionStatus } from './status.js';
import type { InProgressTail, TornTail, WalErrorInfo } from './wal.js';

export type { JsonValue };
export type JsonPayload = { [key: string]: JsonValue };

/** A planned call's class (contract §4 classification rows; wal-format §10). */
export type CallClass =
  | 'completed'
  | 'no_dispatch'
  | 'indeterminate'
  | 'provider_held'
  | 'held_successor'
  | 'never_left'
  | 'interrupted'
  | 'max_steps';

export type { ResumeAction };

export type ToolOutcome = 'completed' | 'unknown' | 'interrupted' | 'max_steps';

/** `closing`: a close-out terminal (interrupted / max_steps) is durable but run_finished is not. */
export type EpisodeState = 'running' | 'paused' | 'cancelling' | 'closing' | 'finished';

/** Where a record is, for jump-to-record. Lineage frames have seq 0. */
export interface RecordRef {
  readonly seq: number;
  readonly offset: number;
  readonly fence: number;
  readonly type: string;
}

export interface ModelAttempt {
  readonly seq: number;
  readonly attempt: number | null;
  readonly outcome: string | null;
  readonly http_status: number | null;
  readonly ts_ms: number | null;
}

/** A compaction or context-ceiling record, attached to the step it belongs to. */
export interface StepNote {
  readonly seq: number;
  readonly type: string;
  readonly payload: JsonPayload;
  /** compaction_view_applied only: replacement_sha256 is the SHA-256 of the record's replacement, checked on
   *  the record's own CBOR value (wal-format §6). */
  readonly replacement_digest_ok?: boolean;
}

export interface StepFold {
  readonly step_id: number;
  /** seq of model_step_finished; null while the step is in flight (attempts or notes only). */
  readonly seq: number | null;
  readonly attempts: readonly ModelAttempt[];
  /** Where model_step_finished's frame starts; null while the step is in flight. The fold keeps no assistant
   *  message (tool inputs and text are most of what a step weighs): whoever shows or sends it reads it back
   *  from this record (replay/payloads.ts `stepMessage`). */
  readonly offset: number | null;
  /** The rendered assistant message's role: its `role` text ('assistant' when the message is not a map, as it
   *  is rendered then; null when a map has no text role). With `tool_use_ids`, all that counting and checking
   *  the shape of a request need (replay/payloads.ts `PAYLOADS_UNREAD`). */
  readonly role: string | null;
  readonly usage: JsonPayload | null;
  /** tool_use ids of the assistant message, in source order. */
  readonly tool_use_ids: readonly string[];
  /** A finished step without tool calls: the loop ended there (contract §4 step 3). */
  readonly natural_end: boolean;
  readonly batch_id: string | null;
  readonly turn_finished_seq: number | null;
  readonly notes: readonly StepNote[];
}

export interface CallIntent {
  readonly seq: number;
  /** Where the intent's frame starts: its args are read back from there (replay/payloads.ts `intentArgs`). */
  readonly offset: number;
  readonly module_id: string | null;
  /** What the call acts on, from its args (a path, a url, an id…; at most 80 characters), for "may have been
   *  applied — check …"; null when its args name none. */
  readonly target: string | null;
}

export interface CallTerminal {
  readonly seq: number;
  readonly type: 'tool_result' | 'tool_no_dispatch';
  /** null for tool_no_dispatch. */
  readonly outcome: ToolOutcome | null;
  readonly is_error: boolean;
  /** tool_result.reason, or tool_no_dispatch.reason. */
  readonly reason: string | null;
  /** Where the terminal record's frame starts in the WAL. The fold keeps no tool output (most of a WAL's
   *  bytes); read it back from here (recovery/payloads.ts). */
  readonly offset: number;
  /** A tool_result's output: the CBOR size of its JSON form (what it weighs in a request), measured by the
   *  fold's own read; null for tool_no_dispatch (its message is the fold's own words). */
  readonly output_bytes: number | null;
}

export interface HeldRecord {
  readonly seq: number;
  readonly call_key: string;
  readonly module: string;
  readonly reason: string | null;
  readonly held_at_ms: number | null;
  readonly sequential: boolean;
  readonly detail_digest: string | null;
  /** seq of a late_result for call_key, if one is in the WAL (shown; the tool_result is what counts). */
  readonly late_result_seq: number | null;
}

export interface CallFold {
  readonly tool_call_id: string;
  readonly name: string;
  /** Position in planned_calls: source order. */
  readonly index: number;
  readonly plan: 'dispatch' | 'no_dispatch';
  /** Declared pure/idempotent (planned_calls[].safe). */
  readonly safe: boolean;
  readonly class: CallClass;
  readonly intent: CallIntent | null;
  /** Exactly one when the call is terminal; more is a duplicate-terminal anomaly. */
  readonly terminals: readonly CallTerminal[];
  readonly held: HeldRecord | null;
  /** For a held_successor: the provider-held or closed-out call it waits behind. */
  readonly behind: string | null;
  /** For a provider-held or closed-out call: the held successors waiting behind it. */
  readonly successors: readonly string[];
  /** tool-times/v1, as recorded: the intent's dispatched_at_ms, or the tool_no_dispatch's; null when the record
   *  has none (an untimed record stays untimed). */
  readonly dispatched_at_ms: number | null;
  /** tool-times/v1, as recorded: the counting (first) tool_result's finished_at_ms; null when it has none. */
  readonly finished_at_ms: number | null;
}

export interface BatchFold {
  readonly batch_id: string;
  readonly step_id: number | null;
  readonly sequential: boolean;
  readonly started_seq: number;
  readonly finished_seq: number | null;
  readonly calls: readonly CallFold[];
  /** Every planned call has exactly one terminal, ids match, nothing duplicated (contract §4). */
  readonly committable: boolean;
  /** An indeterminate call beside an open provider-held one: the indeterminate handling wins. */
  readonly mixed_crash: boolean;
}

export type AnomalyKind =
  | 'duplicate_terminal'
  | 'duplicate_intent'
  | 'duplicate_held'
  | 'duplicate_planned_call'
  | 'duplicate_batch'
  | 'duplicate_run_id'
  | 'unplanned_call'
  | 'unknown_batch'
  | 'intent_for_no_dispatch_call'
  | 'held_without_intent'
  | 'record_after_batch_finished'
  | 'finished_not_committable'
  | 'step_mismatch'
  | 'run_id_mismatch'
  | 'episode_left_open'
  | 'batch_left_open'
  | 'record_outside_episode';

/** A violation of the record set's rules, reported with the seqs involved; never thrown. */
export interface Anomaly {
  readonly kind: AnomalyKind;
  readonly message: string;
  readonly seqs: readonly number[];
  readonly batch_id: string | null;
  readonly tool_call_id: string | null;
}

export interface SteerFold {
  readonly seq: number;
  readonly send_id: string | null;
  readonly delivery: string | null;
  readonly title: string | null;
  readonly input: JsonValue;
  /** The step whose prompt it joins (the first model step recorded after it); null: it joins at run end. */
  readonly joins_step: number | null;
}

export interface ApprovalFold {
  readonly tool_call_id: string;
  readonly requested_seq: number | null;
  readonly resolved_seq: number | null;
  readonly decision: string | null;
  readonly recorded_seq: number | null;
}

export interface CancelRequest {
  readonly seq: number;
  readonly run_id: string | null;
  readonly at: string | null;
}

export interface PauseFold {
  readonly seq: number;
  readonly reason: string | null;
}

export interface ResumeRecord {
  readonly seq: number;
  readonly resumed_from_seq: number | null;
  readonly redone: readonly string[];
  readonly indeterminate: readonly string[];
}

export interface RunFinish {
  readonly seq: number;
  readonly reason: string | null;
  readonly usage: JsonPayload | null;
  readonly error: JsonValue;
}

export interface EpisodeFold {
  /** 1, 2, … in WAL order. */
  readonly episode: number;
  readonly run_id: string | null;
  readonly started_seq: number;
  readonly config: JsonValue;
  readonly input: JsonValue;
  /** Its run_started carries runner tags (runner-tags/v1): every message part written for it carries one. */
  readonly tagged: boolean;
  readonly state: EpisodeState;
  readonly finished: RunFinish | null;
  /** Arrays while the fold owns them; a live episode's snapshot holds them in chunks (parts.ts). */
  readonly steps: Parts<StepFold>;
  readonly batches: Parts<BatchFold>;
  readonly steers: readonly SteerFold[];
  readonly approvals: readonly ApprovalFold[];
  readonly cancel_requests: readonly CancelRequest[];
  readonly pauses: readonly PauseFold[];
  readonly resumes: readonly ResumeRecord[];
  /** Records shown but not acted on: unknown types, informational ones not attached elsewhere. */
  readonly shown: readonly RecordRef[];
  readonly anomalies: readonly Anomaly[];
  readonly last_seq: number;
}

export interface QueueEntry {
  readonly submission_id: string;
  readonly seq: number;
  /** queued.request exactly as written (the input and config the send's run starts with); null when absent. */
  readonly request: JsonValue;
  readonly delivery: string | null;
  readonly title: string | null;
  readonly state: 'pending' | 'retracted' | 'delivered';
  readonly closed_seq: number | null;
}

export interface SessionFold {
  readonly wal_id: string | null;
  readonly last_seq: number;
  /** The runner tag the next tagged message part gets: one more than the highest tag the WAL holds, and at
   *  least a lineage frame's next_tag (a tombstone's count carried to this lineage); 1 when there is none. */
  readonly next_tag: number;
  readonly episodes: readonly EpisodeFold[];
  readonly queue: readonly QueueEntry[];
  /** Pending submission ids in drain order: interrupts first, then plain entries, each in WAL order. */
  readonly queue_drain_order: readonly string[];
  /** Records outside any episode (queue records, lineage, stray ones). */
  readonly outside: readonly RecordRef[];
  readonly anomalies: readonly Anomaly[];
}

/** What a snapshot changed against the one before it (SessionFolder.snapshotSince), so a view can take its
 *  own sums on from the last snapshot's without finding the change by identity. The contract, exact: an
 *  episode, step or batch the list does not name is the very object the previous snapshot held; one it names is
 *  a new object (its value may still be equal: a record that names a part without changing it, a second
 *  tool_batch_finished). The session's own lists (queue, outside, anomalies) are new at every snapshot. */
/** A fold's part as the folder builds it, before it is handed out (replay/fold.ts, replay/classify.ts): the
 *  same shape with nothing read-only. Every other reader gets the read-only types above, so that "a snapshot
 *  never changes once handed out" is the compiler's to check. JSON values are the WAL's, never changed. */
export type Live<T> = T extends JsonValue
  ? T
  : T extends readonly (infer Item)[]
    ? Live<Item>[]
    : T extends Parts<infer Item>
      ? Parts<Live<Item>>
      : T extends object
        ? { -readonly [Key in keyof T]: Live<T[Key]> }
        : T;

export interface FoldChanges {
  /** There was no previous snapshot (the first read, a restart): every episode is added. */
  from_scratch: boolean;
  /** The episodes rebuilt, in order. */
  episodes: readonly EpisodeChange[];
}

export interface EpisodeChange {
  /** Its place in `episodes` (its number less one). */
  index: number;
  /** The previous snapshot did not hold it. */
  added: boolean;
  /** Its run_finished is new since the previous snapshot. */
  closed: boolean;
  steps: PartChanges;
  batches: PartChanges;
}

export interface PartChanges {
  /** Places before `added_from` that hold a new object, ascending. */
  changed: readonly number[];
  /** The list's length in the previous snapshot (0 for an added episode): every place from here on is new. */
  added_from: number;
}

/** One record an action would append. Records with the same barrier are made durable together, in order. */
export interface PlannedRecord {
  type: string;
  payload: JsonPayload;
  barrier: number;
}

export interface Replayed {
  messages: number;
  model_steps: number;
  tool_results: number;
}

export interface ResumePlan {
  action: ResumeAction;
  episode: number | null;
  /** What the action means, in one or two sentences, for the operator. */
  message: string;
  replayed: Replayed;
  redone: string[];
  indeterminate: string[];
  records: PlannedRecord[];
}

/** The operator's and the runtime's closes (cancel, seal, stop) and resume, as one plan shape. */
export type RecoveryKind = 'resume' | 'cancel' | 'seal' | 'stop';

export interface RecoveryPlan extends ResumePlan {
  kind: RecoveryKind;
}

export interface ReplayIntegrity {
  ok: boolean;
  torn_tail: TornTail | null;
  in_progress_tail: InProgressTail | null;
  error: WalErrorInfo | null;
}

export interface ReplayCallJson {
  tool_call_id: string;
  name: string;
  class: CallClass;
  terminal: { type: 'tool_result' | 'tool_no_dispatch'; seq: number } | null;
  outcome: ToolOutcome | null;
  reason: string | null;
  /** The result says the tool failed (tool_result.is_error); false without a result. */
  is_error: boolean;
  dispatched_at_ms: number | null;
  finished_at_ms: number | null;
}

export interface ReplayBatchJson {
  batch_id: string;
  step_id: number | null;
  sequential: boolean;
  finished: { seq: number } | null;
  committable: boolean;
  calls: ReplayCallJson[];
}

export interface ReplayStepJson {
  step_id: number;
  seq: number | null;
  attempts: number;
  tool_calls: number;
  natural_end: boolean;
  turn_finished: number | null;
}

export interface ReplayEpisodeJson {
  episode: number;
  run_id: string | null;
  state: EpisodeState;
  finished: { seq: number; reason: string | null } | null;
  /** What its steps cost, by the price table `price_table` names. */
  cost: Cost;
  steps: ReplayStepJson[];
  batches: ReplayBatchJson[];
  anomalies: readonly Anomaly[];
}

/** What `walscope replay --json` prints. */
export interface ReplayJson {
  session: string | null;
  wal_id: string | null;
  last_seq: number;
  integrity: ReplayIntegrity;
  episodes: ReplayEpisodeJson[];
  /** Anomalies outside any episode. */
  anomalies: readonly Anomaly[];
  /** How the last run stands: the session's status word, its attention entry, its unconfirmed calls. */
  run: RunSignal;
  resume: ResumePlan;
  /** The price table the episodes' costs come from: name, version and date. */
  price_table: string;
}

/** A problem that makes a rendered request invalid for a provider (Anthropic rejects a tool_use without its
 *  tool_result before the next assistant message, and a tool_result that answers nothing). */
export interface ProviderProblem {
  kind: 'missing_result' | 'orphan_result' | 'duplicate_result';
  tool_use_id: string;
  message_index: number;
}

export interface ProviderValidity {
  valid: boolean;
  problems: ProviderProblem[];
}

/** What the owner found when checking a call whose outcome the WAL leaves unknown (wal-format §6). */
export type Finding = 'applied' | 'not_applied' | 'unknown_accepted';

export const FINDINGS: readonly Finding[] = ['applied', 'not_applied', 'unknown_accepted'];

/** An acknowledgement as its operator_action {action: "acknowledge"} record holds it. */
export interface Acknowledgement {
  seq: number;
  finding: Finding;
  operator: string;
  /** The OS user the writing walscope ran as, beside the name the operator gave (null in older records). */
  os_user: string | null;
  via: string;
  reason: string;
  ts_ms: number | null;
}

/** A dispatched call whose outcome is unknown (wal-format §10 `indeterminate`): its intent is durable, its
 *  result is not, so its side effect may or may not have happened. Recovery never sends it again; the owner
 *  has to find out, and records what they found (an acknowledgement). */
export interface UnconfirmedCall {
  episode: number;
  batch_id: string;
  tool_call_id: string;
  name: string;
  /** The intent's seq: the record that proves it was dispatched. */
  intent_seq: number | null;
  /** The unknown-outcome tool_result's seq once a close-out wrote it; null while the call has no terminal. */
  closed_out_seq: number | null;
  /** What may have happened and what to check, in the owner's terms ("edit_file c2.txt may have been
   *  applied — check c2.txt"). */
  may_have: string;
  /** The latest acknowledgement of this call (a later one supersedes an earlier), or null: nobody checked. */
  acknowledged: Acknowledgement | null;
}

/** How a session's last run stands, as an operator reads it: the one status word (src-shared/status.ts). */
export interface RunSignal {
  status: SessionStatus;
  /** One sentence for the operator: why this status, and for a refusal where and what to do. */
  detail: string;
  /** The last episode's run_finished, as the end state reads it: its reason, and for an error its kind and
   *  message (text from the WAL). null while the last episode has none. */
  finish: { reason: string | null; error_kind: string | null; error_message: string | null } | null;
  /** The session's place in the attention queue (wal-format §10 "Needs attention"), or null. */
  attention: Attention | null;
  /** Unknown-outcome calls of the session's last episode (earlier episodes' are history: a new run was
   *  started after them, which is the owner's decision), each with its acknowledgement if any. */
  unconfirmed: UnconfirmedCall[];
  /** The last episode has no run_finished and the WAL ends in damage or a torn tail (`cut`: what the run did
   *  after it is unknown), or it is a copy that ends mid-run (`copy`); null otherwise. */
  open_end: 'cut' | 'copy' | null;
  /** The last durable state of the last episode when `open_end` is set, or the WAL is refused; null otherwise. */
  last_durable: string | null;
  /** tool_results recorded with is_error: true, over the session. */
  error_results: number;
  /** The calls of the last episode's open batch that have no terminal yet: what an alert waits on. */
  open_calls: OpenCall[];
}

/** A call of the open batch with no terminal: held by its provider (`held_at_ms` from its held record), or
 *  dispatched and in flight (its intent durable, its result not yet). */
export interface OpenCall {
  tool_call_id: string;
  name: string;
  state: 'held' | 'in_flight';
  /** The held record's seq for a held call, the intent's for one in flight. */
  seq: number;
  held_at_ms: number | null;
}

/** One recovery action as its operator_action record (wal-format §6) and the records it wrote tell it. */
export interface RecoveryEntry {
  seq: number;
  action: string;
  operator: string;
  reason: string;
  via: string;
  ts_ms: number | null;
  based_on_seq: number | null;
  /** The lease epoch it wrote under. */
  fence: number;
  /** The records it appended after its audit record, in WAL order (its tenure: the same fence). */
  records: { seq: number; type: string }[];
  /** More records than `records` lists were written. */
  records_cut: boolean;
  /** The OS user beside the operator's name (null where the record has none). */
  os_user: string | null;
  /** An acknowledgement's call and finding (action "acknowledge"); null for every other action. */
  call: { batch_id: string; tool_call_id: string } | null;
  finding: Finding | null;
  /** A retire, as the successor it made records it in its lineage frame (seq 0): the lineage it retired, how, and
   *  the torn tails it cut (each kept in a file beside it); null for every other entry. */
  retired: RetiredLineage | null;
}

export interface RetiredLineage {
  wal_id: string;
  reason: string;
  cuts: { of: 'wal' | 'archive'; offset: number; bytes: number; kept_in: string | null }[];
}

/** One bar of an episode's waterfall, on the WAL's own clock (ms since the epoch, as recorded). */
export interface TimedSpan {
  kind: 'step' | 'batch' | 'call' | 'held';
  label: string;
  /** The record time the bar starts at; for a step, the last recorded time before its attempts. */
  start_ms: number;
  /** null: still open when the WAL ends (a held call whose late result has not come). */
  end_ms: number | null;
  /** Failed model attempts (steps), or a tool result with is_error (calls). */
  failed: number;
  /** How it ended. A step whose failed attempts were followed by one that answered ended `ok` (retried, not
   *  failed); `open`: nothing ended it before the WAL ends. */
  ended: SpanEnd;
  /** The step it is part of (a step's own id, its batch's, its calls'). */
  step_id: number | null;
  seq: number | null;
}

/** How a bar ended: answered or completed, an error (a failed last attempt, an is_error result), a call's result
 *  of unknown outcome or one closed out (interrupted, max_steps), still open. */
export type SpanEnd = 'ok' | 'error' | 'unknown' | 'closed_out' | 'open';

/** What model steps cost, priced by the price table this build ships (replay/cost.ts): never invented. */
export interface Cost {
  /** US dollars over the steps priced; null when none was. */
  usd: number | null;
  /** The models the runs' configs name (at most COST_NAMES_MAX). */
  models: string[];
  /** What the table priced them as ("anthropic claude-sonnet-4-0"). */
  priced_as: string[];
  /** Models the table does not know. */
  unknown_models: string[];
  steps_priced: number;
  /** Steps with token counts that could not be priced: no model named, an unknown model, counts that do not add up. */
  steps_unpriced: number;
  /** Steps priced at the table's current prices, since no time was recorded for them. */
  undated_steps: number;
  /** Priced from a run's own totals (its run_finished usage), its steps having recorded none. */
  from_run_totals: boolean;
}

/** When an episode's work happened, and what it cost, from the times and usage its records carry. */
export interface EpisodeTiming {
  episode: number;
  /** false when none of its records carries a time: then nothing here is invented, the spans are empty. */
  times_recorded: boolean;
  first_ms: number | null;
  last_ms: number | null;
  /** Numeric usage fields summed over its steps. */
  tokens: Record<string, number>;
  cost: Cost;
  failed_attempts: number;
  spans: TimedSpan[];
  /** More spans than the waterfall carries were left out. */
  spans_cut: boolean;
}

/** An episode's timing without its waterfall's bars: what a session detail carries for its last episode. The bars
 *  (up to 2,000 spans, ~200 KB) come from `getTiming`, asked for again only when `spans_digest` changes: a live
 *  episode of a million records sent them with every detail, at every append, most of the detail's cost. */
export interface EpisodeTimingSummary extends Omit<EpisodeTiming, 'spans'> {
  spans_count: number;
  /** Equal digests, equal spans. */
  spans_digest: string;
}

/** Where a message of a rendered request came from (wal-format §6): the run's input, a compaction view's
 *  replacement, a step's turn (its assistant message or its tool results), or a steer. */
export type MessageOrigin =
  | { kind: 'input'; episode: number }
  | { kind: 'view'; episode: number; view_id: string; version: number; seq: number }
  | { kind: 'step'; episode: number; step_id: number }
  | { kind: 'steer'; episode: number; seq: number };

export interface RenderedMessage {
  origin: MessageOrigin;
  message: JsonPayload;
}

/** Why a recorded view no longer assembles (wal-format §6). */
export type ViewProblemCause = 'malformed' | 'digest_mismatch' | 'through_step_not_before_step' | 'through_step_regressed';

/** Why a step's request cannot be rendered as the model saw it, or would be invalid for a provider. */
export interface RequestProblem {
  kind: 'view_not_assembled' | ProviderProblem['kind'];
  /** For view_not_assembled: which rule the view breaks. */
  cause: ViewProblemCause | null;
  /** The record at fault (the view's compaction_view_applied), when there is one. */
  seq: number | null;
  message: string;
}

/** A compaction_view_applied record as a request is rendered with it. */
export interface ViewInRequest {
  seq: number;
  /** The step the record was written before: the first step that renders it. */
  step_id: number;
  view_id: string;
  version: number;
  through_step: number;
  applied: string;
  /** The messages of steps 1…through_step it stands in for, and their CBOR size; the replacement's size. */
  replaced_messages: number;
  replaced_bytes: number;
  replacement_bytes: number;
}

/** The request of one step exactly as the model saw it: messages empty when a view no longer assembles. */
export interface StepRequest {
  episode: number;
  step_id: number;
  /** The latest view recorded at or before this step, whether or not it assembles. */
  view: ViewInRequest | null;
  messages: RenderedMessage[];
  /** CBOR bytes of the messages (what request_len counts). */
  size_bytes: number;
  problems: RequestProblem[];
}

/** What `walscope replay SESSION --at STEP --json` prints. */
export interface ReplayAtJson {
  step_id: number;
  view: null | { view_id: string; version: number; through_step: number; applied: string };
  messages: RenderedMessage[];
  problems: RequestProblem[];
}
