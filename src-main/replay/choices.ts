// Comparing a recovery action with the recommended plan (resume): how each would end the run, and the words
// said before confirmation when Cancel or Seal would contradict what resume prescribes.
import type { RecoveryKind, RecoveryPlan } from '../../src-shared/replay.js';

/** The run_finished reason a plan writes, or null when it writes none. */
export function finishesAs(plan: RecoveryPlan): string | null {
  const finish = plan.records.find((record) => record.type === 'run_finished');
  const reason = finish?.payload['reason'];
  return typeof reason === 'string' ? reason : null;
}

/** Said before confirmation when Cancel or Seal would end the run otherwise than the recommended resume. */
export function contradiction(kind: RecoveryKind, plan: RecoveryPlan, recommended: RecoveryPlan): string | null {
  if (kind === 'resume' || plan.records.length === 0) return null;
  const ours = finishesAs(plan);
  const theirs = finishesAs(recommended);
  if (theirs !== null && theirs !== ours) {
    return `This contradicts the recommended plan: resume (${recommended.action}) records the run as "${theirs}"; ${kind} would record it as "${ours ?? 'unfinished'}".`;
  }
  if (recommended.action === 'continue') {
    return `This contradicts the recommended plan: a runtime can go on with this run (${recommended.message}); ${kind} ends it as "${ours ?? 'unfinished'}" without another model step.`;
  }
  return null;
}
