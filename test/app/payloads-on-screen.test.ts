// Tool outputs, assistant messages and tool args stay on disk until a row on screen shows one (issue 9:
// "payloads stay on disk and are read by offset for the rows on screen"). Opening a session, its status, its
// row counts and a page of rows read back only the records of that page; laying out the whole timeline to count
// its rows read every output of a 1 GiB session (37 s and 2.6 GB, each row's preview keeping its whole output
// alive). The reads are counted.
import { describe, expect, it, vi } from 'vitest';
import { sessionTarget } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { SessionModel } from '../../src-main/services/session-model.js';
import { ROW_MESSAGE_CHARS_MAX, ROW_TEXT_CHARS_MAX, ROW_VALUE_CHARS_MAX } from '../../src-main/views/timeline.js';
import { RECORD_PAYLOAD_CHARS_MAX } from '../../src-shared/ipc.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-payloads-on-screen-');
const STEPS = 300;
const PAGE_ROWS = 40;

function sessionOfCalls(root: string): void {
  withSession(root, 'calls', (append) => {
    append('run_started', { run_id: 'run-1', session: 'calls', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
    for (let step = 1; step <= STEPS; step++) {
      const call = `call-${step}`;
      append('model_step_finished', { step_id: step, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: call, name: 'read', input: { step } }] }, usage: { input_tokens: 1, output_tokens: 1 } });
      append('tool_batch_started', { batch_id: `b${step}`, step_id: step, sequential: false, planned_calls: [{ tool_call_id: call, name: 'read', plan: 'dispatch' }] });
      append('tool_dispatch_intent', { batch_id: `b${step}`, tool_call_id: call, args: { step } });
      append('tool_result', { batch_id: `b${step}`, tool_call_id: call, outcome: 'ok', output: `output of step ${step} `.repeat(step === STEPS ? 2_000 : 4) });
      append('tool_batch_finished', { batch_id: `b${step}` });
    }
    append('run_finished', { reason: 'completed' });
  });
}

describe('tool outputs are read for the rows on screen only', () => {
  it('opening, the status and the row counts read no output; a page reads its own', () => {
    const root = tempDir();
    sessionOfCalls(root);
    const model = new SessionModel('calls', sessionTarget(sessionDir(root, 'calls')));
    model.refresh();
    model.detail();
    const counts = model.rowCounts();
    // A step row and its call's row (a batch of one call has no row of its own) a step.
    expect(counts.timeline).toBeGreaterThan(2 * STEPS);
    expect(model.payloads_read).toBe(0);

    const page = model.rows('timeline', counts.timeline - PAGE_ROWS, PAGE_ROWS).rows;
    const calls = page.filter((row) => row.kind === 'call');
    const steps = page.filter((row) => row.kind === 'step');
    expect(calls.length).toBeGreaterThan(0);
    expect(steps.length).toBeGreaterThan(0);
    // A step row reads its model_step_finished (the text), a call row its intent (the args) and its result.
    expect(model.payloads_read).toBe(steps.length + 2 * calls.length);
    const step = steps.at(-1)!;
    expect(step.kind === 'step' && step.step_id).toBe(STEPS);
    const first = calls[0]!;
    expect(first.kind === 'call' && first.call.args).toEqual({ step: Number(first.call.tool_call_id.slice('call-'.length)) });
    const last = calls.at(-1)!;
    expect(last.kind === 'call' && typeof last.call.output === 'string' && last.call.output.length).toBeLessThan(ROW_VALUE_CHARS_MAX + 100);
    expect(last.kind === 'call' && String(last.call.output)).toMatch(/^output of step 300 .*more characters of JSON; open the record\)$/);

    // The same page again comes from the cache.
    model.rows('timeline', counts.timeline - PAGE_ROWS, PAGE_ROWS);
    expect(model.payloads_read).toBe(steps.length + 2 * calls.length);

    // A transcript page reads each message's own records: an assistant message its model_step_finished, a tool
    // message its calls' results (one call a step here), not its whole turn each.
    const read_before = model.payloads_read;
    const messages = model.rows('transcript', 0, PAGE_ROWS).rows;
    const assistant = messages.filter((message) => message.role === 'assistant').length;
    const tool = messages.filter((message) => message.role === 'tool').length;
    expect(assistant + tool).toBeGreaterThan(PAGE_ROWS / 2);
    expect(model.payloads_read - read_before).toBe(assistant + tool);
  });
});

describe('a large output or args is shown as a preview decoded only as far as it shows', () => {
  it('in the timeline and the transcript: the first characters of its JSON text as building it whole gave, decoding about that much', () => {
    const root = tempDir();
    // Escapes, 2-, 3- and 4-byte characters, so that the JSON text is longer than the bytes and the cut can
    // fall inside a surrogate pair.
    const output = { text: 'line "one"\n\té→😀 '.repeat(250_000), exit: 0 };
    const args = { path: 'big.txt', content: '𝄞x'.repeat(40_000) };
    withSession(root, 'big', (append) => {
      append('run_started', { run_id: 'run-1', session: 'big', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
      append('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'write', input: {} }] }, usage: { input_tokens: 1, output_tokens: 1 } });
      append('tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: false, planned_calls: [{ tool_call_id: 'c1', name: 'write', plan: 'dispatch' }] });
      append('tool_dispatch_intent', { batch_id: 'b1', tool_call_id: 'c1', args });
      append('tool_result', { batch_id: 'b1', tool_call_id: 'c1', outcome: 'ok', output });
      append('tool_batch_finished', { batch_id: 'b1' });
      append('run_finished', { reason: 'completed' });
    });
    const model = new SessionModel('big', sessionTarget(sessionDir(root, 'big')));
    model.refresh();
    const decoded = vi.spyOn(Buffer.prototype, 'toString');
    try {
      const rows = model.rows('timeline', 0, model.rowCounts().timeline).rows;
      const call = rows.find((row) => row.kind === 'call');
      if (call?.kind !== 'call') throw new Error('no call row');
      // Each keeps its shape, its long member cut to the preview's length less its short members'.
      const shown_output = call.call.output as { text: string; exit: number };
      expect(shown_output.exit).toBe(0);
      expectTextPreview(shown_output.text, output.text, ROW_VALUE_CHARS_MAX - JSON.stringify(0).length);
      const shown_args = call.call.args as { path: string; content: string };
      expect(shown_args.path).toBe('big.txt');
      expect(shown_args.content.endsWith(`… (${JSON.stringify(args.content).length - (ROW_VALUE_CHARS_MAX - JSON.stringify('big.txt').length)} more characters of JSON; open the record)`)).toBe(true);
      expect(args.content.startsWith(shown_args.content.slice(0, 1_000))).toBe(true);
      expect(call.call.args_gist).toBe('big.txt');
      const messages = model.rows('transcript', 0, model.rowCounts().transcript).rows;
      const tool = messages.find((message) => message.role === 'tool');
      // The result's output, a map and not Parts, is shown as its fields.
      const [result] = tool!.blocks;
      expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'c1', is_error: false, output: [{ type: 'unknown', block_type: null, fields: [['text', expect.any(String)], ['exit', 0]] }] });
      const fields = result?.type === 'tool_result' && result.output[0]?.type === 'unknown' ? result.output[0].fields : [];
      expectTextPreview(fields[0]![1] as string, output.text, ROW_VALUE_CHARS_MAX);
      // Bytes made into strings (the frame's digest and validation read every byte without making one): for each
      // of the three previews up to three bytes a character of it, and its copy; 11 MB when the values were built
      // whole.
      const bytes_decoded = decoded.mock.calls.reduce((sum, args, call) => {
        const buffer = decoded.mock.contexts[call] as Buffer;
        return sum + Math.min(Number(args[2] ?? buffer.length), buffer.length) - Number(args[1] ?? 0);
      }, 0);
      expect(bytes_decoded).toBeLessThan(24 * ROW_VALUE_CHARS_MAX);
    } finally {
      decoded.mockRestore();
    }
  });
});

describe('a long text previews as text, and a long message keeps its blocks', () => {
  it('shows an output string\'s first lines (not its JSON), and each of a hundred results as a block, within the preview\'s length', () => {
    const root = tempDir();
    // Escapes (a cut can fall inside one), and a surrogate pair (a cut can fall between its halves).
    const output = 'line "one"\n\té→😀 '.repeat(2_000);
    const CALLS = 100;
    const calls = Array.from({ length: CALLS }, (_, index) => `c${index}`);
    withSession(root, 'text', (append) => {
      append('run_started', { run_id: 'run-1', session: 'text', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
      append('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: calls.map((id) => ({ type: 'tool_use', id, name: 'read', input: {} })) }, usage: { input_tokens: 1, output_tokens: 1 } });
      append('tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: false, planned_calls: calls.map((id) => ({ tool_call_id: id, name: 'read', plan: 'dispatch' })) });
      for (const id of calls) append('tool_dispatch_intent', { batch_id: 'b1', tool_call_id: id, args: {} });
      for (const id of calls) append('tool_result', { batch_id: 'b1', tool_call_id: id, outcome: 'ok', output });
      append('tool_batch_finished', { batch_id: 'b1' });
      append('run_finished', { reason: 'completed' });
    });
    const model = new SessionModel('text', sessionTarget(sessionDir(root, 'text')));
    model.refresh();

    const call = model.rows('timeline', 0, model.rowCounts().timeline).rows.find((row) => row.kind === 'call');
    const shown = call?.kind === 'call' ? String(call.call.output) : '';
    expectTextPreview(shown, output, ROW_VALUE_CHARS_MAX);
    expect(call?.kind === 'call' && call.call.output_line).toBe('line "one"');

    const message = model.rows('transcript', 0, model.rowCounts().transcript).rows.find((row) => row.role === 'tool');
    const blocks = message!.blocks;
    // Every result a block; their outputs' texts share the message's characters in order, each as text (its
    // lines, not its JSON) up to ROW_TEXT_CHARS_MAX, counting what is left out.
    expect(blocks.map((block) => block.type === 'tool_result' && block.tool_use_id)).toEqual(calls);
    const texts = blocks.map((block) => (block.type === 'tool_result' && block.output[0]?.type === 'text' ? block.output[0] : null));
    let shown_chars = 0;
    for (const text of texts) {
      expect(text).not.toBeNull();
      expect(output.startsWith(text!.text)).toBe(true);
      expect(text!.text.length).toBeLessThanOrEqual(ROW_TEXT_CHARS_MAX);
      expect(text!.more_chars).toBeGreaterThanOrEqual(output.length - text!.text.length);
      shown_chars += text!.text.length;
    }
    expect(texts[0]!.text).toContain('\n');
    expect(shown_chars).toBe(ROW_MESSAGE_CHARS_MAX);
    expect(JSON.stringify(blocks).length).toBeLessThan(2 * ROW_MESSAGE_CHARS_MAX);
  });

  it('shows a record\'s payload past the detail\'s length as its members, its long output cut as text', () => {
    const root = tempDir();
    const output = 'line "one"\n\té→😀 '.repeat(80_000);
    withSession(root, 'record', (append) => {
      append('run_started', { run_id: 'run-1', session: 'record', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
      append('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'read', input: {} }] }, usage: { input_tokens: 1, output_tokens: 1 } });
      append('tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: false, planned_calls: [{ tool_call_id: 'c1', name: 'read', plan: 'dispatch' }] });
      append('tool_dispatch_intent', { batch_id: 'b1', tool_call_id: 'c1', args: {} });
      append('tool_result', { batch_id: 'b1', tool_call_id: 'c1', outcome: 'ok', output });
      append('tool_batch_finished', { batch_id: 'b1' });
    });
    const model = new SessionModel('record', sessionTarget(sessionDir(root, 'record')));
    model.refresh();
    const records = model.rows('records', 0, model.rowCounts().records).rows;
    const result = model.record(records.findIndex((row) => row.type === 'tool_result'))!;
    expect(result.payload_truncated).toBe(true);
    expect(result.payload).toMatchObject({ batch_id: 'b1', tool_call_id: 'c1', outcome: 'ok' });
    const short_chars = 3 * JSON.stringify('b1').length;
    expectTextPreview((result.payload as { output: string }).output, output, RECORD_PAYLOAD_CHARS_MAX - short_chars, '');
    const intent = model.record(records.findIndex((row) => row.type === 'tool_dispatch_intent'))!;
    expect(intent).toMatchObject({ payload_truncated: false, payload: { batch_id: 'b1', tool_call_id: 'c1', args: {} } });
  });
});

/** `shown` is `text`'s first characters, as text, then what is left of its JSON text (and `more`, where to read
 *  it): the decoded head of a JSON text cut after `chars_max` characters, which at most drops an escape cut in two
 *  or makes half a surrogate pair U+FFFD. */
function expectTextPreview(shown: string, text: string, chars_max: number, more = '; open the record'): void {
  const json = JSON.stringify(text);
  const marker = `… (${json.length - chars_max} more characters of JSON${more})`;
  expect(shown.endsWith(marker)).toBe(true);
  const head = shown.slice(0, -marker.length);
  expect(head).toContain('\n');
  expect(text.startsWith(head.endsWith('\uFFFD') ? head.slice(0, -1) : head)).toBe(true);
  expect(JSON.stringify(head).length - 1).toBeGreaterThan(chars_max - 6);
  expect(JSON.stringify(head).length - 1).toBeLessThanOrEqual(chars_max);
}

describe('a message is read back by its place in its turn, not the role the WAL gives it', () => {
  it("an assistant message that says it is a tool's still reads as the model's words, its batch's results after it", () => {
    const root = tempDir();
    withSession(root, 'claims', (append) => {
      append('run_started', { run_id: 'run-1', session: 'claims', config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
      append('model_step_finished', { step_id: 1, assistant_message: { role: 'tool', content: [{ type: 'text', text: 'the model speaking' }, { type: 'tool_use', id: 'c1', name: 'read', input: {} }] }, usage: { input_tokens: 1, output_tokens: 1 } });
      append('tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: false, planned_calls: [{ tool_call_id: 'c1', name: 'read', plan: 'dispatch' }] });
      append('tool_dispatch_intent', { batch_id: 'b1', tool_call_id: 'c1', args: {} });
      append('tool_result', { batch_id: 'b1', tool_call_id: 'c1', outcome: 'ok', output: 'the tool answering' });
      append('tool_batch_finished', { batch_id: 'b1' });
      append('run_finished', { reason: 'completed' });
    });
    const model = new SessionModel('claims', sessionTarget(sessionDir(root, 'claims')));
    model.refresh();
    const rows = model.rows('transcript', 0, model.rowCounts().transcript).rows;
    expect(rows.map((row) => JSON.stringify(row.blocks))).toEqual([
      expect.stringContaining('go'),
      expect.stringContaining('the model speaking'),
      expect.stringContaining('the tool answering'),
    ]);
    expect(JSON.stringify(rows[1]!.blocks)).not.toContain('the tool answering');
  });
});
