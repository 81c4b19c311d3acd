// The Context view of a step in a session of many episodes holds every earlier episode's messages: it reads each
// of their payloads once per look (the request and its lane measured from one rendering), its size is the
// request's CBOR size exactly, and a request longer than the view shows is shown by its head and its tail, where
// this episode's messages are. Counted, not timed: a million-record session's look read ~700,000 payloads (each
// message twice) and took 41 s, and showed only the first episode's messages.
import { describe, expect, it } from 'vitest';
import { sessionTarget } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import type { PayloadReader } from '../../src-main/replay/payloads.js';
import { walPayloadReader } from '../../src-main/recovery/payloads.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { renderStepRequest } from '../../src-main/replay/transcript.js';
import { requestBytes } from '../../src-main/replay/views.js';
import { SessionModel } from '../../src-main/services/session-model.js';
import { CONTEXT_HEAD_MESSAGES, CONTEXT_MESSAGES_MAX } from '../../src-shared/ipc.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-context-reads-');
/** Enough episodes that the last one's request is longer than the view shows (eight messages an episode). */
const EPISODES = 140;
const STEPS = 3;

function writeEpisodes(root: string): void {
  withSession(root, 'many', (append) => {
    for (let episode = 1; episode <= EPISODES; episode++) {
      append('run_started', { run_id: `run-${episode}`, session: 'many', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: `task ${episode}` }] }] });
      for (let step = 1; step <= STEPS; step++) {
        const call = `call-${episode}-${step}`;
        append('model_step_finished', { step_id: step, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: call, name: 'read', input: { step } }] }, usage: { input_tokens: 1, output_tokens: 1 } });
        append('tool_batch_started', { batch_id: `b-${episode}-${step}`, step_id: step, sequential: false, planned_calls: [{ tool_call_id: call, name: 'read', plan: 'dispatch' }] });
        append('tool_dispatch_intent', { batch_id: `b-${episode}-${step}`, tool_call_id: call, args: { step } });
        append('tool_result', { batch_id: `b-${episode}-${step}`, tool_call_id: call, outcome: 'ok', output: `output ${episode}.${step} `.repeat(20) });
        append('tool_batch_finished', { batch_id: `b-${episode}-${step}` });
        append('turn_finished', { step_id: step });
      }
      append('model_step_finished', { step_id: STEPS + 1, assistant_message: { role: 'assistant', content: [{ type: 'text', text: `done ${episode}` }] }, usage: { input_tokens: 1, output_tokens: 1 } });
      append('run_finished', { reason: 'completed' });
    }
  });
}

function counting(read: PayloadReader): { read: PayloadReader; count: () => number } {
  let count = 0;
  return {
    read: (offset, projection) => {
      count += 1;
      return read(offset, projection);
    },
    count: () => count,
  };
}

describe('the Context view of a step after many episodes', () => {
  it('reads each message of the request once a look, measures it exactly, and shows a long one by its head and tail', () => {
    const root = tempDir();
    writeEpisodes(root);
    const target = sessionTarget(sessionDir(root, 'many'));
    // The request as the replay library renders it, from a fold of its own (nothing measured before).
    const alone = counting(walPayloadReader(target.wal_path));
    const request = renderStepRequest(replayTarget(target).fold, EPISODES, 1, alone.read);
    expect(request.problems).toEqual([]);
    expect(request.messages.length).toBeGreaterThan(EPISODES * STEPS * 2);

    const model = new SessionModel('many', target);
    model.refresh();
    for (let look = 1; look <= 2; look++) {
      const before = model.payloads_read;
      const context = model.context(EPISODES, 1);
      // The request's messages once, and the lane's own episode's turns (the sizes of the steps around this one):
      // an assistant and a tool message each tool step, and the last step's answer.
      expect(model.payloads_read - before).toBe(alone.count() + 2 * STEPS + 1);
      expect(context.size_bytes).toBe(requestBytes(request.messages.map((rendered) => rendered.message)).length);
      expect(context.lane.find((step) => step.step_id === 1)?.size_bytes).toBe(context.size_bytes);
      // Past CONTEXT_MESSAGES_MAX, the request's head and its tail, the gap between them counted.
      const origins = request.messages.map((rendered) => rendered.origin);
      const left_out = request.messages.length - CONTEXT_MESSAGES_MAX;
      expect(left_out).toBeGreaterThan(0);
      expect(context).toMatchObject({ messages_left_out: left_out, messages_left_out_at: CONTEXT_HEAD_MESSAGES });
      expect(context.messages.map((message) => message.origin)).toEqual([...origins.slice(0, CONTEXT_HEAD_MESSAGES), ...origins.slice(CONTEXT_HEAD_MESSAGES + left_out)]);
      expect(context.messages.at(-1)?.origin).toEqual({ kind: 'input', episode: EPISODES });
    }
  });
});
