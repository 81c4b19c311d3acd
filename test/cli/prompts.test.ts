// The confirmation prompts of the recovery commands in a real pseudo-terminal (util-linux's `script` gives the
// CLI one; this test types into it as a person would, each answer once its question is on the screen): the
// prompt renders as readline draws it, with no escape sequence printed as text, while the WAL's own text in
// the plan above it stays escaped. With pipes, stdin is no terminal and nothing is asked at all.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { withSession } from '../app/wal-fixture.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-prompts-');
const REPO = path.resolve(import.meta.dirname, '../..');
/** A run_id that sets the terminal's title if it reaches the terminal raw. */
const HOSTILE_RUN_ID = 'r1\u001b]0;pwned\u0007';
const HOSTILE_ESCAPED = 'r1\\u001b]0;pwned\\u0007';

/** A session whose open run names a hostile run_id; cancel's plan prints it. */
function hostileSession(): string {
  const root = tempDir();
  withSession(root, 's1', (append) => {
    append('run_started', { run_id: HOSTILE_RUN_ID, session: 's1', config: {}, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
    append('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 't', input: {} }] }, usage: { input_tokens: 1, output_tokens: 1 } });
    append('tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: false, planned_calls: [{ tool_call_id: 'c1', name: 't', plan: 'dispatch' }] });
  });
  return sessionDir(root, 's1');
}

/** Runs `walscope ARGS` on a pseudo-terminal, typing each answer once its question has been drawn. */
function inTerminal(args: string[], answers: [question: string, typed: string][]): Promise<{ code: number | null; screen: string }> {
  const command = ['node', path.join(REPO, 'bin/walscope.js'), ...args].map((word) => `'${word}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, TERM: 'xterm-256color' } });
  let screen = '';
  const pending = answers.slice();
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString('utf8');
    while (pending.length > 0 && screen.includes(pending[0]![0])) child.stdin.write(pending.shift()![1]);
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, screen })));
}

/** What a person reads: the cursor moves and line clears readline draws with are applied, not shown. */
// eslint-disable-next-line no-control-regex
const visible = (screen: string) => screen.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '').replace(/\r/g, '');
const operatorActions = (session: string) => {
  const actions: unknown[] = [];
  readWal(walPath(session), { on_frame: (frame) => frame.type === 'operator_action' && actions.push(frame.payload) });
  return actions;
};

describe('the recovery prompts in a terminal', () => {
  it('asks for the reason and the confirmation cleanly, writes the action, and keeps the WAL text escaped', async () => {
    const session = hostileSession();
    const { code, screen } = await inTerminal(['cancel', session, '--operator', 'ops'], [['(recorded in the WAL): ', 'checked the mailer\r'], ['[y/N] ', 'y\r']]);
    expect(code).toBe(0);
    expect(screen).toContain(HOSTILE_ESCAPED);
    expect(screen.replaceAll(HOSTILE_ESCAPED, '')).not.toMatch(/\\u00[0-9a-f]{2}/i);
    expect(screen).not.toContain('\u001b]0;pwned');
    const lines = visible(screen).split('\n');
    expect(lines).toContain('reason for this action (recorded in the WAL): checked the mailer');
    expect(lines).toContain('append these 6 records? [y/N] y');
    expect(operatorActions(session)).toEqual([expect.objectContaining({ action: 'cancel', operator: 'ops', reason: 'checked the mailer', via: 'cli' })]);
  });

  it('writes nothing when the answer is not "y"', async () => {
    const session = hostileSession();
    const { code, screen } = await inTerminal(['cancel', session], [['(recorded in the WAL): ', 'checked\r'], ['[y/N] ', 'n\r']]);
    expect(code).toBe(1);
    expect(visible(screen)).toContain('not confirmed: nothing was written');
    expect(operatorActions(session)).toEqual([]);
  });

  it('writes nothing when Ctrl+C answers the reason', async () => {
    const session = hostileSession();
    const { code, screen } = await inTerminal(['cancel', session], [['(recorded in the WAL): ', '\u0003']]);
    expect(code).toBe(1);
    expect(visible(screen).split('\n').slice(-3)).toEqual(['reason for this action (recorded in the WAL): ', 'no reason given: nothing was written', '']);
    expect(operatorActions(session)).toEqual([]);
  });
});
