// Sessions a runtime could write, made from a seed (the crash simulator's PRNG): episodes of model steps and tool
// batches whose calls meet every fate the fold tells apart (completed, unknown, no dispatch, held and delivered
// late, left in flight, never sent), with the records that decorate them (attempts, notes, steers, approvals,
// pauses, a cancel, a second batch end, queued sends, and now and then a batch id used twice, an anomaly) and
// results many steps late or after their episode closed. The same seed gives the same records on every
// machine, so a failing seed replays exactly.
import type { JsonPayload } from '../../src-shared/replay.js';
import { Prng } from '../../src-main/crashsim/prng.js';

export interface GeneratedRecord {
  type: string;
  payload: JsonPayload;
}

/** Bounds of one generated session: small enough that a check after every record stays cheap. */
export interface SessionShape {
  episodes_max: number;
  steps_max: number;
  calls_max: number;
  /** The session is cut at this many records, as a live WAL is cut mid-run (the checks after every append
   *  cost the square of it). */
  records_max: number;
}

export const SHAPE_DEFAULT: SessionShape = { episodes_max: 3, steps_max: 5, calls_max: 3, records_max: 200 };

type CallFate = 'completed' | 'unknown' | 'no_dispatch' | 'held_late' | 'in_flight' | 'never_left';
const CALL_FATES: readonly CallFate[] = ['completed', 'completed', 'completed', 'unknown', 'no_dispatch', 'held_late', 'in_flight', 'in_flight', 'never_left'];

/** Steps a slow call's result comes after: more than the items a sum keeps its checkpoint back from the end
 *  (replay/resumable.ts CHECKPOINT_BACK_ITEMS). Half the episodes are long, and their first call is slow. */
const SLOW_CALL_STEPS = 9;
const LONG_EPISODE_STEPS = SLOW_CALL_STEPS + 3;

const user = (text: string): JsonPayload => ({ role: 'user', content: [{ type: 'text', text }] });

export function generatedSession(seed: number, shape: SessionShape = SHAPE_DEFAULT): GeneratedRecord[] {
  const random = new Prng(seed);
  const records: GeneratedRecord[] = [];
  let clock_ms = 1_700_000_000_000;
  const tick = () => (clock_ms += 1 + random.int(500));
  const push = (type: string, payload: JsonPayload) => records.push({ type, payload });
  /** The batches started so far. */
  const started: string[] = [];
  /** A decoration between two records of a step, now and then. */
  const noise = (run_id: string, step_id: number) => {
    if (!random.chance(0.25)) return;
    const kind = random.int(6);
    if (kind === 0) push('run_note', { note: `note ${records.length}`, ts_ms: tick() });
    if (kind === 1) push('steered', { send_id: `send-${records.length}`, delivery: 'steer', title: 'steer', input: [user(`steer ${records.length}`)] });
    if (kind === 2) push('compaction_notice', { step_id, note: 'near the ceiling' });
    if (kind === 3) push('run_paused', { run_id, reason: 'tool_held' });
    // A batch id used again (an anomaly naming the earlier batch): its verdict changes though no record reached it.
    if (kind === 5 && started.length > 0) push('tool_batch_started', { batch_id: random.pick(started), step_id, sequential: false, planned_calls: [] });
    if (kind === 4) push('queued', { submission_id: `q${records.length}`, request: { input: [user('later')] }, delivery: random.pick(['plain', 'interrupt']), title: 'queued' });
  };
  /** Calls left in flight, each with the step after which its result comes (steps later, or after its
   *  episode closed): a result many batches back reaches past the point a sum takes on from. */
  const in_flight: { call: { batch_id: string; tool_call_id: string }; due_step: number; slow: boolean }[] = [];
  const resolve = (index: number) => {
    const { call, slow } = in_flight.splice(index, 1)[0]!;
    // A slow call completes: its class changes (an unknown outcome would leave it indeterminate).
    const outcome = slow ? 'completed' : random.pick(['completed', 'unknown']);
    push('tool_result', { ...call, outcome, output: `late output of ${call.tool_call_id}`, finished_at_ms: tick() });
  };
  const resolveDue = (step_id: number) => {
    for (let index = in_flight.length - 1; index >= 0; index--) {
      const entry = in_flight[index]!;
      if (entry.due_step <= step_id && (entry.slow || random.chance(0.7))) resolve(index);
    }
  };
  const episodes = 1 + random.int(shape.episodes_max);
  for (let episode = 1; episode <= episodes; episode++) {
    const run_id = `run-${seed}-${episode}`;
    push('run_started', { run_id, session: 's1', config: { model: 'test-model' }, input: [user(`task ${episode}`)], ts_ms: tick() });
    const long = random.chance(0.5);
    const steps = long ? LONG_EPISODE_STEPS + random.int(shape.steps_max) : 1 + random.int(shape.steps_max);
    for (let step_id = 1; step_id <= steps; step_id++) {
      if (random.chance(0.2)) push('model_attempt_finished', { step_id, attempt: 1, outcome: 'error', http_status: 529, ts_ms: tick() });
      const last = step_id === steps;
      const calls = last && random.chance(0.5) ? 0 : 1 + random.int(shape.calls_max);
      const ids = Array.from({ length: calls }, (_, index) => `c${episode}-${step_id}-${index}`);
      const content = calls === 0 ? [{ type: 'text', text: `answer ${episode}.${step_id}` }] : ids.map((id) => ({ type: 'tool_use', id, name: 'lookup', input: { id } }));
      push('model_step_finished', { step_id, assistant_message: { role: 'assistant', content }, usage: { input_tokens: 1 + random.int(50), output_tokens: 1 + random.int(20) }, ts_ms: tick() });
      noise(run_id, step_id);
      if (calls > 0) writeBatch(run_id, `b${episode}-${step_id}`, step_id, ids, long && step_id === 1);
      resolveDue(step_id);
      if (random.chance(0.8)) push('turn_finished', { step_id });
      noise(run_id, step_id);
    }
    if (random.chance(0.15)) push('run_cancel_requested', { run_id, at: random.pick(['now', 'step_boundary']) });
    // The last episode is left open now and then: a live run.
    if (episode < episodes || random.chance(0.6)) push('run_finished', { reason: 'completed', usage: { input_tokens: 3, output_tokens: 2 } });
    // A result for a call of a closed episode: the fold files it under that episode.
    if (in_flight.length > 0 && random.chance(0.5)) resolve(random.int(in_flight.length));
    for (const entry of in_flight) entry.due_step = 0;
    if (random.chance(0.3)) push('send_delivered', { submission_id: `q${random.int(records.length)}` });
  }
  return records.slice(0, shape.records_max);

  function writeBatch(run_id: string, batch_id: string, step_id: number, ids: readonly string[], slow_first: boolean): void {
    const fates = ids.map((_, index) => (slow_first && index === 0 ? 'in_flight' : random.pick(CALL_FATES)));
    const sequential = random.chance(0.3);
    started.push(batch_id);
    push('tool_batch_started', { batch_id, step_id, sequential, planned_calls: ids.map((id, index) => ({ tool_call_id: id, name: 'lookup', plan: fates[index] === 'no_dispatch' ? 'no_dispatch' : 'dispatch' })) });
    const held: string[] = [];
    ids.forEach((tool_call_id, index) => {
      const fate = fates[index]!;
      const call = { batch_id, tool_call_id };
      if (random.chance(0.2)) push('approval_requested', { tool_call_id });
      if (fate === 'never_left') return;
      if (fate === 'no_dispatch') return push('tool_no_dispatch', { ...call, reason: 'denied', dispatched_at_ms: tick() });
      if (random.chance(0.2)) push('approval_resolved', { tool_call_id, decision: random.pick(['approved', 'denied']) });
      push('tool_dispatch_intent', { ...call, module_id: 'lookup', dispatched_at_ms: tick(), args: { path: `/${tool_call_id}` } });
      noise(run_id, step_id);
      const slow = (slow_first && index === 0) || random.chance(0.3);
      if (fate === 'in_flight') return void in_flight.push({ call, slow, due_step: step_id + (slow ? SLOW_CALL_STEPS + random.int(2) : 1 + random.int(3)) });
      if (fate === 'held_late') {
        push('tool_call_provider_held', { ...call, call_key: `key-${tool_call_id}`, module: 'slow', reason: 'awaiting_human', held_at_ms: tick(), sequential });
        return void held.push(tool_call_id);
      }
      push('tool_result', { ...call, outcome: fate, is_error: fate !== 'completed', output: `output of ${tool_call_id}`, finished_at_ms: tick() });
    });
    for (const tool_call_id of held) if (random.chance(0.6)) push('late_result', { call_key: `key-${tool_call_id}`, output: 'late' });
    const settled = fates.every((fate) => fate !== 'in_flight' && fate !== 'held_late' && fate !== 'never_left');
    if (settled && random.chance(0.85)) {
      push('tool_batch_finished', { batch_id });
      // A second end names the batch without changing it: the change list may name it anyway.
      if (random.chance(0.1)) push('tool_batch_finished', { batch_id });
    }
  }
}
