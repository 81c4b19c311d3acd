// Reading a WAL into its fold and the `walscope replay --json` object. Read-only: exports and live sessions
// are read exactly as `verify` reads them (inspect.ts), never locked, created or written.
import type { EpisodeFold, JsonValue, RecoveryEntry, RecoveryPlan, ReplayJson, RunSignal, SessionFold } from '../../src-shared/replay.js';
import type { ReadFrame } from '../../src-shared/wal.js';
import type { FileIO } from '../engine/file-io.js';
import { readTarget, VERIFY_DIGEST_WORKER_FILE_BYTES_MIN, type TargetRead, type WalTarget } from '../engine/inspect.js';
import { SessionFolder } from './fold.js';
import { episodeCost, PRICE_TABLE_WORDS } from './cost.js';
import { planResume } from './plan.js';
import { RecoveryLog } from './recoveries.js';
import { liveWords, runSignal } from './signals.js';

export interface SessionReplay {
  read: TargetRead;
  fold: SessionFold;
  /** The resume plan, or an empty one naming the refusal when the WAL is refused. */
  resume: RecoveryPlan;
  /** Every recovery an operator ran on this WAL (its operator_action records), acknowledgements among them. */
  recoveries: RecoveryEntry[];
  /** How the last run stands: the session's status word, its attention entry, its unconfirmed calls. */
  run: RunSignal;
}

/** Folds a WAL in one pass. Payloads are validated by the reader and decoded by the fold from the reader's
 *  buffer, without what stays on disk (tool outputs); a session the fold cannot hold is refused as
 *  `too_large`, naming the record's offset, with the prefix before it shown. `also` sees every frame the fold
 *  sees, with its payload's CBOR (a report collecting lineage frames, say), in the same one read. */
export function replayTarget(target: WalTarget, io?: FileIO, also?: (frame: ReadFrame, payload_cbor: Buffer) => void): SessionReplay {
  const folder = new SessionFolder();
  const log = new RecoveryLog();
  const on_frame = (frame: ReadFrame, payload_cbor: Buffer, kept?: unknown) => {
    folder.push(frame, payload_cbor, kept);
    // The fold built an operator_action's payload whole (it keeps no member table for it): the log reads that.
    // An operator_action, and the WAL's first frame (a successor's lineage frame names the retire that made it).
    if (frame.type === 'operator_action' || frame.offset === 0) log.push({ seq: frame.seq, type: frame.type, fence: frame.fence, payload: builtPayload(kept) });
    else if (log.collecting) log.push({ seq: frame.seq, type: frame.type, fence: frame.fence, payload: null });
    also?.(frame, payload_cbor);
  };
  // A big WAL's digests, small frames' too, are checked on a second thread ahead of this one, which folds while
  // they are hashed: hashing is ~1 µs of the ~7 µs a small frame costs the fold (verify, with less to do a frame,
  // hands only large frames over).
  const whole = readTarget(target, { ...(io === undefined ? {} : { io }), with_payload: false, decode_payload: folder.decodePayload, on_frame, digest_runs_from_bytes: VERIFY_DIGEST_WORKER_FILE_BYTES_MIN });
  const read = whole.error === null && folder.refusal !== null ? { ...whole, error: folder.refusal, checkpoint: null } : whole;
  const fold = folder.finish();
  const resume = read.error === null ? planResume(fold) : refusedPlan();
  const recoveries = log.entries();
  const live = read.live_holder === null ? null : liveWords(read.live_holder.tenure);
  const run = runSignal(fold, { end: read, is_export: target.is_export, resume_action: resume.action, resume_message: resume.message, recoveries, live });
  return { read, fold, resume, recoveries, run };
}

/** What the fold built of a payload it keeps whole, as JSON; null when it built none (past its bounds). */
function builtPayload(kept: unknown): JsonValue {
  return typeof kept === 'object' && kept !== null && !Array.isArray(kept) ? (kept as JsonValue) : null;
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
