// The fold: a pure function of a WAL's frames, fed frame by frame (the app folds a live WAL as it grows) or all
// at once. It attaches every record to its episode, step, batch and call; classification, the committable
// check and the episode states are derived from that in `snapshot`. Lineage frames, informational records and
// unknown types are kept as references, shown and never acted on (wal-format §5 step 5).
import type {
  BatchFold,
  CallFold,
  EpisodeFold,
  JsonPayload,
  QueueEntry,
  RecordRef,
  SessionFold,
  StepFold,
} from '../../src-shared/replay.js';
import type { ReadFrame } from '../../src-shared/wal.js';
import { classifyBatch } from './classify.js';
import { anomaly, checkEpisode } from './committable.js';
import { episodeState } from './state.js';
import { flag, highestTag, integer, isMap, mapOrNull, text, texts, toJsonPayload, toolUses } from './values.js';

export function foldFrames(frames: Iterable<ReadFrame>): SessionFold {
  const folder = new SessionFolder();
  for (const frame of frames) folder.push(frame);
  return folder.snapshot();
}

/** Records that only decorate the step they belong to (compaction and context-ceiling machinery). */
const STEP_NOTE_TYPES: ReadonlySet<string> = new Set([
  'compaction_view_applied',
  'compaction_notice',
  'compaction_message',
  'compaction_request',
  'compaction_answer',
  'compaction_wait',
  'context_ceiling_wait',
  'context_ceiling_decided',
  'budget_fired',
]);

type Handler = (folder: SessionFolder, payload: JsonPayload, ref: RecordRef) => void;

export class SessionFolder {
  private readonly fold: SessionFold = {
    wal_id: null,
    last_seq: 0,
    next_tag: 1,
    records: [],
    episodes: [],
    queue: [],
    queue_drain_order: [],
    outside: [],
    anomalies: [],
  };
  private readonly batches = new Map<string, { episode: EpisodeFold; batch: BatchFold }>();
  private readonly run_ids = new Map<string, number>();
  // Indexes that keep each record's routing O(1): a linear search per record made long episodes quadratic.
  private readonly steps_by_id = new WeakMap<EpisodeFold, Map<number, StepFold>>();
  private readonly pending_queue = new Map<string, QueueEntry[]>();

  push(frame: ReadFrame): void {
    const ref: RecordRef = { seq: frame.seq, offset: frame.offset, fence: frame.fence, type: frame.type };
    this.fold.records.push(ref);
    const payload = toJsonPayload(frame.payload ?? {});
    if (frame.seq === 0) {
      this.fold.wal_id ??= text(payload, 'wal_id');
      this.fold.next_tag = Math.max(this.fold.next_tag, integer(payload, 'next_tag') ?? 0);
      this.fold.outside.push(ref);
      return;
    }
    this.fold.last_seq = frame.seq;
    // Every record counts, whatever its type: the count is per session, and a tag is never reused.
    this.fold.next_tag = Math.max(this.fold.next_tag, highestTag(payload['tags']) + 1);
    const episode = this.openEpisode();
    if (episode !== null) episode.last_seq = frame.seq;
    // The type is WAL text: a type named like an Object.prototype member is unknown, not a member (§5.5).
    const handler = Object.hasOwn(HANDLERS, frame.type) ? HANDLERS[frame.type] : undefined;
    if (handler !== undefined) handler(this, payload, ref);
    else if (STEP_NOTE_TYPES.has(frame.type)) this.attachNote(payload, ref);
    else this.show(ref);
  }

  /** The runner tag the next tagged part gets (SessionFold.next_tag), without the copy a snapshot makes. */
  get next_tag(): number {
    return this.fold.next_tag;
  }

  /** The fold so far, classified and checked. A copy: pushing more frames does not change it. */
  snapshot(): SessionFold {
    const fold = structuredClone(this.fold);
    for (const episode of fold.episodes) {
      for (const batch of episode.batches) classifyBatch(batch);
      episode.anomalies.push(...checkEpisode(episode));
      episode.state = episodeState(episode);
    }
    fold.queue_drain_order = pendingInDrainOrder(fold).map((entry) => entry.submission_id);
    return fold;
  }

  // ---------------------------------------------------------------- routing

  /** The last episode while it has no run_finished. */
  openEpisode(): EpisodeFold | null {
    const last = this.fold.episodes.at(-1);
    return last !== undefined && last.finished === null ? last : null;
  }

  /** The episode a run record belongs to, or null (reported) when it falls outside every episode. */
  episodeFor(ref: RecordRef): EpisodeFold | null {
    const episode = this.openEpisode();
    if (episode === null) {
      this.fold.outside.push(ref);
      this.fold.anomalies.push(anomaly('record_outside_episode', `${ref.type} at seq ${ref.seq} is outside any episode`, [ref.seq]));
    }
    return episode;
  }

  show(ref: RecordRef): void {
    const episode = this.openEpisode();
    if (episode === null) this.fold.outside.push(ref);
    else episode.shown.push(ref);
  }

  step(episode: EpisodeFold, step_id: number): StepFold {
    let steps = this.steps_by_id.get(episode);
    if (steps === undefined) {
      steps = new Map();
      this.steps_by_id.set(episode, steps);
    }
    let step = steps.get(step_id);
    if (step === undefined) {
      step = {
        step_id,
        seq: null,
        attempts: [],
        assistant_message: null,
        usage: null,
        tool_use_ids: [],
        natural_end: false,
        batch_id: null,
        turn_finished_seq: null,
        notes: [],
      };
      episode.steps.push(step);
      steps.set(step_id, step);
    }
    return step;
  }

  /** The batch `batch_id` names when this episode started it. */
  batchOf(episode: EpisodeFold, batch_id: string | null): BatchFold | undefined {
    const found = batch_id === null ? undefined : this.batches.get(batch_id);
    return found?.episode === episode ? found.batch : undefined;
  }

  /** The batch and call a tool record names; anomalies when either is unknown. */
  call(payload: JsonPayload, ref: RecordRef): { episode: EpisodeFold; batch: BatchFold; call: CallFold } | null {
    const batch_id = text(payload, 'batch_id') ?? '';
    const tool_call_id = text(payload, 'tool_call_id') ?? '';
    const found = this.batches.get(batch_id);
    const episode = found?.episode ?? this.episodeFor(ref);
    if (found === undefined) {
      episode?.anomalies.push(anomaly('unknown_batch', `${ref.type} at seq ${ref.seq} names batch ${batch_id}, which was never started`, [ref.seq], batch_id, tool_call_id));
      return null;
    }
    const call = found.batch.calls.find((candidate) => candidate.tool_call_id === tool_call_id);
    if (call === undefined) {
      found.episode.anomalies.push(anomaly('unplanned_call', `${ref.type} at seq ${ref.seq} names call ${tool_call_id}, which batch ${batch_id} did not plan`, [ref.seq], batch_id, tool_call_id));
      return null;
    }
    if (found.batch.finished_seq !== null) {
      found.episode.anomalies.push(anomaly('record_after_batch_finished', `${ref.type} at seq ${ref.seq} for call ${tool_call_id} follows tool_batch_finished at seq ${found.batch.finished_seq}`, [found.batch.finished_seq, ref.seq], batch_id, tool_call_id));
    }
    return { episode: found.episode, batch: found.batch, call };
  }

  // ---------------------------------------------------------------- records

  startEpisode(payload: JsonPayload, ref: RecordRef): void {
    const left_open = this.openEpisode();
    const number = this.fold.episodes.length + 1;
    const run_id = text(payload, 'run_id');
    const episode: EpisodeFold = {
      episode: number,
      run_id,
      started_seq: ref.seq,
      config: payload['config'] ?? null,
      input: payload['input'] ?? null,
      // Tagging is fixed when a lineage is first admitted (contract §2), and run_started is the first record a
      // tagging writer tags, so each episode's own start says whether its parts are tagged.
      tagged: (payload['tags'] ?? null) !== null,
      state: 'running',
      finished: null,
      steps: [],
      batches: [],
      steers: [],
      approvals: [],
      cancel_requests: [],
      pauses: [],
      resumes: [],
      shown: [],
      anomalies: [],
      last_seq: ref.seq,
    };
    if (left_open !== null) {
      episode.anomalies.push(anomaly('episode_left_open', `episode ${left_open.episode} has no run_finished before episode ${number} starts at seq ${ref.seq}`, [left_open.started_seq, ref.seq]));
    }
    const earlier = run_id === null ? undefined : this.run_ids.get(run_id);
    if (earlier !== undefined) {
      episode.anomalies.push(anomaly('duplicate_run_id', `run_id ${run_id} at seq ${ref.seq} already started episode ${earlier}; a retried start must append nothing`, [ref.seq]));
    } else if (run_id !== null) {
      this.run_ids.set(run_id, number);
    }
    this.fold.episodes.push(episode);
  }

  startBatch(payload: JsonPayload, ref: RecordRef): void {
    const episode = this.episodeFor(ref);
    if (episode === null) return;
    const batch_id = text(payload, 'batch_id') ?? '';
    if (this.batches.has(batch_id)) {
      episode.anomalies.push(anomaly('duplicate_batch', `tool_batch_started at seq ${ref.seq} reuses batch id ${batch_id}`, [this.batches.get(batch_id)!.batch.started_seq, ref.seq], batch_id));
      return;
    }
    const step_id = integer(payload, 'step_id');
    const batch: BatchFold = {
      batch_id,
      step_id,
      sequential: flag(payload, 'sequential'),
      started_seq: ref.seq,
      finished_seq: null,
      calls: [],
      committable: false,
      mixed_crash: false,
    };
    const planned = Array.isArray(payload['planned_calls']) ? payload['planned_calls'] : [];
    for (const entry of planned) {
      const plan = isMap(entry) ? entry : {};
      const tool_call_id = text(plan, 'tool_call_id') ?? '';
      if (batch.calls.some((call) => call.tool_call_id === tool_call_id)) {
        episode.anomalies.push(anomaly('duplicate_planned_call', `batch ${batch_id} plans call ${tool_call_id} twice`, [ref.seq], batch_id, tool_call_id));
        continue;
      }
      batch.calls.push(plannedCall(plan, tool_call_id, batch.calls.length));
    }
    episode.batches.push(batch);
    this.batches.set(batch_id, { episode, batch });
    if (step_id !== null) this.step(episode, step_id).batch_id = batch_id;
  }

  attachNote(payload: JsonPayload, ref: RecordRef): void {
    const episode = this.openEpisode();
    const step_id = integer(payload, 'step_id');
    // A note without a step_id follows the step boundary it was written at: the latest step.
    const step = episode === null ? undefined : step_id !== null ? this.step(episode, step_id) : episode.steps.at(-1);
    if (step === undefined) this.show(ref);
    else step.notes.push({ seq: ref.seq, type: ref.type, payload });
  }

  queueRecord(payload: JsonPayload, ref: RecordRef): void {
    this.show(ref);
    const submission_id = text(payload, 'submission_id');
    if (submission_id === null) return;
    const pending = this.pending_queue.get(submission_id) ?? [];
    if (ref.type === 'queued') {
      const queued: QueueEntry = {
        submission_id,
        seq: ref.seq,
        request: payload['request'] ?? null,
        delivery: text(payload, 'delivery'),
        title: text(payload, 'title'),
        state: 'pending',
        closed_seq: null,
      };
      this.fold.queue.push(queued);
      this.pending_queue.set(submission_id, [...pending, queued]);
      return;
    }
    const entry = pending.shift();
    if (entry === undefined) return;
    if (pending.length === 0) this.pending_queue.delete(submission_id);
    entry.state = ref.type === 'retracted' ? 'retracted' : 'delivered';
    entry.closed_seq = ref.seq;
  }
}

function plannedCall(plan: JsonPayload, tool_call_id: string, index: number): CallFold {
  return {
    tool_call_id,
    name: text(plan, 'name') ?? '',
    index,
    plan: text(plan, 'plan') === 'no_dispatch' ? 'no_dispatch' : 'dispatch',
    safe: flag(plan, 'safe'),
    class: 'never_left',
    intent: null,
    terminals: [],
    held: null,
    behind: null,
    successors: [],
    dispatched_at_ms: null,
    finished_at_ms: null,
  };
}

const HANDLERS: Record<string, Handler> = {
  run_started: (folder, payload, ref) => folder.startEpisode(payload, ref),

  model_attempt_finished(folder, payload, ref) {
    const episode = folder.openEpisode();
    const step_id = integer(payload, 'step_id');
    if (episode === null || step_id === null) return folder.show(ref);
    folder.step(episode, step_id).attempts.push({
      seq: ref.seq,
      attempt: integer(payload, 'attempt'),
      outcome: text(payload, 'outcome'),
      http_status: integer(payload, 'http_status'),
      ts_ms: integer(payload, 'ts_ms'),
    });
  },

  model_step_finished(folder, payload, ref) {
    const episode = folder.episodeFor(ref);
    if (episode === null) return;
    const step = folder.step(episode, integer(payload, 'step_id') ?? 0);
    step.seq = ref.seq;
    step.assistant_message = payload['assistant_message'] ?? null;
    step.usage = mapOrNull(payload, 'usage');
    step.tool_use_ids = toolUses(step.assistant_message).map((use) => use.id);
    step.natural_end = step.tool_use_ids.length === 0;
    for (const steer of episode.steers) {
      if (steer.joins_step === null) steer.joins_step = step.step_id;
    }
  },

  tool_batch_started: (folder, payload, ref) => folder.startBatch(payload, ref),

  tool_dispatch_intent(folder, payload, ref) {
    const found = folder.call(payload, ref);
    if (found === null) return;
    const { episode, batch, call } = found;
    if (call.intent !== null) {
      episode.anomalies.push(anomaly('duplicate_intent', `call ${call.tool_call_id} has a second intent at seq ${ref.seq}`, [call.intent.seq, ref.seq], batch.batch_id, call.tool_call_id));
      return;
    }
    call.intent = { seq: ref.seq, args: payload['args'] ?? null, module_id: text(payload, 'module_id') };
    call.dispatched_at_ms = integer(payload, 'dispatched_at_ms');
  },

  tool_no_dispatch(folder, payload, ref) {
    const found = folder.call(payload, ref);
    // Only the first terminal counts (a second one is an anomaly), and an intent's time is never replaced.
    if (found?.call.terminals.length === 0 && found.call.intent === null) found.call.dispatched_at_ms = integer(payload, 'dispatched_at_ms');
    found?.call.terminals.push({
      seq: ref.seq,
      type: 'tool_no_dispatch',
      outcome: null,
      is_error: true,
      reason: text(payload, 'reason'),
      output: null,
    });
  },

  tool_result(folder, payload, ref) {
    const found = folder.call(payload, ref);
    if (found?.call.terminals.length === 0) found.call.finished_at_ms = integer(payload, 'finished_at_ms');
    found?.call.terminals.push({
      seq: ref.seq,
      type: 'tool_result',
      outcome: resultOutcome(payload),
      is_error: flag(payload, 'is_error'),
      reason: text(payload, 'reason'),
      output: payload['output'] ?? null,
    });
  },

  tool_call_provider_held(folder, payload, ref) {
    const found = folder.call(payload, ref);
    if (found === null) return;
    const { episode, batch, call } = found;
    if (call.held !== null) {
      episode.anomalies.push(anomaly('duplicate_held', `call ${call.tool_call_id} is held twice`, [call.held.seq, ref.seq], batch.batch_id, call.tool_call_id));
      return;
    }
    call.held = {
      seq: ref.seq,
      call_key: text(payload, 'call_key') ?? '',
      module: text(payload, 'module') ?? '',
      reason: text(payload, 'reason'),
      held_at_ms: integer(payload, 'held_at_ms'),
      sequential: flag(payload, 'sequential'),
      detail_digest: text(payload, 'detail_digest'),
      late_result_seq: null,
    };
  },

  late_result(folder, payload, ref) {
    folder.show(ref);
    const call_key = text(payload, 'call_key');
    for (const call of folder.openEpisode()?.batches.flatMap((batch) => batch.calls) ?? []) {
      if (call.held !== null && call.held.call_key === call_key) call.held.late_result_seq = ref.seq;
    }
  },

  tool_batch_finished(folder, payload, ref) {
    const episode = folder.episodeFor(ref);
    if (episode === null) return;
    const batch = folder.batchOf(episode, text(payload, 'batch_id'));
    if (batch === undefined) {
      episode.anomalies.push(anomaly('unknown_batch', `tool_batch_finished at seq ${ref.seq} names a batch this episode never started`, [ref.seq], text(payload, 'batch_id')));
      return;
    }
    batch.finished_seq ??= ref.seq;
  },

  turn_finished(folder, payload, ref) {
    const episode = folder.episodeFor(ref);
    if (episode === null) return;
    folder.step(episode, integer(payload, 'step_id') ?? 0).turn_finished_seq ??= ref.seq;
  },

  steered(folder, payload, ref) {
    folder.episodeFor(ref)?.steers.push({
      seq: ref.seq,
      send_id: text(payload, 'send_id'),
      delivery: text(payload, 'delivery'),
      title: text(payload, 'title'),
      input: payload['input'] ?? null,
      joins_step: null,
    });
  },

  run_finished(folder, payload, ref) {
    const episode = folder.episodeFor(ref);
    if (episode === null) return;
    episode.finished = { seq: ref.seq, reason: text(payload, 'reason'), usage: mapOrNull(payload, 'usage'), error: payload['error'] ?? null };
  },

  run_cancel_requested(folder, payload, ref) {
    const episode = folder.episodeFor(ref);
    if (episode === null) return;
    const run_id = text(payload, 'run_id');
    if (run_id !== episode.run_id) {
      episode.anomalies.push(anomaly('run_id_mismatch', `run_cancel_requested at seq ${ref.seq} names run ${run_id}, not ${episode.run_id}`, [episode.started_seq, ref.seq]));
    }
    episode.cancel_requests.push({ seq: ref.seq, run_id, at: text(payload, 'at') });
  },

  run_paused(folder, payload, ref) {
    folder.episodeFor(ref)?.pauses.push({ seq: ref.seq, reason: text(payload, 'reason') });
  },

  resume_started(folder, payload, ref) {
    const episode = folder.openEpisode();
    if (episode === null) return folder.show(ref);
    episode.resumes.push({
      seq: ref.seq,
      resumed_from_seq: integer(payload, 'resumed_from_seq'),
      redone: texts(payload['redone']),
      indeterminate: texts(payload['indeterminate']),
    });
  },

  approval_requested: (folder, payload, ref) => approval(folder, payload, ref, 'requested_seq'),
  approval_resolved: (folder, payload, ref) => approval(folder, payload, ref, 'resolved_seq'),
  approval_recorded: (folder, payload, ref) => approval(folder, payload, ref, 'recorded_seq'),

  queued: (folder, payload, ref) => folder.queueRecord(payload, ref),
  retracted: (folder, payload, ref) => folder.queueRecord(payload, ref),
  send_delivered: (folder, payload, ref) => folder.queueRecord(payload, ref),
};

function approval(folder: SessionFolder, payload: JsonPayload, ref: RecordRef, field: 'requested_seq' | 'resolved_seq' | 'recorded_seq'): void {
  const episode = folder.openEpisode();
  const tool_call_id = text(payload, 'tool_call_id');
  if (episode === null || tool_call_id === null) return folder.show(ref);
  let card = episode.approvals.find((candidate) => candidate.tool_call_id === tool_call_id);
  if (card === undefined) {
    card = { tool_call_id, requested_seq: null, resolved_seq: null, decision: null, recorded_seq: null };
    episode.approvals.push(card);
  }
  card[field] ??= ref.seq;
  if (field === 'resolved_seq') card.decision ??= text(payload, 'decision');
}

/** A tool_result's outcome. Records older than the outcome field say unknown_outcome in reason or output. */
function resultOutcome(payload: JsonPayload): CallFold['terminals'][number]['outcome'] {
  const outcome = text(payload, 'outcome');
  if (outcome === 'completed' || outcome === 'unknown' || outcome === 'interrupted' || outcome === 'max_steps') return outcome;
  const unknown = text(payload, 'reason') === 'unknown_outcome' || payload['output'] === 'unknown_outcome';
  return unknown ? 'unknown' : 'completed';
}

/** The pending queue entries in drain order: interrupts first, then plain entries, each in WAL order. */
export function pendingInDrainOrder(fold: SessionFold): QueueEntry[] {
  const pending = fold.queue.filter((entry) => entry.state === 'pending');
  const interrupts = pending.filter((entry) => entry.delivery === 'interrupt');
  const plain = pending.filter((entry) => entry.delivery !== 'interrupt');
  return [...interrupts, ...plain];
}
