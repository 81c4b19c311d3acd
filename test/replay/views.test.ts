// Rendering a step's request with compaction views (wal-format §6), on hand-built frames: the replacement in
// place of the covered turns (and the steers among them), the run's input first and later turns after, a
// later view superseding an earlier one, and each way a view no longer assembles, reported and never rendered
// around. The digest is checked on the record's own CBOR, byte strings included.
import { describe, expect, it } from 'vitest';
import type { JsonPayload, MessageOrigin } from '../../src-shared/replay.js';
import type { CborValue, Payload, ReadFrame } from '../../src-shared/wal.js';
import { foldFrames } from '../../src-main/replay/fold.js';
import { type PayloadReader } from '../../src-main/replay/payloads.js';
import { toJsonPayload } from '../../src-main/replay/values.js';
import { laneSizes, renderStepRequest, renderTranscript } from '../../src-main/replay/transcript.js';
import { replacementDigest } from '../../src-main/replay/views.js';

/** The frames the test built last: the fold keeps tool outputs on disk, so rendering reads them back here. */
let built: ReadFrame[] = [];
const payloads: PayloadReader = (offset) => toJsonPayload(built.find((frame) => frame.offset === offset)!.payload ?? {});

function frames(...records: [type: string, payload: Payload][]): ReadFrame[] {
  return (built = records.map(([type, payload], index) => ({
    offset: index * 100,
    size_bytes: 100,
    digest_algorithm: 'sha256',
    ver: 3,
    seq: index + 1,
    fence: 1,
    type,
    features: [],
    payload,
  })));
}

const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
const start = (run_id = 'r1'): [string, Payload] => ['run_started', { run_id, session: 's', config: {}, input: [user(`go ${run_id}`)] }];
/** One committed turn: the step with one tool call, its batch, the result and turn_finished. */
function turn(step_id: number, run = 'r1'): [string, Payload][] {
  const id = `${run}c${step_id}`;
  const batch_id = `${run}b${step_id}`;
  return [
    ['model_step_finished', { step_id, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 't', input: {} }] }, usage: {} }],
    ['tool_batch_started', { batch_id, step_id, sequential: false, planned_calls: [{ tool_call_id: id, name: 't', plan: 'dispatch' }] }],
    ['tool_dispatch_intent', { batch_id, tool_call_id: id, args: {} }],
    ['tool_result', { batch_id, tool_call_id: id, outcome: 'completed', output: `out ${step_id}`, is_error: false }],
    ['tool_batch_finished', { batch_id }],
    ['turn_finished', { step_id }],
  ];
}
function view(step_id: number, version: number, through_step: number, replacement: CborValue[] = [user(`summary v${version}`)], digest = replacementDigest(replacement)): [string, Payload] {
  return ['compaction_view_applied', { step_id, view: { view_id: 'r1.compact', version, through_step, replacement, replacement_sha256: digest }, applied: 'as_published' }];
}
const steer = (text: string): [string, Payload] => ['steered', { send_id: text, input: [user(text)] }];

const origins = (messages: { origin: MessageOrigin }[]) => messages.map((message) => message.origin);
const texts = (messages: { message: JsonPayload }[]) => messages.map((message) => JSON.stringify(message.message['content']));

describe('a step request with compaction views', () => {
  it('puts the replacement where the covered turns were: input first, later turns after', () => {
    const fold = foldFrames(frames(start(), ...turn(1), ...turn(2), view(3, 1, 2), ...turn(3), ['run_finished', { reason: 'completed' }]));
    const request = renderStepRequest(fold, 1, 3, payloads);
    expect(request.problems).toEqual([]);
    expect(origins(request.messages)).toEqual([
      { kind: 'input', episode: 1 },
      { kind: 'view', episode: 1, view_id: 'r1.compact', version: 1, seq: 14 },
    ]);
    expect(request.messages[1]!.message).toEqual(user('summary v1'));
    expect(request.view).toMatchObject({ view_id: 'r1.compact', version: 1, through_step: 2, applied: 'as_published', step_id: 3, replaced_messages: 4 });
    expect(request.view!.replaced_bytes).toBeGreaterThan(request.view!.replacement_bytes);
    // Before the view's step the turns are there; the next request (after step 3) carries turn 3 after the view.
    expect(origins(renderStepRequest(fold, 1, 2, payloads).messages).map((origin) => origin.kind)).toEqual(['input', 'step', 'step']);
    expect(renderStepRequest(fold, 1, 2, payloads).view).toBeNull();
    expect(renderTranscript(fold, payloads)).toEqual([user('go r1'), user('summary v1'), expect.objectContaining({ role: 'assistant' }), expect.objectContaining({ role: 'tool' })]);
  });

  it('replaces the steers among the covered turns and keeps those that joined later', () => {
    const fold = foldFrames(frames(start(), steer('early'), ...turn(1), steer('late'), view(2, 1, 1), ...turn(2)));
    const request = renderStepRequest(fold, 1, 2, payloads);
    expect(texts(request.messages)).toEqual([JSON.stringify(user('go r1').content), JSON.stringify(user('summary v1').content), JSON.stringify(user('late').content)]);
    expect(request.messages[2]!.origin).toEqual({ kind: 'steer', episode: 1, seq: 9 });
  });

  it('a later view supersedes an earlier one from its step on', () => {
    const fold = foldFrames(frames(start(), ...turn(1), view(2, 1, 1), ...turn(2), view(3, 2, 2), ...turn(3)));
    const at2 = renderStepRequest(fold, 1, 2, payloads);
    const at3 = renderStepRequest(fold, 1, 3, payloads);
    expect(at2.view?.version).toBe(1);
    expect(origins(at2.messages).map((origin) => origin.kind)).toEqual(['input', 'view']);
    expect(at3.view?.version).toBe(2);
    expect(texts(at3.messages)).toEqual([JSON.stringify(user('go r1').content), JSON.stringify(user('summary v2').content)]);
    expect(at3.problems).toEqual([]);
  });

  it('a view of an earlier episode stays in force in the next run; the new run starts with its own views', () => {
    const fold = foldFrames(frames(start(), ...turn(1), view(2, 1, 1), ...turn(2), ['run_finished', { reason: 'completed' }], start('r2'), ...turn(1, 'r2')));
    const request = renderStepRequest(fold, 2, 1, payloads);
    expect(request.view).toBeNull();
    expect(origins(request.messages).map((origin) => `${origin.episode}:${origin.kind}`)).toEqual(['1:input', '1:view', '1:step', '1:step', '2:input']);
  });

  it.each([
    ['a digest mismatch', [view(3, 1, 1, [user('summary')], new Uint8Array(32))], 'digest_mismatch'],
    ['a through_step at its own step', [view(3, 1, 3)], 'through_step_not_before_step'],
    ['a through_step below an earlier view', [view(2, 1, 1), view(3, 2, 2), view(4, 3, 1)], 'through_step_regressed'],
    ['a view without its replacement', [['compaction_view_applied', { step_id: 3, view: { view_id: 'x', version: 1, through_step: 1 }, applied: 'as_published' }] as [string, Payload]], 'malformed'],
  ] as const)('%s no longer assembles: the step is not rendered, the problem is reported', (_name, views, cause) => {
    const step_id = (views.at(-1)![1]['step_id'] as number);
    const records: [string, Payload][] = [start()];
    for (let step = 1; step <= step_id; step++) {
      records.push(...views.filter((entry) => entry[1]['step_id'] === step));
      if (step < step_id) records.push(...turn(step));
    }
    const fold = foldFrames(frames(...records));
    const request = renderStepRequest(fold, 1, step_id, payloads);
    expect(request.messages).toEqual([]);
    expect(request.problems).toEqual([expect.objectContaining({ kind: 'view_not_assembled', cause })]);
    expect(renderTranscript(fold, payloads)).toEqual([]);
    // Steps before the broken view still render.
    expect(renderStepRequest(fold, 1, 1, payloads).problems).toEqual([]);
  });

  it('checks the digest on the record\'s CBOR: a byte string in the replacement is not its hex text', () => {
    const media: CborValue[] = [{ role: 'user', content: [{ type: 'media', media_type: 'image/png', data: new Uint8Array([1, 2, 3]) }] }];
    const fold = foldFrames(frames(start(), ...turn(1), view(2, 1, 1, media)));
    const request = renderStepRequest(fold, 1, 2, payloads);
    expect(request.problems).toEqual([]);
    expect(request.messages[1]!.message).toEqual({ role: 'user', content: [{ type: 'media', media_type: 'image/png', data: '010203' }] });
    const hex: CborValue[] = [{ role: 'user', content: [{ type: 'media', media_type: 'image/png', data: '010203' }] }];
    const forged = foldFrames(frames(start(), ...turn(1), view(2, 1, 1, media, replacementDigest(hex))));
    expect(renderStepRequest(forged, 1, 2, payloads).problems[0]?.cause).toBe('digest_mismatch');
  });

  it('the lane\'s one-pass sizes equal each step\'s rendering, views, steers, earlier runs and a cut included', () => {
    const open_batch: [string, Payload][] = turn(4).slice(0, 3);
    const frame_lists = [
      frames(start(), steer('early'), ...turn(1), steer('late'), view(2, 1, 1), ...turn(2), view(3, 2, 2), ...turn(3), steer('after'), ...open_batch, steer('past the cut')),
      frames(start(), ...turn(1), view(2, 1, 1), ...turn(2), ['run_finished', { reason: 'completed' }], start('r2'), ...turn(1, 'r2'), view(3, 1, 2), ...turn(2, 'r2')),
      frames(start(), ...turn(1), view(2, 1, 1), ...turn(2), view(3, 2, 2), ...turn(3), view(4, 3, 1)),
    ];
    for (const list of frame_lists) {
      built = list;
      const fold = foldFrames(list);
      for (const episode of fold.episodes) {
        const step_ids = [...episode.steps.map((step) => step.step_id), 9];
        const expected = step_ids.map((step_id) => {
          const request = renderStepRequest(fold, episode.episode, step_id, payloads);
          return { step_id, size_bytes: request.problems.some((problem) => problem.kind === 'view_not_assembled') ? null : request.size_bytes, view: request.view?.seq ?? null };
        });
        expect(laneSizes(fold, episode.episode, step_ids, payloads).map((lane) => ({ step_id: lane.step_id, size_bytes: lane.size_bytes, view: lane.view?.seq ?? null }))).toEqual(expected);
      }
    }
  });
});
