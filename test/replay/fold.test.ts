// The pure fold on hand-built frames: attachment, classification chains, anomalies with their seqs, the
// incremental fold, steers, queue order, step notes, and the transcript with its provider-validity check.
import { describe, expect, it } from 'vitest';
import type { JsonPayload } from '../../src-shared/replay.js';
import type { Payload, ReadFrame } from '../../src-shared/wal.js';
import { foldFrames, SessionFolder } from '../../src-main/replay/fold.js';
import { planResume } from '../../src-main/replay/plan.js';
import type { PayloadReader } from '../../src-main/replay/payloads.js';
import { renderTranscript } from '../../src-main/replay/transcript.js';
import { checkProviderValid } from '../../src-main/replay/provider-validity.js';

/** Frames with consecutive seqs (lineage frames, seq 0, in between do not count). */
/** Payloads read back from frames held in memory, by offset, as the fold's readers read them from a WAL. */
function payloadsOf(all: ReadFrame[]): PayloadReader {
  return (offset) => all.find((frame) => frame.offset === offset)!.payload as JsonPayload;
}

function frames(...records: [type: string, payload: JsonPayload][]): ReadFrame[] {
  let seq = 0;
  return records.map(([type, payload], index) => {
    if (type !== 'lineage') seq += 1;
    return {
      offset: index * 100,
      size_bytes: 100,
      digest_algorithm: 'sha256',
      ver: 2,
      seq: type === 'lineage' ? 0 : seq,
      fence: 1,
      type,
      features: [],
      payload: payload as Payload,
    };
  });
}

const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
const start = (run_id = 'r1'): [string, JsonPayload] => ['run_started', { run_id, session: 's', config: {}, input: [user('go')] }];
const step = (step_id: number, ids: string[]): [string, JsonPayload] => [
  'model_step_finished',
  {
    step_id,
    assistant_message: { role: 'assistant', content: ids.length === 0 ? [{ type: 'text', text: 'done' }] : ids.map((id) => ({ type: 'tool_use', id, name: 't', input: {} })) },
    usage: { input_tokens: 1 },
  },
];
const batch = (batch_id: string, step_id: number, ids: string[], sequential = false): [string, JsonPayload] => [
  'tool_batch_started',
  { batch_id, step_id, sequential, planned_calls: ids.map((id) => ({ tool_call_id: id, name: 't', plan: 'dispatch' })) },
];
const intent = (batch_id: string, id: string): [string, JsonPayload] => ['tool_dispatch_intent', { batch_id, tool_call_id: id, args: {} }];
const result = (batch_id: string, id: string, outcome = 'completed'): [string, JsonPayload] => ['tool_result', { batch_id, tool_call_id: id, outcome, output: 'ok', is_error: false }];
const held = (batch_id: string, id: string): [string, JsonPayload] => [
  'tool_call_provider_held',
  { batch_id, tool_call_id: id, call_key: `k-${id}`, module: 'm', reason: 'r', held_at_ms: 5, sequential: true },
];

describe('fold', () => {
  it('shows lineage, informational and unknown records without acting on them', () => {
    const fold = foldFrames(
      frames(
        ['lineage', { wal_id: new Uint8Array([0xab, 0xcd]) as unknown as JsonPayload[string] }],
        start(),
        ['model_attempt_finished', { step_id: 1, attempt: 1, outcome: 'ok', ts_ms: 7 }],
        ['brand_new_record', { anything: 1 }],
        step(1, []),
      ),
    );
    expect(fold.wal_id).toBe('abcd');
    expect(fold.outside.map((ref) => ref.seq)).toEqual([0]);
    const episode = fold.episodes[0]!;
    expect(episode.shown.map((ref) => ref.type)).toEqual(['brand_new_record']);
    expect(episode.steps.at(0)!.attempts).toEqual([{ seq: 2, attempt: 1, outcome: 'ok', http_status: null, ts_ms: 7 }]);
    expect(episode.anomalies).toEqual([]);
    expect(planResume(fold).action).toBe('finalize');
  });

  it('classes a sequential chain behind a held call, and names who waits behind whom', () => {
    const fold = foldFrames(frames(start(), step(1, ['a', 'b', 'c']), batch('b1', 1, ['a', 'b', 'c'], true), intent('b1', 'a'), intent('b1', 'b'), intent('b1', 'c'), held('b1', 'a')));
    const calls = fold.episodes[0]!.batches.at(0)!.calls;
    expect(calls.map((call) => [call.class, call.behind])).toEqual([
      ['provider_held', null],
      ['held_successor', 'a'],
      ['held_successor', 'a'],
    ]);
    expect(calls[0]!.successors).toEqual(['b', 'c']);
    expect(calls[0]!.held).toMatchObject({ call_key: 'k-a', module: 'm', held_at_ms: 5 });
  });

  it('does not make successors of a parallel batch wait behind a held call', () => {
    const fold = foldFrames(frames(start(), step(1, ['a', 'b']), batch('b1', 1, ['a', 'b']), intent('b1', 'a'), intent('b1', 'b'), held('b1', 'a')));
    const batch_fold = fold.episodes[0]!.batches.at(0)!;
    expect(batch_fold.calls.map((call) => call.class)).toEqual(['provider_held', 'indeterminate']);
    expect(batch_fold.mixed_crash).toBe(true);
  });

  it('reports violations as anomalies with their seqs, and never throws', () => {
    const fold = foldFrames(
      frames(
        ['tool_result', { batch_id: 'zz', tool_call_id: 'x' }], // 1: outside any episode
        start(), // 2
        step(1, ['a', 'b']), // 3
        batch('b1', 1, ['a']), // 4: plans only a
        intent('b1', 'a'), // 5
        result('b1', 'a'), // 6
        result('b1', 'a'), // 7: duplicate
        result('b1', 'q'), // 8: unplanned
        result('nope', 'a'), // 9: unknown batch
        ['tool_batch_finished', { batch_id: 'b1' }], // 10
        result('b1', 'a'), // 11: after the commit marker
        start(), // 12: reused run_id, episode 1 left open
      ),
    );
    expect(fold.anomalies.map((entry) => [entry.kind, entry.seqs])).toEqual([['record_outside_episode', [1]]]);
    const kinds = fold.episodes[0]!.anomalies.map((entry) => [entry.kind, entry.seqs]);
    expect(kinds).toEqual([
      ['unplanned_call', [8]],
      ['unknown_batch', [9]],
      ['record_after_batch_finished', [10, 11]],
      ['duplicate_terminal', [6, 7, 11]],
      ['step_mismatch', [3, 4]],
      ['finished_not_committable', [10]],
    ]);
    expect(fold.episodes[0]!.batches.at(0)!.committable).toBe(false);
    expect(fold.episodes[1]!.anomalies.map((entry) => entry.kind)).toEqual(['episode_left_open', 'duplicate_run_id']);
  });

  it('folds incrementally: each snapshot is the fold of the frames so far, and later pushes leave it alone', () => {
    const all = frames(start(), step(1, ['a']), batch('b1', 1, ['a']), intent('b1', 'a'), result('b1', 'a'), ['tool_batch_finished', { batch_id: 'b1' }]);
    const folder = new SessionFolder();
    const snapshots = all.map((frame) => {
      folder.push(frame);
      return folder.snapshot();
    });
    snapshots.forEach((snapshot, index) => expect(snapshot).toEqual(foldFrames(all.slice(0, index + 1))));
    expect(snapshots[3]!.episodes[0]!.batches.at(0)!.calls[0]!.class).toBe('indeterminate');
    expect(snapshots[4]!.episodes[0]!.batches.at(0)!.calls[0]!.class).toBe('completed');
  });

  it('attaches compaction and ceiling records to their step, by step_id or to the latest step', () => {
    const fold = foldFrames(frames(start(), ['context_ceiling_wait', { step_id: 1, deadline_ms: 9 }], step(1, []), ['compaction_notice', { seq: 4 }]));
    const steps = fold.episodes[0]!.steps;
    expect(steps.map((entry) => entry.notes.map((note) => [note.type, note.seq]))).toEqual([
      [
        ['context_ceiling_wait', 2],
        ['compaction_notice', 4],
      ],
    ]);
  });

  it('keeps the send queue and drains pending interrupts first', () => {
    const request = { input: [user('tag a release')], config: { model: 'm' } };
    const fold = foldFrames(
      frames(
        ['queued', { submission_id: 'q1', request: {} }],
        ['queued', { submission_id: 'q2', request, title: 'Release', delivery: 'interrupt' }],
        ['queued', { submission_id: 'q3', request: {} }],
        ['retracted', { submission_id: 'q3' }],
        ['queued', { submission_id: 'q4', request: {} }],
        ['send_delivered', { submission_id: 'q1' }],
        ['queued', { submission_id: 'q5', request: {}, delivery: 'interrupt' }],
      ),
    );
    expect(fold.queue.map((entry) => [entry.submission_id, entry.state])).toEqual([
      ['q1', 'delivered'],
      ['q2', 'pending'],
      ['q3', 'retracted'],
      ['q4', 'pending'],
      ['q5', 'pending'],
    ]);
    expect(fold.queue_drain_order).toEqual(['q2', 'q5', 'q4']);
    expect(fold.queue[1]).toEqual({ submission_id: 'q2', seq: 2, request, delivery: 'interrupt', title: 'Release', state: 'pending', closed_seq: null });
    expect(fold.queue[0]!.closed_seq).toBe(6);
    expect(fold.anomalies).toEqual([]);
  });

  it('shows tool-times observations as recorded, null where a record has none, never from a later record', () => {
    const fold = foldFrames(
      frames(
        start(),
        step(1, ['a', 'b', 'c']),
        ['tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: false, planned_calls: [
          { tool_call_id: 'a', name: 't', plan: 'dispatch' },
          { tool_call_id: 'b', name: 't', plan: 'no_dispatch' },
          { tool_call_id: 'c', name: 't', plan: 'dispatch' },
        ] }],
        ['tool_dispatch_intent', { batch_id: 'b1', tool_call_id: 'a', args: {}, dispatched_at_ms: 1_700_000_000_100 }],
        ['tool_no_dispatch', { batch_id: 'b1', tool_call_id: 'b', reason: 'denied', dispatched_at_ms: 1_700_000_000_200 }],
        intent('b1', 'c'),
        ['tool_result', { batch_id: 'b1', tool_call_id: 'a', outcome: 'completed', output: 'ok', is_error: false, finished_at_ms: 1_700_000_000_900 }],
        result('b1', 'c'),
        ['tool_result', { batch_id: 'b1', tool_call_id: 'c', outcome: 'completed', output: 'again', is_error: false, finished_at_ms: 5 }],
      ),
    );
    const calls = fold.episodes[0]!.batches.at(0)!.calls;
    expect(calls.map((call) => [call.tool_call_id, call.dispatched_at_ms, call.finished_at_ms])).toEqual([
      ['a', 1_700_000_000_100, 1_700_000_000_900],
      ['b', 1_700_000_000_200, null],
      // c: untimed intent and result; the duplicate result's time is not the call's.
      ['c', null, null],
    ]);
  });

  it('tracks the next runner tag: the highest tag in any record plus one, floored by a lineage next_tag', () => {
    const tagged = (entry: [string, JsonPayload], tags: JsonPayload[string]): [string, JsonPayload] => [entry[0], { ...entry[1], tags }];
    expect(foldFrames(frames(start(), step(1, []))).next_tag).toBe(1);
    const fold = foldFrames(frames(tagged(start(), [[3], [4]]), ['steered', { input: [user('more')], tags: [[9]] }], tagged(step(1, []), [5])));
    expect(fold.next_tag).toBe(10);
    expect(fold.episodes[0]!.tagged).toBe(true);
    const floored = foldFrames(frames(['lineage', { wal_id: 'x', next_tag: 40 }], tagged(start(), [[40]])));
    expect(floored.next_tag).toBe(41);
    expect(foldFrames(frames(['lineage', { wal_id: 'x', next_tag: 40 }], start())).next_tag).toBe(40);
    expect(foldFrames(frames(start())).episodes[0]!.tagged).toBe(false);
  });
});

describe('transcript', () => {
  it('renders committed turns only (the first uncommitted turn ends it), steers before the next recorded step', () => {
    const history = frames(
        start(),
        ['steered', { input: [user('also this')] }],
        step(1, ['a']),
        batch('b1', 1, ['a']),
        intent('b1', 'a'),
        result('b1', 'a'),
        ['tool_batch_finished', { batch_id: 'b1' }],
        ['turn_finished', { step_id: 1 }],
        step(2, ['b']),
        batch('b2', 2, ['b']),
        intent('b2', 'b'),
        ['steered', { input: [user('late')] }],
    );
    const fold = foldFrames(history);
    expect(fold.episodes[0]!.steers.map((steer) => steer.joins_step)).toEqual([1, null]);
    const messages = renderTranscript(fold, payloadsOf(history));
    expect(messages.map((message) => message['role'])).toEqual(['user', 'user', 'assistant', 'tool']);
    expect(messages[1]).toEqual(user('also this'));
    expect(checkProviderValid(messages)).toEqual({ valid: true, problems: [] });
  });

  it('places a steer after the last step and before run_finished at run_finished: after the turn, before the next run', () => {
    const history = frames(
        start('r1'),
        step(1, ['a']),
        batch('b1', 1, ['a']),
        intent('b1', 'a'),
        ['steered', { input: [user('during the batch')] }],
        result('b1', 'a'),
        ['tool_batch_finished', { batch_id: 'b1' }],
        ['turn_finished', { step_id: 1 }],
        ['steered', { input: [user('at the boundary')] }],
        ['run_finished', { reason: 'cancelled' }],
        ['run_started', { run_id: 'r2', session: 's', config: {}, input: [user('next run')] }],
    );
    const fold = foldFrames(history);
    expect(fold.episodes[0]!.steers.map((steer) => steer.joins_step)).toEqual([null, null]);
    const messages = renderTranscript(fold, payloadsOf(history));
    expect(messages).toEqual([
      user('go'),
      step(1, ['a'])[1]['assistant_message'],
      { role: 'tool', content: [{ type: 'tool_result', tool_use_id: 'a', output: 'ok', is_error: false }] },
      user('during the batch'),
      user('at the boundary'),
      user('next run'),
    ]);
  });

  it('keeps a steer of a finished episode whose last turn was never committed, at the end; an open one waits', () => {
    const history = frames(start('r1'), step(1, ['a']), ['steered', { input: [user('also this')] }], ['run_finished', { reason: 'interrupted' }]);
    const finished = renderTranscript(foldFrames(history), payloadsOf(history));
    expect(finished).toEqual([user('go'), user('also this')]);
    expect(checkProviderValid(finished).valid).toBe(true);
    // While the episode is open the turn may still commit, and the steer then joins after it.
    expect(renderTranscript(foldFrames(history.slice(0, -1)), payloadsOf(history))).toEqual([user('go')]);
  });

  it('finds a tool_use without its result, an orphan result and a duplicate', () => {
    const assistant = (id: string) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 't', input: {} }] });
    const tool = (...ids: string[]) => ({ role: 'tool', content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, output: 'ok', is_error: false })) });
    expect(checkProviderValid([user('x'), assistant('a'), tool('a', 'a', 'z'), assistant('b')]).problems).toEqual([
      { kind: 'duplicate_result', tool_use_id: 'a', message_index: 2 },
      { kind: 'orphan_result', tool_use_id: 'z', message_index: 2 },
      { kind: 'missing_result', tool_use_id: 'b', message_index: 3 },
    ]);
  });
});

describe('hostile payload keys', () => {
  it('a "__proto__" key is an ordinary field: it cannot lend a legacy unknown result an outcome', () => {
    // As the CBOR decoder delivers it: an own "__proto__" property, here claiming outcome completed.
    const legacy = JSON.parse('{"batch_id":"b1","tool_call_id":"a","output":"unknown_outcome","is_error":true,"__proto__":{"outcome":"completed"}}') as JsonPayload;
    const fold = foldFrames(frames(start(), step(1, ['a']), batch('b1', 1, ['a']), intent('b1', 'a'), ['tool_result', legacy]));
    expect(fold.episodes[0]!.batches.at(0)!.calls[0]!.class).toBe('indeterminate');
    expect(planResume(fold).action).toBe('close_out');
  });
});
