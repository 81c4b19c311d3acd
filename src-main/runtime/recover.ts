// Resume through the replay/recovery library (contract §4): the library folds the WAL and plans; the runtime
// either writes the plan's records barrier by barrier (finalize, close-out, cancel close-out, the missing
// run_paused of a held wait) or, when only a runtime can go on, writes resume_started and continues the run
// from the library's classification: calls that never left are sent, an in-flight model step is re-run.
import type { EpisodeFold, PlannedRecord, RecoveryPlan, ResumeAction, SessionFold } from '../../src-shared/replay.js';
import type { Payload } from '../../src-shared/wal.js';
import { planResume } from '../replay/plan.js';
import type { RunContext } from './context.js';
import type { Journal } from './journal.js';
import { RunLoop } from './run-loop.js';

export interface Recovery {
  plan: RecoveryPlan;
  /** The loop to go on with: a continued or paused run; null when the last episode is (now) finished. */
  loop: RunLoop | null;
}

export function recoverSession(journal: Journal, contextFor: (episode: EpisodeFold) => RunContext, on_plan?: (action: ResumeAction) => void): Recovery {
  const fold = journal.fold();
  const plan = planResume(fold, journal.sums);
  on_plan?.(plan.action);
  const episode = fold.episodes.at(-1);
  if (episode === undefined || plan.action === 'none') return { plan, loop: null };
  const ctx = contextFor(episode);
  if (plan.action === 'close_out' && ctx.plants.redispatch_indeterminate === true) return { plan, loop: continueRun(ctx, fold, episode, plan) };
  switch (plan.action) {
    case 'finalize':
    case 'close_out':
    case 'cancel_close_out':
      applyPlan(ctx, plan.records);
      return { plan, loop: null };
    case 'wait_held':
      applyPlan(ctx, plan.records);
      return { plan, loop: RunLoop.resumed(ctx, journal.fold().episodes.at(-1)!) };
    case 'continue':
      return { plan, loop: continueRun(ctx, fold, episode, plan) };
  }
}

function continueRun(ctx: RunContext, fold: SessionFold, episode: EpisodeFold, plan: RecoveryPlan): RunLoop {
  // Informational, written first and made durable by the resume's first barrier.
  ctx.journal.append('resume_started', {
    episode: episode.episode,
    resumed_from_seq: fold.last_seq,
    replayed: { ...plan.replayed },
    redone: plan.redone,
    indeterminate: [],
  });
  return RunLoop.resumed(ctx, episode);
}

/** The plan's records, in order, with a barrier closing each of its barrier groups. */
function applyPlan(ctx: RunContext, records: readonly PlannedRecord[]): void {
  const journal = ctx.journal;
  let index = 0;
  while (index < records.length) {
    const barrier = records[index]!.barrier;
    for (; index < records.length && records[index]!.barrier === barrier; index++) {
      const record = records[index]!;
      const payload: Payload = record.payload;
      // Written as planned, runner tags included: `walscope resume` appends these very bytes.
      const seq = journal.append(record.type, payload);
      if (record.type === 'run_finished') journal.show({ kind: 'run_finished', seq, type: 'run_finished', detail: `${ctx.run_id}: ${String(payload['reason'])}` });
      if (record.type === 'tool_result') journal.show({ kind: 'tool_result', seq, type: 'tool_result', detail: `${String(payload['tool_call_id'])}: ${String(payload['outcome'])}` });
    }
    journal.barrier();
  }
}
