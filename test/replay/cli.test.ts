// The CLI commands, run in-process: `replay --json` names each call's class, exports stay read-only, and the
// actions print their plan, write only when told to, and refuse WAL files and held leases.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReplayJson } from '../../src-shared/replay.js';
import { UsageError, type Command } from '../../src-main/cli/command.js';
import { cancelCommand, resumeCommand, sealCommand } from '../../src-main/cli/actions.js';
import { replayCommand } from '../../src-main/cli/replay.js';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { useTempDirs } from '../helpers/temp.js';
import { diskRecords, SessionScript, walBytes, walOf } from './session-script.js';

const tempDir = useTempDirs('walscope-cli-');

afterEach(() => vi.restoreAllMocks());

async function run(command: Command, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    return { code: await command.run(argv), stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

/** A crashed episode: a completed, b indeterminate, c never left. */
function crashed(root: string): string {
  const calls = [
    { id: 'a', name: 'read_file' },
    { id: 'b', name: 'bash' },
    { id: 'c', name: 'fetch' },
  ];
  SessionScript.write(root, (s) => {
    s.start('r1');
    s.step(1, calls);
    s.batch('b1', 1, calls);
    s.intent('b1', 'a');
    s.intent('b1', 'b');
    s.result('b1', 'a');
  });
  return sessionDir(root, 's1');
}

/** The session script writes no tool-times observations: replay shows none, never a time it made up. */
const UNTIMED = { dispatched_at_ms: null, finished_at_ms: null };

describe('walscope replay', () => {
  it('--json names every call with its class and the resume plan with its records', async () => {
    const folder = crashed(tempDir());
    const { code, stdout } = await run(replayCommand, [folder, '--json']);
    expect(code).toBe(0);
    const json = JSON.parse(stdout) as ReplayJson;
    expect(Object.keys(json)).toEqual(['session', 'wal_id', 'last_seq', 'integrity', 'episodes', 'anomalies', 'run', 'resume', 'price_table']);
    expect(json.session).toBe('s1');
    expect(json.wal_id).toMatch(/^[0-9a-f]{32}$/);
    expect(json.episodes[0]).toMatchObject({ episode: 1, run_id: 'r1', state: 'running', finished: null });
    expect(json.episodes[0]!.batches.at(0)!.calls).toEqual([
      { tool_call_id: 'a', name: 'read_file', class: 'completed', terminal: { type: 'tool_result', seq: 6 }, outcome: 'completed', reason: null, is_error: false, ...UNTIMED },
      { tool_call_id: 'b', name: 'bash', class: 'indeterminate', terminal: null, outcome: null, reason: null, is_error: false, ...UNTIMED },
      { tool_call_id: 'c', name: 'fetch', class: 'never_left', terminal: null, outcome: null, reason: null, is_error: false, ...UNTIMED },
    ]);
    expect(json.resume.action).toBe('close_out');
    expect(json.resume.records.map((record) => [record.type, record.barrier])).toEqual([
      ['resume_started', 0],
      ['tool_result', 0],
      ['tool_result', 0],
      ['tool_batch_finished', 0],
      ['turn_finished', 0],
      ['run_finished', 1],
    ]);
  });

  it('reads an export (a bare WAL file) read-only: nothing is created or changed beside it', async () => {
    const root = tempDir();
    crashed(root);
    const exports = tempDir();
    const copy = path.join(exports, 'customer.wal');
    fs.copyFileSync(walOf(root), copy);
    const { code, stdout } = await run(replayCommand, [copy]);
    expect(code).toBe(0);
    expect(stdout).toContain('indeterminate');
    expect(stdout).toContain('resume: close out (close_out)');
    expect(fs.readdirSync(exports)).toEqual(['customer.wal']);
    expect(fs.readFileSync(copy).equals(walBytes(root))).toBe(true);
  });

  it('asks for one session, not a state root', async () => {
    const root = tempDir();
    crashed(root);
    await expect(run(replayCommand, [root])).rejects.toBeInstanceOf(UsageError);
  });
});

describe('walscope resume|cancel|seal', () => {
  it('refuses a bare WAL file: exports are read-only', async () => {
    const root = tempDir();
    crashed(root);
    const bytes = walBytes(root);
    for (const command of [resumeCommand, cancelCommand, sealCommand]) {
      const { code, stderr } = await run(command, [walOf(root), '--yes', '--reason', 'test']);
      expect(code).toBe(1);
      expect(stderr).toContain('read-only');
    }
    expect(walBytes(root).equals(bytes)).toBe(true);
  });

  it('--dry-run prints the plan and writes nothing; without --yes and without a terminal it writes nothing', async () => {
    const root = tempDir();
    const folder = crashed(root);
    const bytes = walBytes(root);
    const dry = await run(resumeCommand, [folder, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('resume: close out (close_out)');
    expect(dry.stdout).toContain('[barrier 2] run_finished {"reason":"interrupted"');
    const unconfirmed = await run(resumeCommand, [folder]);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toContain('pass --yes');
    expect(walBytes(root).equals(bytes)).toBe(true);
  });

  it('--yes writes the plan it printed, once', async () => {
    const root = tempDir();
    const folder = crashed(root);
    const { code, stdout } = await run(sealCommand, [folder, '--yes', '--reason', 'test']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/appended 6 records \(seq 7–12\) under lease epoch 2/);
    expect(diskRecords(root).at(-1)?.payload['reason']).toBe('interrupted');
    const again = await run(sealCommand, [folder, '--yes', '--reason', 'test']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('records it would append: none');
  });

  it('says "lease held" with the holder while a writer is live, and exits 1', async () => {
    const root = tempDir();
    const folder = crashed(root);
    const live = openSessionForWrite(root, 's1', { writer_name: 'live-runtime' });
    try {
      const { code, stderr } = await run(cancelCommand, [folder, '--yes', '--reason', 'test']);
      expect(code).toBe(1);
      expect(stderr).toContain(`lease held: `);
      expect(stderr).toContain(`pid ${process.pid}`);
    } finally {
      live.close();
    }
  });
});
