// The Context view of a step in a session of many episodes holds every earlier episode's messages: its first look
// reads each of their payloads once (the request and its lane measured from one reading), later looks and step
// changes only the messages shown and this episode's, its size is the request's CBOR size exactly, and a request
// longer than the view shows is shown by its head and its tail, where this episode's messages are. Counted, not
// timed: a million-record session's look read ~700,000 payloads (each message twice) and took 41 s, and showed
// only the first episode's messages; then each look read 346,000 and built 203,000 messages to show 1,000.
import { describe, expect, it } from 'vitest';
import { sessionTarget } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import type { PayloadReader } from '../../src-main/replay/payloads.js';
import { walPayloadReader } from '../../src-main/recovery/payloads.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { renderStepRequest, renderStepRequestShown } from '../../src-main/replay/transcript.js';
import { checkProviderValid } from '../../src-main/replay/provider-validity.js';
import { requestBytes } from '../../src-main/replay/views.js';
import { SessionModel } from '../../src-main/services/session-model.js';
import { CONTEXT_HEAD_MESSAGES, CONTEXT_MESSAGES_MAX, CONTEXT_TEXT_CHARS_MAX } from '../../src-shared/ipc.js';
import type { MessageOrigin } from '../../src-shared/replay.js';
import type { Payload } from '../../src-shared/wal.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-context-reads-');
/** Enough episodes that the last one's request is longer than the view shows (eight messages an episode). */
const EPISODES = 140;
const STEPS = 3;

/** `strays`: episodes whose last answer also holds a tool_result block, answering nothing. */
function writeEpisodes(root: string, strays: ReadonlySet<number> = new Set()): void {
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
      const stray = strays.has(episode) ? [{ type: 'tool_result', tool_use_id: `stray-${episode}`, output: 'none' }] : [];
      append('model_step_finished', { step_id: STEPS + 1, assistant_message: { role: 'assistant', content: [{ type: 'text', text: `done ${episode}` }, ...stray] }, usage: { input_tokens: 1, output_tokens: 1 } });
      append('run_finished', { reason: 'completed' });
    }
  });
}

/** A step's tool message: the one after its assistant message (the same step's origin twice in a row). */
function isToolMessage(origins: readonly MessageOrigin[], at: number): boolean {
  const [before, origin] = [origins[at - 1], origins[at]!];
  return origin.kind === 'step' && before?.kind === 'step' && before.episode === origin.episode && before.step_id === origin.step_id;
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
  it('reads each message of the request once at its first look, measures it exactly, and shows a long one by its head and tail', () => {
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
      // an assistant and a tool message each tool step, and the last step's answer. Looked at again, the earlier
      // episodes are measured already: only the messages shown are read (a step's, one payload each here).
      // A tool message left out of the view is measured from the fold (its outputs are texts), never read.
      const lane_reads = 2 * STEPS + 1;
      const shown_reads = context.messages.filter((message) => message.origin.kind === 'step').length;
      const origins = request.messages.map((rendered) => rendered.origin);
      const left_out = request.messages.length - CONTEXT_MESSAGES_MAX;
      const tools_left_out = origins.slice(CONTEXT_HEAD_MESSAGES, CONTEXT_HEAD_MESSAGES + left_out).filter((_, at) => isToolMessage(origins, CONTEXT_HEAD_MESSAGES + at)).length;
      expect(tools_left_out).toBeGreaterThan(0);
      expect(model.payloads_read - before).toBe(look === 1 ? alone.count() - tools_left_out + lane_reads : shown_reads + lane_reads);
      expect(context.size_bytes).toBe(requestBytes(request.messages.map((rendered) => rendered.message)).length);
      expect(context.lane.find((step) => step.step_id === 1)?.size_bytes).toBe(context.size_bytes);
      // Past CONTEXT_MESSAGES_MAX, the request's head and its tail, the gap between them counted.
      expect(left_out).toBeGreaterThan(0);
      expect(context).toMatchObject({ messages_left_out: left_out, messages_left_out_at: CONTEXT_HEAD_MESSAGES });
      expect(context.messages.map((message) => message.origin)).toEqual([...origins.slice(0, CONTEXT_HEAD_MESSAGES), ...origins.slice(CONTEXT_HEAD_MESSAGES + left_out)]);
      expect(context.messages.at(-1)?.origin).toEqual({ kind: 'input', episode: EPISODES });
    }
  });

  it('a step change reads the messages shown and its own episode, however many episodes came before', () => {
    const root = tempDir();
    writeEpisodes(root);
    const model = new SessionModel('many', sessionTarget(sessionDir(root, 'many')));
    model.refresh();
    model.context(EPISODES, 1);
    for (const [episode, step_id] of [[EPISODES, STEPS + 1], [EPISODES - 1, 2], [2, 1], [EPISODES, 2]] as const) {
      const before = model.payloads_read;
      const context = model.context(episode, step_id);
      // Of the messages shown, those of earlier episodes are read back (one payload each here); this episode's
      // part is read as it is measured (its turns before the step), and the lane reads the episode's turns.
      const earlier_shown = context.messages.filter((message) => message.origin.kind === 'step' && message.origin.episode < episode).length;
      const own_reads = 2 * (step_id - 1);
      expect({ episode, step_id, reads: model.payloads_read - before }).toEqual({ episode, step_id, reads: earlier_shown + own_reads + 2 * STEPS + 1 });
      expect(context.messages.length).toBeLessThanOrEqual(CONTEXT_MESSAGES_MAX);
    }
  });

  it('judges a message it does not show as the message itself: a stray tool_result in an answer left out', () => {
    const root = tempDir();
    writeEpisodes(root, new Set([20]));
    const target = sessionTarget(sessionDir(root, 'many'));
    const request = renderStepRequest(replayTarget(target).fold, EPISODES, 1, walPayloadReader(target.wal_path));
    expect(request.problems.map((problem) => problem.message)).toEqual([expect.stringContaining('orphan result for stray-20')]);
    const model = new SessionModel('many', target);
    model.refresh();
    const context = model.context(EPISODES, 1);
    expect(context.messages.some((message) => message.origin.kind === 'step' && message.origin.episode === 20)).toBe(false);
    expect(context.problems).toEqual(request.problems);
    expect(context.size_bytes).toBe(requestBytes(request.messages.map((rendered) => rendered.message)).length);
  });

  it('checks provider validity across the episodes as over the whole request, when a seam joins a turn', () => {
    const root = tempDir();
    const user = (content: Payload[]) => [{ role: 'user', content }];
    withSession(root, 'seams', (append) => {
      // A steer at run end opens a tool_use that the next run's input answers: valid only across the seam.
      append('run_started', { run_id: 'r1', session: 'seams', config: { model: 'm' }, input: user([{ type: 'text', text: 'go' }]) });
      append('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: [{ type: 'text', text: 'done' }] }, usage: {} });
      append('steered', { send_id: 'send-1', delivery: 'steer', title: 'open', input: user([{ type: 'tool_use', id: 'across', name: 'read', input: {} }]) });
      append('run_finished', { reason: 'completed' });
      append('run_started', { run_id: 'r2', session: 'seams', config: { model: 'm' }, input: user([{ type: 'tool_result', tool_use_id: 'across', output: 'ok' }, { type: 'tool_result', tool_use_id: 'stray', output: 'no' }]) });
      append('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: [{ type: 'text', text: 'again' }] }, usage: {} });
      append('run_finished', { reason: 'completed' });
    });
    const target = sessionTarget(sessionDir(root, 'seams'));
    const fold = replayTarget(target).fold;
    const request = renderStepRequest(fold, 2, 1, walPayloadReader(target.wal_path));
    const whole = checkProviderValid(request.messages.map((rendered) => rendered.message)).problems;
    expect(whole.map((problem) => problem.tool_use_id)).toEqual(['stray']);
    expect(request.problems.map((problem) => problem.message)).toEqual(whole.map((problem) => `message ${problem.message_index}: ${problem.kind.replaceAll('_', ' ')} for ${problem.tool_use_id}`));
    const model = new SessionModel('seams', target);
    model.refresh();
    expect(model.context(2, 1).problems).toEqual(request.problems);
  });

  it('measures a message it does not show exactly: its outputs by the fold, its answer where it lies', () => {
    const root = tempDir();
    const outputs = ['naïve → ✓ '.repeat(40), { lines: ['a', 'b → c'], exit: 0, ratio: 0.5, none: null, raw: Buffer.from('00ff', 'hex') }, 'x'.repeat(70_000)];
    withSession(root, 'sizes', (append) => {
      append('run_started', { run_id: 'r1', session: 'sizes', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
      const planned_calls = outputs.map((_, at) => ({ tool_call_id: `c${at}`, name: 'read', plan: 'dispatch' }));
      append('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: planned_calls.map((call) => ({ type: 'tool_use', id: call.tool_call_id, name: 'read', input: {} })) }, usage: {} });
      append('tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: false, planned_calls });
      outputs.forEach((output, at) => {
        append('tool_dispatch_intent', { batch_id: 'b1', tool_call_id: `c${at}`, args: {} });
        append('tool_result', { batch_id: 'b1', tool_call_id: `c${at}`, outcome: 'ok', output });
      });
      append('tool_batch_finished', { batch_id: 'b1' });
      append('model_step_finished', { step_id: 2, assistant_message: { role: 'assistant', content: [{ type: 'text', text: 'done ✓' }], score: 0.1, signature: Buffer.from('c0ffee', 'hex') }, usage: {} });
      append('run_finished', { reason: 'completed' });
      append('run_started', { run_id: 'r2', session: 'sizes', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'next' }] }] });
    });
    const target = sessionTarget(sessionDir(root, 'sizes'));
    const read = walPayloadReader(target.wal_path);
    const whole = renderStepRequest(replayTarget(target).fold, 2, 1, read);
    // Its last message shown alone: episode 1's messages are measured, not built (a fold of its own).
    const shown = renderStepRequestShown(replayTarget(target).fold, 2, 1, read, { head: 0, tail: 1, show: (rendered) => rendered });
    expect(shown).toMatchObject({ message_count: whole.messages.length, left_out: whole.messages.length - 1, messages: whole.messages.slice(-1) });
    expect(shown.size_bytes).toBe(requestBytes(whole.messages.map((rendered) => rendered.message)).length);
    expect(whole.size_bytes).toBe(shown.size_bytes);
  });

  it('shows a long output as its first characters and counts the rest, read only as far as it shows', () => {
    const root = tempDir();
    const outputs = ['a'.repeat(20_000), `x${'😀'.repeat(6_000)}`, 'é'.repeat(CONTEXT_TEXT_CHARS_MAX), `"quoted"\n${'→ line\n'.repeat(3_000)}`];
    withSession(root, 'long', (append) => {
      append('run_started', { run_id: 'r1', session: 'long', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
      outputs.forEach((output, at) => {
        const [step_id, call, batch_id] = [at + 1, `c${at}`, `b${at}`];
        append('model_step_finished', { step_id, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: call, name: 'read', input: {} }] }, usage: {} });
        append('tool_batch_started', { batch_id, step_id, sequential: false, planned_calls: [{ tool_call_id: call, name: 'read', plan: 'dispatch' }] });
        append('tool_dispatch_intent', { batch_id, tool_call_id: call, args: {} });
        append('tool_result', { batch_id, tool_call_id: call, outcome: 'ok', output });
        append('tool_batch_finished', { batch_id });
        append('turn_finished', { step_id });
      });
      append('model_step_finished', { step_id: outputs.length + 1, assistant_message: { role: 'assistant', content: [{ type: 'text', text: 'done' }] }, usage: {} });
      append('run_finished', { reason: 'completed' });
    });
    const target = sessionTarget(sessionDir(root, 'long'));
    const model = new SessionModel('long', target);
    model.refresh();
    const context = model.context(1, outputs.length + 1);
    const shown = context.messages.filter((message) => message.role === 'tool').map((message) => message.blocks[0]);
    expect(shown).toEqual(outputs.map((output) => {
      const cut = output.length > CONTEXT_TEXT_CHARS_MAX ? output.slice(0, CONTEXT_TEXT_CHARS_MAX).replace(/[\ud800-\udbff]$/u, '') : output;
      return expect.objectContaining({ type: 'tool_result', output: [{ type: 'text', text: cut, more_chars: output.length - cut.length }] });
    }));
    // The request's size is the whole outputs' all the same.
    const request = renderStepRequest(replayTarget(target).fold, 1, outputs.length + 1, walPayloadReader(target.wal_path));
    expect(context.size_bytes).toBe(requestBytes(request.messages.map((rendered) => rendered.message)).length);
  });
});
