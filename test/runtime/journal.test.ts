// The runtime's journal folds as it appends: each fold is made from the last, so an append costs what it adds.
// A run of hundreds of steps (the demo's long run) renders a request at every step from that fold; a fold
// copied whole at each step made the run quadratic in its length.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { SessionFolder } from '../../src-main/replay/fold.js';
import { emptyMemory, Journal } from '../../src-main/runtime/journal.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-journal-');

const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });

function turn(journal: Journal, run_id: string, step_id: number): void {
  const batch_id = `${run_id}.b${step_id}`;
  journal.append('model_step_finished', { step_id, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: `c${step_id}`, name: 'shell', input: { command: 'ls' } }] }, usage: { input_tokens: 1, output_tokens: 1 } });
  journal.append('tool_batch_started', { batch_id, step_id, sequential: false, planned_calls: [{ tool_call_id: `c${step_id}`, name: 'shell', plan: 'dispatch' }] });
  journal.append('tool_dispatch_intent', { batch_id, tool_call_id: `c${step_id}`, args: { command: 'ls' } });
  journal.append('tool_result', { batch_id, tool_call_id: `c${step_id}`, outcome: 'completed', output: `listing ${step_id}`, is_error: false });
  journal.append('tool_batch_finished', { batch_id });
  journal.append('turn_finished', { step_id });
}

describe('Journal.fold', () => {
  it('shares what no append reached: a finished episode, and the open episode\'s earlier steps', () => {
    const root = path.join(tempDir(), 'root');
    fs.mkdirSync(root);
    const session = openSessionForWrite(root, 's1', { writer_name: 'journal-test' });
    try {
      const folder = new SessionFolder();
      folder.push(session.writer.lineage_frame);
      const journal = new Journal(session, folder, emptyMemory(), {}, {});
      journal.append('run_started', { run_id: 'r1', session: 's1', config: {}, input: [user('one')] });
      turn(journal, 'r1', 1);
      journal.append('run_finished', { reason: 'completed' });
      journal.append('run_started', { run_id: 'r2', session: 's1', config: {}, input: [user('two')] });
      turn(journal, 'r2', 1);
      const before = journal.fold();
      turn(journal, 'r2', 2);
      const after = journal.fold();
      expect(after.episodes[0]).toBe(before.episodes[0]);
      const [open_before, open_after] = [before.episodes[1]!, after.episodes[1]!];
      expect([...open_after.steps].map((step) => step.step_id)).toEqual([1, 2]);
      expect([...open_after.steps][0]).toBe([...open_before.steps][0]);
      // Each fold is still the whole session as replay folds it.
      expect(journal.renderRequest().messages.map((rendered) => rendered.message['role'])).toEqual(['user', 'assistant', 'tool', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    } finally {
      session.close();
    }
  });
});
