// Tool outputs, assistant messages and tool args stay on disk until a row on screen shows one (issue 9:
// "payloads stay on disk and are read by offset for the rows on screen"). Opening a session, its status, its
// row counts and a page of rows read back only the records of that page; laying out the whole timeline to count
// its rows read every output of a 1 GiB session (37 s and 2.6 GB, each row's preview keeping its whole output
// alive). The reads are counted.
import { describe, expect, it, vi } from 'vitest';
import { sessionTarget } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { SessionModel } from '../../src-main/services/session-model.js';
import { ROW_VALUE_CHARS_MAX } from '../../src-main/services/timeline.js';
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
    expect(counts.timeline).toBeGreaterThan(3 * STEPS);
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
    expect(last.kind === 'call' && String(last.call.output)).toMatch(/^"output of step 300 .*more characters; open the record\)$/);

    // The same page again comes from the cache.
    model.rows('timeline', counts.timeline - PAGE_ROWS, PAGE_ROWS);
    expect(model.payloads_read).toBe(steps.length + 2 * calls.length);
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
      expect(call?.kind === 'call' && call.call.output).toBe(previewAsBuilt(output));
      expect(call?.kind === 'call' && call.call.args).toBe(previewAsBuilt(args));
      const messages = model.rows('transcript', 0, model.rowCounts().transcript).rows;
      const tool = messages.find((message) => message.role === 'tool');
      expect(tool?.content).toBe(previewAsBuilt([{ type: 'tool_result', tool_use_id: 'c1', output, is_error: false }]));
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

/** The preview as it was made from the value built whole: its JSON text cut, half a surrogate pair at the cut
 *  made U+FFFD by the round trip through UTF-8. */
function previewAsBuilt(value: unknown): string {
  const text = JSON.stringify(value);
  const head = Buffer.from(text.slice(0, ROW_VALUE_CHARS_MAX), 'utf8').toString('utf8');
  return `${head}… (${text.length - ROW_VALUE_CHARS_MAX} more characters; open the record)`;
}
