// Small sessions written with the engine's writer under the lease, for the app's tests: an indeterminate call
// (intent without a result), a finished run, and any number of plain records.
import type { Payload } from '../../src-shared/wal.js';
import { openSessionForWrite, type WritableSession } from '../../src-main/engine/session.js';

export function withSession(root: string, session_id: string, build: (append: (type: string, payload: Payload) => number, session: WritableSession) => void): void {
  const session = openSessionForWrite(root, session_id, { writer_name: 'app-test' });
  try {
    build((type, payload) => {
      const { seq } = session.writer.append(type, payload);
      session.writer.barrier();
      return seq;
    }, session);
  } finally {
    session.close();
  }
}

const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });

/** run_started, a step with one tool call, its batch and intent: the call is indeterminate. */
export function writeIndeterminate(root: string, session_id: string, tool_name = 'send_email'): void {
  withSession(root, session_id, (append) => {
    append('run_started', { run_id: `run-${session_id}`, session: session_id, config: { model: 'm' }, input: [user('mail the report')] });
    append('model_step_finished', {
      step_id: 1,
      assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: 'call-1', name: tool_name, input: { to: 'a@example.com' } }] },
      usage: { input_tokens: 5, output_tokens: 3 },
    });
    append('tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: false, planned_calls: [{ tool_call_id: 'call-1', name: tool_name, plan: 'dispatch' }] });
    append('tool_dispatch_intent', { batch_id: 'b1', tool_call_id: 'call-1', args: { to: 'a@example.com' } });
  });
}

/** A finished run whose answer is `text`. */
export function writeFinished(root: string, session_id: string, text = 'done'): void {
  withSession(root, session_id, (append) => {
    append('run_started', { run_id: `run-${session_id}`, session: session_id, config: { model: 'm' }, input: [user('hello')] });
    append('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: [{ type: 'text', text }] }, usage: { input_tokens: 1, output_tokens: 1 } });
    append('run_finished', { reason: 'completed' });
  });
}

/** A finished run with one shell call whose output is `output`; the seq of its tool_result. */
export function writeOutputSession(root: string, session_id: string, output: string): number {
  let result_seq = 0;
  withSession(root, session_id, (append) => {
    append('run_started', { run_id: `run-${session_id}`, session: session_id, config: { model: 'm' }, input: [user('run the tests')] });
    append('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: 'call-1', name: 'shell', input: { command: 'npm test' } }] }, usage: { input_tokens: 5, output_tokens: 3 } });
    append('tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: false, planned_calls: [{ tool_call_id: 'call-1', name: 'shell', plan: 'dispatch' }] });
    append('tool_dispatch_intent', { batch_id: 'b1', tool_call_id: 'call-1', args: { command: 'npm test' } });
    result_seq = append('tool_result', { batch_id: 'b1', tool_call_id: 'call-1', outcome: 'ok', output });
    append('tool_batch_finished', { batch_id: 'b1' });
    append('model_step_finished', { step_id: 2, assistant_message: { role: 'assistant', content: [{ type: 'text', text: 'the tests ran' }] }, usage: { input_tokens: 9, output_tokens: 3 } });
    append('run_finished', { reason: 'completed' });
  });
  return result_seq;
}

/** A test run's output of `lines` lines, coloured as a terminal shows it: each line's verdict in green, a red
 *  traceback from line 999 to 1,003 set once and reset once (its colour carries over lines), the last line
 *  `last line of the output` in bold. */
export function colouredTestOutput(lines: number): string {
  const E = '\u001b';
  const text: string[] = [];
  for (let line = 1; line < lines; line++) {
    if (line === 999) text.push(`${E}[31mTraceback (line 999) starts red`);
    else if (line > 999 && line < 1_003) text.push(`  at frame ${line}`);
    else if (line === 1_003) text.push(`still red at 1003${E}[0m`);
    else text.push(`${E}[32m✓${E}[39m test ${line} passes ${E}[2m${line % 97}ms${E}[22m`);
  }
  text.push(`${E}[1mlast line of the output${E}[0m`);
  return text.join('\n');
}
