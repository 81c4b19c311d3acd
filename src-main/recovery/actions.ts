// The recovery actions (resume, cancel, seal, stop) and the runtime's idempotent start, on a session of a state
// root, never on a bare WAL file: exports are read-only.
//
// Each action plans twice. First without the lease: an empty plan (a finished episode, a run still owed to a
// runtime) returns at once, so running an action twice writes nothing the second time; not even the lineage
// frame every writer appends at open. Then, when there is something to write, under the lease (a new, higher
// epoch) from a fresh read: that plan is the one written, barrier group by barrier group, and it must equal
// the one the operator approved, or nothing is appended. Under the lease the WAL is read once: the read that
// gives the lease its epoch and the writer its opening state also builds the fold the decision is made from.
import { isOperatorName } from '../../src-shared/ipc.js';
import type { JsonPayload, JsonValue, PlannedRecord, RecoveryPlan, SessionFold } from '../../src-shared/replay.js';
import type { LeaseTenure, Payload, TornTail, WalErrorInfo } from '../../src-shared/wal.js';
import {
  describe, LeaseHeldError, WalReadError, encodeFrame, nodeFileIO, type FileIO, readTarget, sessionTarget,
  probeLease, osUser, FRAME_VER_PLAIN, leaseSession, type FrameSink, isValidSessionId, leasePath, sessionDir,
  walPath, tornTailCopyPath, type WalWriter,
} from '../engine/index.js';
import { SessionFolder } from '../replay/fold.js';
import { planCancel, planResume, planSeal, planStop } from '../replay/plan.js';
import type { Sums } from '../replay/sums.js';

export interface RecoveryOptions {
  io?: FileIO;
  writer_name?: string;
  /** The records the operator approved; if the WAL under the lease calls for others, nothing is appended. */
  expected_records?: readonly PlannedRecord[];
  /** Who approved the action and why (wal-format §6 operator_action): when the action appends anything, the
   *  audit record is written first, in its first barrier. Every operator surface (CLI, app) passes one; the
   *  runtime's own recovery, which nobody approves, does not. */
  audit?: OperatorAudit;
  /** The last seq of the view the operator approved from; defaults to the WAL's last seq when planned. */
  based_on_seq?: number;
  /** The audit record's clock (ms since the epoch); Date.now by default. */
  now_ms?: () => number;
}

/** Who approves a recovery action, why, and from where (wal-format §6 operator_action). */
export interface OperatorAudit {
  operator: string;
  reason: string;
  via: 'cli' | 'app' | 'fleet';
}


/** Limits on the audit texts: a reason is a sentence or a ticket reference, not a document. */
export const OPERATOR_CHARS_MAX = 200;
export const REASON_CHARS_MAX = 2_000;

export interface AppendedRecord {
  seq: number;
  type: string;
  barrier: number;
}

export type Refusal =
  | { kind: 'lease_held'; message: string; holder: LeaseTenure | null }
  | { kind: 'refused'; message: string };

export type RecoveryOutcome =
  | {
      kind: 'done';
      plan: RecoveryPlan;
      /** The operator_action written first, when the action appended anything and an audit was given. */
      audit: PlannedRecord | null;
      /** Every record appended, the audit record first: `[audit, ...plan.records]` by position. */
      appended: AppendedRecord[];
      epoch: number | null;
    }
  | Refusal;

/** A plan of the fold, taking on what the fold's classification derived (its folder's store). */
export type Planner = (fold: SessionFold, sums: Sums) => RecoveryPlan;

export const resumeSession = (root: string, session_id: string, options: RecoveryOptions = {}): RecoveryOutcome =>
  recover(root, session_id, planResume, options);

export const cancelSession = (root: string, session_id: string, options: RecoveryOptions = {}): RecoveryOutcome =>
  recover(root, session_id, planCancel, options);

export const sealSession = (root: string, session_id: string, options: RecoveryOptions = {}): RecoveryOutcome =>
  recover(root, session_id, planSeal, options);

/** The runtime's stop (or max-steps stop) with pending calls: synthetic results, commit, run_finished. */
export const stopRun = (root: string, session_id: string, reason: 'interrupted' | 'max_steps', options: RecoveryOptions = {}): RecoveryOutcome =>
  recover(root, session_id, (fold, sums) => planStop(fold, reason, sums), options);

/** A torn tail the writer will truncate before appending; its bytes are kept in `copy_path` first. */
export interface TailRepairPlan {
  offset: number;
  bytes: number;
  copy_path: string;
}

export interface RecoveryPreview {
  kind: 'plan';
  plan: RecoveryPlan;
  /** The WAL's last seq the plan was made from. */
  based_on_seq: number;
  /** Set when carrying the plan out also truncates a torn tail (only when the plan appends anything: the
   *  writer that truncates is opened only to append). */
  tail_repair: TailRepairPlan | null;
}

/** The plan an action would carry out now, read without the lease (for --dry-run and for confirmation). */
export function previewRecovery(root: string, session_id: string, planner: Planner, io: FileIO = nodeFileIO): RecoveryPreview | Refusal {
  const looked = lookWithoutLease(root, session_id, io);
  if (looked.kind !== 'fold') return looked;
  const plan = planner(looked.fold, looked.sums);
  const torn = looked.torn_tail;
  const wal = walPath(sessionDir(root, session_id));
  const tail_repair = torn === null || plan.records.length === 0 ? null : { offset: torn.offset, bytes: torn.bytes, copy_path: tornTailCopyPath(wal, torn.offset) };
  return { kind: 'plan', plan, based_on_seq: looked.fold.last_seq, tail_repair };
}

/** The operator_action an approved action writes first (wal-format §6): the name the operator gave, and the OS
 *  user the writing walscope runs as beside it (a name is self-declared; the OS user is not). */
export function operatorActionRecord(action: string, audit: OperatorAudit, based_on_seq: number, ts_ms: number, more: JsonPayload = {}): PlannedRecord {
  checkAudit(audit);
  return { type: 'operator_action', payload: { action, operator: audit.operator, os_user: osUser(), reason: audit.reason, based_on_seq, via: audit.via, ts_ms, ...more }, barrier: 0 };
}

/** Why an audit cannot be written as given, or null. */
export function auditProblem(audit: OperatorAudit): string | null {
  if (typeof audit.operator !== 'string' || audit.operator.trim().length === 0) return 'the operator name is empty';
  if (audit.operator.length > OPERATOR_CHARS_MAX) return `the operator name is longer than ${OPERATOR_CHARS_MAX} characters`;
  // A name goes into the WAL and from there onto terminals and pages: one line of text, nothing that steers them.
  if (!isOperatorName(audit.operator)) return 'the operator name holds control characters: give it as one line of plain text';
  if (typeof audit.reason !== 'string') return 'a reason is required: say why this action is taken';
  if (audit.reason.trim().length === 0) return 'a reason is required: say why this action is taken';
  if (audit.reason.length > REASON_CHARS_MAX) return `the reason is longer than ${REASON_CHARS_MAX} characters`;
  return null;
}

function checkAudit(audit: OperatorAudit): void {
  const problem = auditProblem(audit);
  if (problem !== null) throw new Error(problem);
}

function recover(root: string, session_id: string, planner: Planner, options: RecoveryOptions): RecoveryOutcome {
  const io = options.io ?? nodeFileIO;
  const preview = previewRecovery(root, session_id, planner, io);
  if (preview.kind !== 'plan') return preview;
  if (options.expected_records !== undefined && !sameRecords(preview.plan.records, options.expected_records)) {
    return planChanged();
  }
  if (preview.plan.records.length === 0) return { kind: 'done', plan: preview.plan, audit: null, appended: [], epoch: null };
  if (options.audit !== undefined) {
    const problem = auditProblem(options.audit);
    if (problem !== null) return { kind: 'refused', message: `${problem}: nothing was appended` };
  }
  const unwritable = unwritableRecord(preview.plan.records);
  if (unwritable !== null) return unwritable;
  return underLease(root, session_id, io, options.writer_name ?? 'walscope', (fold, sums) => {
    const plan = planner(fold, sums);
    if (!sameRecords(plan.records, preview.plan.records)) return planChanged();
    const now_ms = options.now_ms ?? Date.now;
    const audit = options.audit === undefined ? null : operatorActionRecord(plan.kind, options.audit, options.based_on_seq ?? preview.based_on_seq, now_ms());
    const records = audit === null ? plan.records : [audit, ...plan.records];
    return (writer) => ({ kind: 'done', plan, audit, appended: appendPlan(writer, records), epoch: writer.fence });
  });
}

/** Every planned record encoded before the lease is taken: opening the writer appends a lineage frame, so a
 *  record that cannot be written must refuse the action while nothing has been written yet. */
function unwritableRecord(records: readonly PlannedRecord[]): Refusal | null {
  for (const [index, record] of records.entries()) {
    try {
      encodeFrame({ ver: FRAME_VER_PLAIN, seq: index + 1, fence: 1, type: record.type, features: [], payload: asPayload(record.payload) });
    } catch (error) {
      return { kind: 'refused', message: `planned record ${index + 1} (${record.type}) cannot be written: ${describe(error)}; nothing was appended` };
    }
  }
  return null;
}

/** Appends each barrier group, then makes it durable before the next group starts. */
function appendPlan(writer: WalWriter, records: readonly PlannedRecord[]): AppendedRecord[] {
  const appended: AppendedRecord[] = [];
  for (const [index, record] of records.entries()) {
    const { seq } = writer.append(record.type, asPayload(record.payload));
    appended.push({ seq, type: record.type, barrier: record.barrier });
    if (records[index + 1]?.barrier !== record.barrier) writer.barrier();
  }
  return appended;
}

// ---------------------------------------------------------------- run_id idempotency

export interface RunStart {
  run_id: string;
  config: JsonPayload;
  input: JsonValue[];
}

export type StartOutcome =
  | { kind: 'started'; episode: number; seq: number; epoch: number }
  | { kind: 'already_started'; episode: number; seq: number }
  | { kind: 'episode_open'; episode: number; message: string }
  | Refusal;

/** Starts a run as one atomic, synced run_started (contract §2). A start whose run_id is already in the WAL
 *  is a retry after a crash and appends nothing (contract §5, run_id idempotency). */
export function startRun(root: string, session_id: string, start: RunStart, options: Omit<RecoveryOptions, 'expected_records'> = {}): StartOutcome {
  const io = options.io ?? nodeFileIO;
  const looked = lookWithoutLease(root, session_id, io);
  if (looked.kind !== 'fold') return looked;
  const earlier = existingStart(looked.fold, start.run_id);
  if (earlier !== null) return earlier;
  return underLease(root, session_id, io, options.writer_name ?? 'walscope-runtime', (fold) => {
    const again = existingStart(fold, start.run_id);
    return again ?? ((writer) => appendRunStart(writer, fold, session_id, start));
  });
}

/** For a runtime that already holds the session's writer and has folded its WAL under the lease. */
export function appendRunStart(writer: WalWriter, fold: SessionFold, session_id: string, start: RunStart): StartOutcome {
  const earlier = existingStart(fold, start.run_id);
  if (earlier !== null) return earlier;
  const open = fold.episodes.at(-1);
  if (open !== undefined && open.finished === null) {
    return { kind: 'episode_open', episode: open.episode, message: `episode ${open.episode} (run ${open.run_id}) has no run_finished: resume, cancel or seal it first` };
  }
  const { seq } = writer.append('run_started', asPayload({ run_id: start.run_id, session: session_id, config: start.config, input: start.input }));
  writer.barrier();
  return { kind: 'started', episode: fold.episodes.length + 1, seq, epoch: writer.fence };
}

function existingStart(fold: SessionFold, run_id: string): StartOutcome | null {
  const episode = fold.episodes.find((candidate) => candidate.run_id === run_id);
  return episode === undefined ? null : { kind: 'already_started', episode: episode.episode, seq: episode.started_seq };
}

// ---------------------------------------------------------------- reading and the lease

/** The session's fold read without any lock, or why there is nothing to act on. */
export function lookWithoutLease(root: string, session_id: string, io: FileIO): Folded | Refusal {
  if (!isValidSessionId(session_id)) return { kind: 'refused', message: `"${session_id}" is not a session id` };
  const dir = sessionDir(root, session_id);
  const probe = probeLease(dir, io);
  if (probe.state === 'live') return leaseHeld(new LeaseHeldError(leasePath(dir), probe.holder));
  return foldSession(root, session_id, io);
}

/** Decides from the fold of the one read under the lease, and opens the writer only to write: opening it
 *  appends a lineage frame, so a decision to write nothing must be taken before, or "nothing was appended" is
 *  untrue. */
export function underLease<T>(
  root: string,
  session_id: string,
  io: FileIO,
  writer_name: string,
  decide: (fold: SessionFold, sums: Sums) => ((writer: WalWriter) => T) | T | Refusal,
): T | Refusal {
  let leased;
  try {
    leased = leaseSession(root, session_id, { io, writer_name, sink: foldingSink });
  } catch (error) {
    if (error instanceof LeaseHeldError) return leaseHeld(error);
    if (error instanceof WalReadError) return { kind: 'refused', message: `the WAL is refused: ${error.message}` };
    throw error;
  }
  let decision;
  try {
    const folder = leased.sink.folder;
    decision = folder.refusal === null ? decide(folder.finish(), folder.sums) : walRefused(folder.refusal);
  } catch (error) {
    leased.release();
    throw error;
  }
  if (typeof decision !== 'function') {
    leased.release();
    return decision;
  }
  const session = leased.openWriter();
  try {
    return (decision as (writer: WalWriter) => T)(session.writer);
  } finally {
    session.close();
  }
}

export interface Folded {
  kind: 'fold';
  fold: SessionFold;
  /** What the fold's classification derived: a plan of the fold takes it on. */
  sums: Sums;
  torn_tail: TornTail | null;
}

/** A fold fed by the reader: it builds what it keeps of each payload in the pass that validates it. */
function foldingSink(): FrameSink & { folder: SessionFolder } {
  const folder = new SessionFolder();
  return { folder, on_frame: (frame, payload_cbor, kept) => folder.push(frame, payload_cbor, kept), decode_payload: folder.decodePayload };
}

/** The session's fold, read without the lease (the preview). */
function foldSession(root: string, session_id: string, io: FileIO): Folded | Refusal {
  const dir = sessionDir(root, session_id);
  const { folder, ...sink } = foldingSink();
  // Only an empty regular file (or none yet) is an empty session: a FIFO or a device also stats as 0 bytes, and
  // the reader refuses it by name below.
  const found = io.stat(walPath(dir));
  if (found === null || (found.is_file && found.size_bytes === 0)) return { kind: 'fold', fold: folder.finish(), sums: folder.sums, torn_tail: null };
  const read = readTarget(sessionTarget(dir), { io, with_payload: false, ...sink });
  const error = read.error ?? folder.refusal;
  if (error !== null) return walRefused(error);
  return { kind: 'fold', fold: folder.finish(), sums: folder.sums, torn_tail: read.torn_tail };
}

function walRefused(error: WalErrorInfo): Refusal {
  return { kind: 'refused', message: `the WAL is refused (${error.kind}): ${error.message}` };
}

function leaseHeld(error: LeaseHeldError): Refusal {
  return { kind: 'lease_held', message: error.message, holder: error.holder };
}

function planChanged(): Refusal {
  return { kind: 'refused', message: 'the WAL changed since the plan was shown: nothing was appended; look at the new plan and try again' };
}

function sameRecords(left: readonly PlannedRecord[], right: readonly PlannedRecord[]): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

/** Planned payloads are JSON values, which are all CBOR values of the format. */
function asPayload(payload: JsonPayload): Payload {
  return payload;
}
