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
