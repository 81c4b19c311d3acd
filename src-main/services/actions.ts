// Operator actions from the app, through the replay library's actions (which take the lease with a new epoch
// and re-plan under it). The app adds two guards of its own: an export is never written, and what runs is
// exactly what the operator confirmed: the plan made from the WAL at `based_on_seq`, re-checked under the lease.
import type { ActionKind, ActionOutcome, ActionPreview, ActionRefusal } from '../../src-shared/ipc.js';
import type { RecoveryPlan, SessionFold } from '../../src-shared/replay.js';
import { cancelSession, resumeSession, sealSession, type RecoveryOptions, type RecoveryOutcome } from '../replay/actions.js';
import { planCancel, planResume, planSeal } from '../replay/plan.js';
import type { SessionModel } from './session-model.js';

const PLANNERS: Record<ActionKind, (fold: SessionFold) => RecoveryPlan> = { resume: planResume, cancel: planCancel, seal: planSeal };
const ACTS: Record<ActionKind, (root: string, session_id: string, options: RecoveryOptions) => RecoveryOutcome> = {
  resume: resumeSession,
  cancel: cancelSession,
  seal: sealSession,
};

export function previewAction(model: SessionModel, kind: ActionKind): ActionPreview {
  const fold = model.fold();
  const plan = PLANNERS[kind](fold);
  return { kind, plan, based_on_seq: fold.last_seq, refusal: refusalFor(model, plan) };
}

export function runAction(model: SessionModel, kind: ActionKind, based_on_seq: number): ActionOutcome {
  model.refresh();
  const preview = previewAction(model, kind);
  if (preview.refusal !== null) return { ok: false, kind, refusal: preview.refusal };
  if (preview.based_on_seq !== based_on_seq) {
    return { ok: false, kind, refusal: { reason: 'stale_plan', message: `the session changed since the plan was shown (seq ${based_on_seq} → ${preview.based_on_seq}): nothing was written; review the new plan` } };
  }
  const { root, session } = model.target;
  const outcome = ACTS[kind](root!, session!, { expected_records: preview.plan.records, writer_name: `walscope-app-${kind}` });
  model.refresh();
  if (outcome.kind === 'lease_held') return { ok: false, kind, refusal: { reason: 'lease_held', message: outcome.message, holder: outcome.holder } };
  if (outcome.kind === 'refused') return { ok: false, kind, refusal: { reason: 'stale_plan', message: outcome.message } };
  const written = outcome.appended.map((record, index) => ({
    ...record,
    payload: outcome.plan.records[index]?.payload ?? {},
    fence: outcome.epoch ?? 0,
  }));
  return { ok: true, kind, written, message: `${written.length} record(s) appended under lease epoch ${outcome.epoch ?? '-'}` };
}

function refusalFor(model: SessionModel, plan: RecoveryPlan): ActionRefusal | null {
  const { target } = model;
  if (target.is_export || target.root === null || target.session === null) {
    return { reason: 'read_only', message: 'an export is opened read-only: no lease is taken and nothing is written' };
  }
  const error = model.tailer.read?.error ?? null;
  if (error !== null) return { reason: 'refused_wal', message: `the WAL is refused (${error.kind}): no action is offered` };
  model.probeLease();
  const lease = model.lease;
  if (lease.state === 'live') {
    const holder = lease.holder;
    const who = holder === null ? 'a process that has not written its tenure yet' : `pid ${holder.pid} on ${holder.host}`;
    return { reason: 'lease_held', message: `lease held by ${who}: a live writer owns this session`, holder };
  }
  if (plan.records.length === 0) return { reason: 'nothing_to_do', message: plan.message };
  return null;
}
