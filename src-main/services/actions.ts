// Operator actions from the app, through the replay library's actions (which take the lease with a new epoch
// and re-plan under it). The app adds guards of its own: an export is never written; what runs is exactly
// what the operator confirmed (the plan made from the WAL at `based_on_seq`, re-checked under the lease); and
// every action that writes carries the operator's reason in its operator_action record.
import type { AcknowledgePreview, AcknowledgeResult, ActionChoice, ActionKind, ActionOutcome, ActionPreview, ActionRefusal, CallRef, WriteChoice, TailRepair } from '../../src-shared/ipc.js';
import type { Finding, PlannedRecord, RecoveryPlan } from '../../src-shared/replay.js';
import { tornTailCopyPath } from '../engine/index.js';
import { auditProblem, cancelSession, resumeSession, sealSession, type OperatorAudit, type RecoveryOptions, type RecoveryOutcome } from '../recovery/actions.js';
import { acknowledgeCall, previewAcknowledge as previewAcknowledgeOf } from '../recovery/acknowledge.js';
import { contradiction, finishesAs } from '../replay/choices.js';
import { planFor } from '../replay/plan.js';
import type { SessionModel } from './session-model.js';

const ACTS: Record<ActionKind, (root: string, session_id: string, options: RecoveryOptions) => RecoveryOutcome> = {
  resume: resumeSession,
  cancel: cancelSession,
  seal: sealSession,
};
const KINDS: readonly ActionKind[] = ['resume', 'cancel', 'seal'];

/** `probe`: look at the lease again (false when the caller just did, for the same moment). */
export function previewAction(model: SessionModel, kind: ActionKind, probe = true): ActionPreview {
  const fold = model.fold();
  const plan = planFor(fold, kind, model.sums);
  const refusal = refusalFor(model, plan, probe);
  return { kind, plan, based_on_seq: fold.last_seq, refusal, tail_repair: tailRepair(model, plan, refusal), contradicts: contradiction(kind, plan, planFor(fold, 'resume', model.sums)) };
}

/** Resume, Cancel and Seal as the session view offers them: each with whether it applies now and why. */
export function actionChoices(model: SessionModel): ActionChoice[] {
  // One look at the lease for the three choices (each look reads the OS's lock table and the tenure file).
  return KINDS.map((kind, at) => {
    const preview = previewAction(model, kind, at === 0);
    return {
      kind,
      applies: preview.refusal === null,
      why: preview.refusal?.message ?? preview.plan.message,
      records: preview.plan.records.length,
      finishes_as: finishesAs(preview.plan),
      contradicts: preview.contradicts,
    };
  });
}

/** "Record what you found…" as the session view offers it: whether an acknowledgement may be written now. */
export function acknowledgeChoice(model: SessionModel): WriteChoice {
  const refusal = writeRefusal(model, false);
  return refusal === null ? { applies: true, why: 'appends one operator_action recording your finding, under the lease' } : { applies: false, why: refusal.message };
}

/** Retire as the session view offers it: whether it applies now and why not, from what the session's own read
 *  knows (the preview under the button reads the WAL and archive again, and says the rest). */
export function retireChoice(model: SessionModel): WriteChoice {
  const refusal = writeRefusal(model, false);
  if (refusal !== null) return { applies: false, why: refusal.message };
  if (model.target.member !== undefined) return { applies: false, why: 'a sealed lineage is read-only: only the live lineage is retired' };
  const read = model.tailer.read;
  if (read === null || read.wal_id === null || read.records === 0) return { applies: false, why: 'the live lineage holds no records: there is nothing to retire' };
  const archive = model.archive_error;
  if (archive !== null) return { applies: false, why: `the archive is refused, so nothing is appended to it: ${archive.message}` };
  return { applies: true, why: `seals the live lineage (seq 1–${read.last_seq}) into the archive, or deletes it keeping only its counts, and starts a successor` };
}

/** Who approves an action and from where: the app's OS user, or an operator elsewhere for whom the fleet agent acts. */
export type ActionApprover = Pick<OperatorAudit, 'operator' | 'via'>;

export function runAction(model: SessionModel, kind: ActionKind, based_on_seq: number, reason: string, approver: ActionApprover): ActionOutcome {
  model.refresh();
  const preview = previewAction(model, kind);
  if (preview.refusal !== null) return { ok: false, kind, refusal: preview.refusal };
  if (preview.based_on_seq !== based_on_seq) {
    return { ok: false, kind, refusal: { reason: 'stale_plan', message: `the session changed since the plan was shown (seq ${based_on_seq} → ${preview.based_on_seq}): nothing was written; review the new plan` } };
  }
  const audit: OperatorAudit = { ...approver, reason: typeof reason === 'string' ? reason : '' };
  const problem = auditProblem(audit);
  if (problem !== null) return { ok: false, kind, refusal: { reason: 'audit', message: `${problem}: nothing was written` } };
  const { root, session } = model.target;
  const outcome = ACTS[kind](root!, session!, { expected_records: preview.plan.records, writer_name: `walscope-app-${kind}`, audit, based_on_seq });
  model.refresh();
  if (outcome.kind === 'lease_held') return { ok: false, kind, refusal: { reason: 'lease_held', message: outcome.message, holder: outcome.holder } };
  if (outcome.kind === 'refused') return { ok: false, kind, refusal: { reason: 'stale_plan', message: outcome.message } };
  const records: PlannedRecord[] = outcome.audit === null ? outcome.plan.records : [outcome.audit, ...outcome.plan.records];
  const written = outcome.appended.map((record, index) => ({ ...record, payload: records[index]?.payload ?? {}, fence: outcome.epoch ?? 0 }));
  return { ok: true, kind, written, message: `${written.length} record(s) appended under lease epoch ${outcome.epoch ?? '-'}` };
}

/** Acknowledging a call of unknown outcome (wal-format §6): the one record it would append, or why it cannot. */
export function previewAcknowledge(model: SessionModel, call: CallRef, finding: Finding): AcknowledgePreview {
  const based_on_seq = model.fold().last_seq;
  const refusal = writeRefusal(model, true);
  if (refusal !== null) return { call, finding, found: null, based_on_seq, refusal, tail_repair: null };
  const { root, session } = model.target;
  const preview = previewAcknowledgeOf(root!, session!, call, finding);
  if (preview.kind === 'lease_held') return { call, finding, found: null, based_on_seq, refusal: { reason: 'lease_held', message: preview.message, holder: preview.holder }, tail_repair: null };
  if (preview.kind === 'refused') return { call, finding, found: null, based_on_seq, refusal: { reason: 'nothing_to_do', message: preview.message }, tail_repair: null };
  const found = { episode: preview.call.episode, name: preview.call.name, may_have: preview.call.may_have };
  return { call, finding, found, based_on_seq: preview.based_on_seq, refusal: null, tail_repair: preview.tail_repair };
}

export function runAcknowledge(model: SessionModel, call: CallRef, finding: Finding, based_on_seq: number, reason: string, approver: ActionApprover): AcknowledgeResult {
  model.refresh();
  const refusal = writeRefusal(model, true);
  if (refusal !== null) return { ok: false, refusal };
  const audit: OperatorAudit = { ...approver, reason };
  const problem = auditProblem(audit);
  if (problem !== null) return { ok: false, refusal: { reason: 'audit', message: `${problem}: nothing was written` } };
  const { root, session } = model.target;
  const outcome = acknowledgeCall(root!, session!, call, finding, audit, { based_on_seq });
  model.refresh();
  if (outcome.kind === 'lease_held') return { ok: false, refusal: { reason: 'lease_held', message: outcome.message, holder: outcome.holder } };
  if (outcome.kind === 'refused') return { ok: false, refusal: { reason: 'stale_plan', message: outcome.message } };
  return { ok: true, seq: outcome.seq, epoch: outcome.epoch, message: `acknowledgement appended at seq ${outcome.seq} under lease epoch ${outcome.epoch}` };
}

function refusalFor(model: SessionModel, plan: RecoveryPlan, probe: boolean): ActionRefusal | null {
  const refusal = writeRefusal(model, probe);
  if (refusal !== null) return refusal;
  if (plan.records.length === 0) return { reason: 'nothing_to_do', message: plan.message };
  return null;
}

/** Why nothing may be written to this session now, whatever the write: an export, a refused WAL, a live lease. */
function writeRefusal(model: SessionModel, probe: boolean): ActionRefusal | null {
  const { target } = model;
  if (target.is_export || target.root === null || target.session === null) {
    return { reason: 'read_only', message: 'an export is opened read-only: no lease is taken and nothing is written' };
  }
  const error = model.tailer.read?.error ?? null;
  if (error !== null) return { reason: 'refused_wal', message: 'the WAL is refused: no action is offered' };
  if (probe) model.probeLease();
  const lease = model.lease;
  if (lease.state === 'live') {
    const holder = lease.holder;
    const who = holder === null ? 'a process that has not written its tenure yet' : `pid ${holder.pid} on ${holder.host}`;
    return { reason: 'lease_held', message: `lease held by ${who}: a live writer owns this session`, holder };
  }
  return null;
}

/** The writer that carries out a plan truncates a torn tail first: that write is part of the preview. */
function tailRepair(model: SessionModel, plan: RecoveryPlan, refusal: ActionRefusal | null): TailRepair | null {
  const torn = model.tailer.read?.torn_tail ?? null;
  if (torn === null || refusal !== null || plan.records.length === 0) return null;
  return { offset: torn.offset, bytes: torn.bytes, copy_path: tornTailCopyPath(model.target.wal_path, torn.offset) };
}
