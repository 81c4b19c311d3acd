// Retiring a session's live lineage (wal-format §11): under the session's lease, in three steps —
//   1. append the member (sealed: header and the WAL's valid prefix; deleted: a tombstone) to `archive`, barrier;
//   2. write the successor (one lineage frame naming the parent and carrying the counters on), fsync it, rename
//      it over `wal`, sync the session folder;
//   3. rewrite `archive.index` to cover the whole archive.
// Every step is idempotent: a member already there for the live wal_id, whole and matching, is not appended
// again; a live lineage that holds no records (the successor of a finished retire) is not retired again, and
// only step 3 is completed. The plan is computed the same way without the lease (a preview) and under it.
import assert from 'node:assert/strict';
import path from 'node:path';
import { osUser } from './os-user.js';
import type { MemberPlan, Payload, RetirePlan } from '../../src-shared/wal.js';
import type { RetireReason } from './archive-format.js';
import { readArchive, type ArchiveMember } from './archive-reader.js';
import { appendMember, cutTornTail } from './archive-writer.js';
import { describe, WalReadError } from './errors.js';
import { nodeFileIO, type FileIO } from './file-io.js';
import { probeLease } from './lease.js';
import { finishInterruptedIndex, finishRetire, indexOwed, planRetire, refusal, type RetireRefusal } from './retire-steps.js';
import { leaseSession } from './session.js';
import { isValidSessionId, sessionDir, walPath } from './state-root.js';
import { tornTailCopyPath } from './writer.js';

export { SUCCESSOR_TEMP_NAME, type RetireRefusal, type RetireRefusalCode } from './retire-steps.js';
export type { MemberPlan, RetirePlan };

export interface OperatorStamp {
  operator: string;
  reason: string;
  via: string;
}

export interface RetireOptions {
  io?: FileIO;
  writer_name: string;
  reason: RetireReason;
  /** The operator who approved it: recorded as an operator_action in the retiring lineage, first. */
  operator?: OperatorStamp;
  /** The plan the operator approved: if the session under the lease calls for another, nothing is written. */
  expected?: RetirePlan;
  /** The operator approved only the index of a retire that died after step 2 (`index_owed`): anything else
   *  the session calls for under the lease is refused, nothing written. */
  index_only?: boolean;
  now_ms?: () => number;
}

export type RetireOutcome =
  | { kind: 'retired'; plan: RetirePlan; member: ArchiveMember | null; successor_wal_id: string; epoch: number }
  | { kind: 'index_completed'; epoch: number }
  | RetireRefusal;

/** What retiring would write now, read without the lease (for --dry-run and for the operator's approval):
 *  `index_owed` when the live lineage holds nothing to retire but the last retire died before its step 3. */
export function previewRetire(root: string, session_id: string, reason: RetireReason, io: FileIO = nodeFileIO): { kind: 'plan'; plan: RetirePlan } | { kind: 'index_owed'; message: string } | RetireRefusal {
  const dir = checkedSessionDir(root, session_id, io);
  if (typeof dir !== 'string') return dir;
  const probe = probeLease(dir, io);
  if (probe.state === 'live') return refusal('lease_held', `a live writer holds the lease of ${dir} (${probe.holder === null ? 'no tenure yet' : `pid ${probe.holder.pid} on ${probe.holder.host}`}): retire it when it has stopped`);
  const planned = planRetire(root, dir, reason, io);
  if ('kind' in planned && planned.code === 'nothing_to_retire' && indexOwed(io, dir)) {
    return { kind: 'index_owed', message: `${planned.message}; but archive.index does not cover the archive (a retire stopped before its step 3): retiring now writes only the index, under the lease` };
  }
  return 'kind' in planned ? planned : { kind: 'plan', plan: planned };
}

export function retireLineage(root: string, session_id: string, options: RetireOptions): RetireOutcome {
  const io = options.io ?? nodeFileIO;
  const dir = checkedSessionDir(root, session_id, io);
  if (typeof dir !== 'string') return dir;
  // A WAL or archive refused as read is refused before the lease is taken: taking it creates the lease file.
  const looked = planRetire(root, dir, options.reason, io);
  if ('kind' in looked && (looked.code === 'wal_refused' || looked.code === 'archive_refused')) return looked;
  let leased;
  try {
    leased = leaseSession(root, session_id, { io, writer_name: options.writer_name, finish_interrupted_retire: false });
  } catch (error) {
    if (error instanceof WalReadError) return refusal('wal_refused', `the live WAL is refused: ${error.message}`);
    if ((error as { code?: string }).code === 'lease_held') return refusal('lease_held', describe(error));
    throw error;
  }
  try {
    return retireUnderLease(root, dir, options, io, leased);
  } finally {
    leased.release();
  }
}

function retireUnderLease(root: string, dir: string, options: RetireOptions, io: FileIO, leased: ReturnType<typeof leaseSession>): RetireOutcome {
  const now_ms = options.now_ms ?? Date.now;
  const epoch = leased.lease.epoch;
  let plan = planRetire(root, dir, options.reason, io);
  if ('kind' in plan) return plan.code === 'nothing_to_retire' ? completeIndex(io, dir, epoch, plan) : plan;
  if (options.index_only === true || (options.expected !== undefined && !samePlan(plan, options.expected))) {
    return refusal('plan_changed', 'the session changed since the preview: nothing was written; preview it again');
  }
  // The successor names the retire that made it (and the tails it cut), so the audit outlives the lineage: a deleted
  // one keeps only its counts, the operator_action with the rest.
  let retired: Payload | undefined;
  if (options.operator !== undefined && plan.member !== null) {
    const ts_ms = now_ms();
    const stamped = stampOperator(leased, options.operator, plan.live.last_seq, ts_ms);
    retired = { ...stamped, wal_id: Buffer.from(plan.live.wal_id, 'hex'), retired_as: options.reason, cuts: cutsOf(dir, plan) };
    const replanned = planRetire(root, dir, options.reason, io);
    if ('kind' in replanned) return replanned;
    plan = replanned;
  }
  const archive = readArchive(dir, { io });
  assert.equal(archive.error, null, 'planRetire refuses a damaged archive');
  cutTornTail(io, dir, archive);
  const members = [...archive.members];
  let member: ArchiveMember | null = null;
  if (plan.member !== null) {
    const content = options.reason === 'sealed' ? { file: walPath(dir), bytes: plan.member.content_bytes } : null;
    member = appendMember(io, dir, archive.committed_bytes, memberHeader(plan.member, now_ms()), epoch, content);
    members.push(member);
  }
  const successor_wal_id = finishRetire(io, dir, plan, members, options.writer_name, epoch, now_ms(), retired);
  return { kind: 'retired', plan, member, successor_wal_id, epoch };
}

/** A finished retire's successor holds no records: only the index may still be owed (a crash after step 2). */
function completeIndex(io: FileIO, dir: string, epoch: number, refusal_: RetireRefusal): RetireOutcome {
  return finishInterruptedIndex(io, dir, epoch) ? { kind: 'index_completed', epoch } : refusal_;
}

/** Appends the retire's operator_action to the lineage it retires (its writer cuts a torn tail first); returns
 *  what the successor's `retired` repeats of it. */
function stampOperator(leased: ReturnType<typeof leaseSession>, stamp: OperatorStamp, based_on_seq: number, ts_ms: number): Payload {
  const session = leased.openWriter();
  const audit = { operator: stamp.operator, os_user: osUser(), based_on_seq, via: stamp.via, ts_ms };
  const payload: Payload = { action: 'retire', ...audit, reason: stamp.reason };
  session.writer.append('operator_action', payload);
  session.writer.barrier();
  session.writer.close();
  return { ...audit, audit_reason: stamp.reason };
}

/** The torn tails a retire cuts, and the file beside each that keeps its bytes. */
function cutsOf(dir: string, plan: RetirePlan): Payload[] {
  const cuts: Payload[] = [];
  const live = plan.live.torn_tail;
  if (live !== null) cuts.push({ of: 'wal', offset: live.offset, bytes: live.bytes, kept_in: path.basename(tornTailCopyPath(walPath(dir), live.offset)) });
  const archive = plan.archive_torn_tail;
  if (archive !== null) cuts.push({ of: 'archive', offset: archive.offset, bytes: archive.bytes, kept_in: archive.copy_name });
  return cuts;
}

function memberHeader(member: MemberPlan, sealed_ms: number) {
  return {
    wal_id: Buffer.from(member.wal_id, 'hex'),
    reason: member.reason,
    first_seq: member.first_seq,
    last_seq: member.last_seq,
    frames: member.frames,
    content_bytes: member.content_bytes,
    content_sha256: Buffer.from(member.content_sha256, 'hex'),
    sealed_ms,
    next_tag: member.next_tag,
    next_notice_seq: member.next_notice_seq,
  };
}

function samePlan(actual: RetirePlan, expected: RetirePlan): boolean {
  return JSON.stringify(actual) === JSON.stringify(expected);
}

function checkedSessionDir(root: string, session_id: string, io: FileIO): string | RetireRefusal {
  if (!isValidSessionId(session_id)) return refusal('not_a_session', `"${session_id}" is not a session id`);
  const dir = sessionDir(root, session_id);
  if (io.stat(walPath(dir))?.is_file !== true) return refusal('not_a_session', `${dir} holds no WAL: there is nothing to retire`);
  return dir;
}
