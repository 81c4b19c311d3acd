// A WAL's replay (read by recovery/replay-target.ts) and the `walscope replay --json` object made from it.
import type { EpisodeFold, RecoveryEntry, RecoveryPlan, ReplayJson, RunSignal, SessionFold } from '../../src-shared/replay.js';
import type { TargetRead } from '../engine/index.js';
import { episodeCost, PRICE_TABLE_WORDS } from './cost.js';
import type { Sums } from './sums.js';

export interface SessionReplay {
  read: TargetRead;
  fold: SessionFold;
  /** The resume plan, or an empty one naming the refusal when the WAL is refused. */
  resume: RecoveryPlan;
  /** Every recovery an operator ran on this WAL (its operator_action records), acknowledgements among them. */
  recoveries: RecoveryEntry[];
  /** How the last run stands: the session's status word, its attention entry, its unconfirmed calls. */
  run: RunSignal;
  /** What the fold's classification and the plan derived (replay/sums.ts): later functions of the same fold
   *  (an outline, a bundle) take it on instead of deriving it again. */
  sums: Sums;
}

/** A refused WAL gets no recovery: acting on a prefix of damaged or newer data could contradict its rest. The
 *  refusal itself is said where the status is (once), not again in the plan. */
export function refusedPlan(): RecoveryPlan {
  return {
    kind: 'resume',
    action: 'none',
    episode: null,
    message: 'the WAL is refused: no recovery is planned (acting on the part before the refusal could contradict what follows it)',
    replayed: { messages: 0, model_steps: 0, tool_results: 0 },
    redone: [],
    indeterminate: [],
    records: [],
  };
}

export function replayJson(session: string | null, replay: SessionReplay): ReplayJson {
  return replayDocument(session, replay, replay.fold.episodes.map(episodeJson));
}

/** The `replay --json` object with `episodes` as the caller makes them: the CLI writes a million records'
 *  episodes one at a time (cli/json-out.ts) rather than building them all. */
export function replayDocument<Episodes>(session: string | null, replay: SessionReplay, episodes: Episodes): Omit<ReplayJson, 'episodes'> & { episodes: Episodes } {
  const { read, fold, resume, run } = replay;
  return {
    session,
    wal_id: fold.wal_id,
    last_seq: fold.last_seq,
    integrity: { ok: read.error === null, torn_tail: read.torn_tail, in_progress_tail: read.in_progress_tail, error: read.error },
    episodes,
    anomalies: fold.anomalies,
    run,
    resume: {
      action: resume.action,
      episode: resume.episode,
      message: resume.message,
      replayed: resume.replayed,
      redone: resume.redone,
      indeterminate: resume.indeterminate,
      records: resume.records,
    },
    price_table: PRICE_TABLE_WORDS,
  };
}

/** One episode of `replay --json`: its steps and batches with each call's class, terminal and times. */
export function episodeJson(episode: EpisodeFold): ReplayJson['episodes'][number] {
  return {
    episode: episode.episode,
    run_id: episode.run_id,
    state: episode.state,
    finished: episode.finished === null ? null : { seq: episode.finished.seq, reason: episode.finished.reason },
    cost: episodeCost(episode),
    steps: episode.steps.map((step) => ({
      step_id: step.step_id,
      seq: step.seq,
      attempts: step.attempts.length,
      tool_calls: step.tool_use_ids.length,
      natural_end: step.natural_end,
      turn_finished: step.turn_finished_seq,
    })),
    batches: episode.batches.map((batch) => ({
      batch_id: batch.batch_id,
      step_id: batch.step_id,
      sequential: batch.sequential,
      finished: batch.finished_seq === null ? null : { seq: batch.finished_seq },
      committable: batch.committable,
      calls: batch.calls.map((call) => {
        const terminal = call.terminals[0];
        return {
          tool_call_id: call.tool_call_id,
          name: call.name,
          class: call.class,
          terminal: terminal === undefined ? null : { type: terminal.type, seq: terminal.seq },
          outcome: terminal?.outcome ?? null,
          reason: terminal?.reason ?? null,
          is_error: terminal?.is_error ?? false,
          dispatched_at_ms: call.dispatched_at_ms,
          finished_at_ms: call.finished_at_ms,
        };
      }),
    })),
    anomalies: episode.anomalies,
  };
}
