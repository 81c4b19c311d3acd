// Human output that WAL text cannot forge (one field, one line), and `dump` as a stream: it never reads far
// ahead of whoever reads its output, and it ends quietly when that reader goes away. Real child processes on
// engine-written WALs.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_READER_GONE } from '../../src-main/cli/command.js';
import { encodeFrame } from '../../src-main/engine/frame-codec.js';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-cli-hostile-');
const REPO = path.resolve(import.meta.dirname, '../..');
const CLI = ['--import', 'tsx', path.join(REPO, 'src-main/cli/main.ts')];

function walscope(...args: string[]) {
  const result = spawnSync(process.execPath, [...CLI, ...args], { cwd: REPO, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A line that, printed raw, reads as verify's verdict on a session that is not there. */
const FORGED = '\nOK       session forged (/tmp/forged)\r\nOK       session forged2';
const forgedLine = /^(OK|USABLE|REFUSED)?\s*session forged/m;

/** An open episode whose run_id, pause reason, cancel and finish reason carry forged lines. */
function forgedSession(root = tempDir()): string {
  const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
  const run_id = `r1${FORGED}`;
  session.writer.append('run_started', { run_id: 'r0', session: 's1', config: {}, input: [] });
  session.writer.append('run_finished', { reason: `completed${FORGED}` });
  session.writer.append('run_started', { run_id, session: 's1', config: {}, input: [] });
  session.writer.append('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: [{ type: 'tool_use', id: `a${FORGED}`, name: 'n', input: {} }] }, usage: {} });
  session.writer.append('tool_batch_started', { batch_id: `b${FORGED}`, step_id: 1, sequential: false, planned_calls: [{ tool_call_id: `a${FORGED}`, name: `n${FORGED}`, plan: 'dispatch' }] });
  session.writer.append('tool_dispatch_intent', { batch_id: `b${FORGED}`, tool_call_id: `a${FORGED}`, args: {} });
  session.writer.append('run_paused', { run_id, reason: `tool_held${FORGED}` });
  session.writer.append('run_cancel_requested', { run_id, at: 'step_boundary' });
  session.close();
  return sessionDir(root, 's1');
}

describe('one field, one line', () => {
  it('replay, verify and every plan printed before [y/N] show WAL text with its newlines escaped', () => {
    const folder = forgedSession();
    const runs = [['replay', folder], ['verify', folder], ['resume', folder, '--dry-run'], ['cancel', folder, '--dry-run'], ['seal', folder, '--dry-run'], ['dump', folder]];
    for (const args of runs) {
      const { code, stdout, stderr } = walscope(...args);
      expect({ args, code }).toEqual({ args, code: 0 });
      expect(stdout + stderr, args.join(' ')).not.toMatch(forgedLine);
    }
    const replay = walscope('replay', folder).stdout;
    expect(replay).toContain('run r1\\u000aOK       session forged (/tmp/forged)\\u000d\\u000aOK');
    expect(replay).toContain('completed\\u000aOK');
    expect(walscope('cancel', folder, '--dry-run').stdout).toContain('cancel run r1\\u000aOK');
  });

  it('replay --json escapes steering characters, ASCII (DEL) or not, and reads back as the same text', () => {
    // DEL alone keeps the text ASCII (the bytes path must not pass it); U+202E and U+2028 make it not ASCII.
    for (const steering of ['', '\u007f', '\u202e', '\u2028', '\u009b[2J']) {
      const root = tempDir();
      const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
      const run_id = `r1${steering}x`;
      session.writer.append('run_started', { run_id, session: 's1', config: {}, input: [] });
      session.close();
      const { code, stdout } = walscope('replay', sessionDir(root, 's1'), '--json');
      expect({ steering, code }).toEqual({ steering, code: 0 });
      expect(stdout).not.toMatch(/[\u007f-\u009f\u2028\u202e]/);
      expect((JSON.parse(stdout) as { episodes: { run_id: string }[] }).episodes[0]!.run_id).toBe(run_id);
    }
  });

  it('a refusal that quotes WAL text, and a WAL file whose name holds a newline, stay on their lines', () => {
    const folder = forgedSession();
    const wal = walPath(folder);
    // seq 0 with a type other than "lineage": refused, and the message quotes the type.
    fs.appendFileSync(wal, encodeFrame({ ver: 2, seq: 0, fence: 1, type: `x${FORGED}`, features: [], payload: {} }));
    const exported = path.join(path.dirname(folder), 'copy\nOK       session forged.wal');
    fs.copyFileSync(wal, exported);
    for (const args of [['verify', folder], ['verify', exported], ['replay', folder], ['dump', folder], ['seal', folder, '--dry-run'], ['seal', folder, '--yes', '--reason', 'test']]) {
      const { code, stdout, stderr } = walscope(...args);
      expect({ args, code }).toEqual({ args, code: 1 });
      expect(stdout + stderr, args.join(' ')).not.toMatch(forgedLine);
      expect(stdout + stderr, args.join(' ')).toContain('x\\u000aOK       session forged');
    }
  });
});

describe('command names', () => {
  it('a name of an Object.prototype member is an unknown command, not a lookup of that member', () => {
    for (const name of ['constructor', '__proto__', 'toString']) {
      const { code, stderr } = walscope(name);
      expect({ name, code, stderr: stderr.split('\n')[0] }).toEqual({ name, code: 2, stderr: `walscope: unknown command "${name}"` });
    }
  });
});

/** A session of `records` model steps of about `text_bytes` each, written with the engine. */
function bigSession(records: number, text_bytes: number): string {
  const root = tempDir();
  const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
  session.writer.append('run_started', { run_id: 'r1', session: 's1', config: {}, input: [] });
  const text = 'x'.repeat(text_bytes);
  for (let step = 1; step <= records; step++) {
    session.writer.append('model_step_finished', { step_id: step, assistant_message: { role: 'assistant', content: [{ type: 'text', text }] }, usage: {} });
  }
  session.writer.barrier();
  session.close();
  return sessionDir(root, 's1');
}

/** Bytes the process has read so far (/proc/PID/io rchar), or null once it is gone. */
function bytesRead(pid: number): number | null {
  try {
    return Number(/^rchar: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
  } catch {
    return null;
  }
}

describe('dump streams', () => {
  it('prints exactly the fields of a frame in --json: no reader-internal field', () => {
    const folder = bigSession(2, 10);
    const frames = walscope('dump', folder, '--json').stdout.trim().split('\n').map((line) => JSON.parse(line) as object);
    for (const frame of frames) expect(Object.keys(frame)).toEqual(['offset', 'size_bytes', 'digest_algorithm', 'ver', 'seq', 'fence', 'type', 'features', 'payload']);
  });

  it('reads no further ahead than its output is read: a stalled reader stalls it', async () => {
    const folder = bigSession(20_000, 1_000);
    const wal_bytes = fs.statSync(walPath(folder)).size;
    const child = spawn(process.execPath, [...CLI, 'dump', folder, '--json'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pause();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Wait until the child's reads have stopped growing: with its output unread, that is where it waits.
    let last: number;
    let read = 0;
    for (let stable = 0; stable < 10; stable = read === last ? stable + 1 : 0) {
      last = read;
      await new Promise((resolve) => setTimeout(resolve, 100));
      read = bytesRead(child.pid!) ?? Infinity;
    }
    expect(read).toBeLessThan(wal_bytes / 2);
    let printed = 0;
    child.stdout.on('data', (chunk: Buffer) => (printed += chunk.length));
    child.stdout.resume();
    expect(await exited).toBe(0);
    expect(printed).toBeGreaterThan(wal_bytes);
  });

  it('ends quietly, with the status a shell reports for SIGPIPE, when its reader closes the pipe (dump | head)', async () => {
    const folder = bigSession(5_000, 1_000);
    for (const args of [['dump', folder], ['dump', folder, '--json']]) {
      const child = spawn(process.execPath, [...CLI, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      child.stdout.destroy();
      expect({ args, code: await exited, stderr }).toEqual({ args, code: EXIT_READER_GONE, stderr: '' });
    }
  });
});
