// A session's history for the app (wal-format §11): the lineage chain, its problems, and the archive's
// integrity, read exactly as `walscope lineages` and `verify` read them. Read-only; a bare WAL file (an export
// of one lineage) has no history beyond itself.
import type { RetirePreview, RetireResult, SessionHistory } from '../../src-shared/ipc.js';
import { toJsonValue } from '../../src-shared/json.js';
import type { RecoveryEntry } from '../../src-shared/replay.js';
import type { ReadFrame, RetirePlan } from '../../src-shared/wal.js';
import {
  readFloor, extractSealedLineage, resolveTargets, type WalTarget, probeLease, historySteps, type LineageRead,
  type MemberReads, previewRetire, retireLineage, walPath,
} from '../engine/index.js';
import { auditProblem } from '../recovery/actions.js';
import type { ActionApprover } from './actions.js';
import { RecoveryLog } from '../replay/recoveries.js';
import { NotFoundError } from '../../src-shared/ipc.js';
import { SessionModel } from './session-model.js';

/** The session model's read of the live lineage: complete, or (`reading`) its first read is still under way. */
export interface LiveLineage {
  lineage: LineageRead | null;
  reading: boolean;
}

/** A history lets the worker answer other calls after this many sealed members, or this long, whichever comes
 *  first: each member is hashed and read as a WAL, and a session retired hourly holds 8,760 after a year (one
 *  member larger than this takes its own time: a member is never split). */
export const HISTORY_MEMBERS_PER_TURN = 64;
export const HISTORY_TURN_MS = 16;

/** With `live_read`, the live lineage is taken from it, not read again (a 1 GiB WAL took seconds, and the worker
 *  answered nothing meanwhile); without it, it is read here. The sealed members are read a turn at a time. */
export async function historyOf(target: WalTarget, live_read?: LiveLineage, member_reads?: MemberReads): Promise<SessionHistory> {
  const dir = target.session_dir;
  if (dir === null || target.member !== undefined || target.wal_path !== walPath(dir)) return { lineages: [], problems: [], archive: null, live_reading: false };
  const history = await inTurns(historySteps(dir, {
    floor_features: target.root === null ? [] : readFloor(target.root),
    ...(member_reads === undefined ? {} : { member_reads }),
    // Only a read made here needs the lease: the model's read probed it already.
    ...(live_read === undefined ? { live: target.root !== null && probeLease(dir).state === 'live' } : { live_lineage: live_read.lineage }),
  }));
  const scan = history.archive;
  const archive = scan.present || scan.index !== 'missing'
    ? {
        index: scan.index,
        members: scan.members.length,
        torn_tail: scan.torn_tail === null ? null : { offset: scan.torn_tail.offset, bytes: scan.torn_tail.bytes },
        error: scan.error,
        damaged_members: history.problems.flatMap((problem) => (problem.kind === 'member_damaged' ? [problem.wal_id] : [])),
      }
    : null;
  return {
    lineages: history.lineages.map(({ offset: _offset, ...lineage }) => ({ ...lineage, retired_by: lineage.where === 'sealed' ? retiredBy(history.member_actions.get(lineage.wal_id) ?? []) : null })),
    problems: history.problems.map((problem) => ({ kind: problem.kind, message: problem.message })),
    archive,
    live_reading: live_read?.reading ?? false,
  };
}

/** Runs `steps` to its end, giving the event loop a turn every HISTORY_MEMBERS_PER_TURN steps or HISTORY_TURN_MS. */
async function inTurns<T>(steps: Generator<void, T>): Promise<T> {
  let turn_started_ms = performance.now();
  for (let taken = 1; ; taken++) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (taken % HISTORY_MEMBERS_PER_TURN !== 0 && performance.now() - turn_started_ms < HISTORY_TURN_MS) continue;
    await new Promise((resolve) => setImmediate(resolve));
    turn_started_ms = performance.now();
  }
}

/** The retire that sealed a lineage: the last operator_action {action: "retire"} of its member. */
function retiredBy(operator_actions: readonly ReadFrame[]): RecoveryEntry | null {
  const log = new RecoveryLog();
  for (const frame of operator_actions) log.push({ seq: frame.seq, type: frame.type, fence: frame.fence, payload: frame.payload === null ? null : toJsonValue(frame.payload) });
  return log.entries().findLast((entry) => entry.action === 'retire') ?? null;
}

export type RetireReasonName = 'sealed' | 'deleted';

export function checkRetireReason(reason: unknown): RetireReasonName {
  if (reason !== 'sealed' && reason !== 'deleted') throw new NotFoundError(`no retire reason "${String(reason)}": "sealed" or "deleted"`);
  return reason;
}

/** Exports (a bare file, a folder outside a state root, a sealed lineage) are never retired. */
function retirable(target: WalTarget): { root: string; session: string } | null {
  if (target.is_export || target.root === null || target.session === null || target.member !== undefined) return null;
  return { root: target.root, session: target.session };
}

const READ_ONLY = { code: 'read_only', message: 'an export is opened read-only: no lease is taken and nothing is written' };

export function previewRetireOf(target: WalTarget, reason: RetireReasonName): RetirePreview {
  const at = retirable(target);
  if (at === null) return { reason, plan: null, refusal: READ_ONLY };
  const preview = previewRetire(at.root, at.session, reason);
  if (preview.kind === 'plan') return { reason, plan: preview.plan, refusal: null };
  // Any writer that takes the lease (an action) completes an owed index: the app's retire has no plan for it.
  return { reason, plan: null, refusal: preview.kind === 'index_owed' ? { code: 'nothing_to_retire', message: preview.message } : { code: preview.code, message: preview.message } };
}

/** As the app's resume, cancel and seal: the operator's reason is required, and the engine writes it as an
 *  operator_action into the retiring lineage first, in its own barrier, before the archive is touched. */
export function runRetireOf(target: WalTarget, reason: RetireReasonName, plan: RetirePlan, audit_reason: string, approver: ActionApprover): RetireResult {
  const at = retirable(target);
  if (at === null) return { ok: false, refusal: READ_ONLY };
  const operator = { ...approver, reason: audit_reason };
  const problem = auditProblem(operator);
  if (problem !== null) return { ok: false, refusal: { code: 'audit', message: `${problem}: nothing was written` } };
  const outcome = retireLineage(at.root, at.session, { writer_name: 'walscope-app-retire', reason, expected: plan, operator });
  if (outcome.kind === 'refused') return { ok: false, refusal: { code: outcome.code, message: outcome.message } };
  if (outcome.kind === 'index_completed') return { ok: true, message: `already retired: the index was completed under lease epoch ${outcome.epoch}`, successor_wal_id: null, epoch: outcome.epoch };
  const member = outcome.member === null ? 'the member was already archived' : `member appended at archive offset ${outcome.member.offset}`;
  return { ok: true, message: `retired ${outcome.plan.live.wal_id} (${reason}): ${member}; successor ${outcome.successor_wal_id}; index rewritten`, successor_wal_id: outcome.successor_wal_id, epoch: outcome.epoch };
}

/** At most this many sealed lineages are open at once; opening another closes the least recently opened. */
export const SEALED_OPEN_MAX = 16;

const SEALED_KEY = /^(.+)@([0-9a-f]{32})$/;

/** The wal_id of the sealed lineage `key` names (`SESSION@WAL_ID`), or null when it names none. */
export function sealedMemberOf(key: string): string | null {
  return SEALED_KEY.exec(key)?.[2] ?? null;
}

/** Sealed lineages opened read-only in the same views, under the key `SESSION@WAL_ID`: each a verified copy of
 *  the member's content in a private temporary folder (the archive is only read), removed on close. */
export class SealedLineages {
  private readonly open = new Map<string, { model: SessionModel; dispose(): void }>();

  /** The model for `key`, opening it; null when `key` does not name a sealed lineage of a known session. */
  model(key: string, session: (key: string) => SessionModel | undefined): SessionModel | null {
    const opened = this.open.get(key);
    if (opened !== undefined) return opened.model;
    const match = SEALED_KEY.exec(key);
    const base = match === null ? undefined : session(match[1]!);
    const dir = base?.target.session_dir ?? null;
    if (base === undefined || dir === null || base.target.member !== undefined) return null;
    const copy = extractSealedLineage(dir, match![2]!);
    if (typeof copy === 'string') throw new NotFoundError(copy);
    const model = new SessionModel(key, resolveTargets(copy.file)[0]!);
    if (this.open.size >= SEALED_OPEN_MAX) this.closeOne(this.open.keys().next().value!);
    this.open.set(key, { model, dispose: copy.dispose });
    return model;
  }

  closeAll(): void {
    for (const key of [...this.open.keys()]) this.closeOne(key);
  }

  private closeOne(key: string): void {
    this.open.get(key)?.dispose();
    this.open.delete(key);
  }
}
