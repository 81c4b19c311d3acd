// How the built `walscope` ends when things go wrong around it, as real child processes: a busy port is one
// line and exit 2; a reader that goes away (`walscope dump X | head`) ends every command quietly with 141, as
// a process killed by SIGPIPE; any error nothing handled is one line naming the command and what failed, the
// stack only with WALSCOPE_DEBUG=1.
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-cli-exits-');
const REPO = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(REPO, 'bin/walscope.js');
const EXIT_READER_GONE = 141;
const STACK_FRAME = /^\s+at /m;

/** A state root whose one session prints far more than a pipe holds (64 KiB) under every command. */
const OUTPUT_BYTES_MIN = 256 * 1024;
function bigRoot(): string {
  const root = tempDir();
  const session = openSessionForWrite(root, 's1', { writer_name: 'test' });
  session.writer.append('run_started', { run_id: 'r1', session: 's1', config: {}, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
  for (let step = 1; step <= 4_000; step++) {
    session.writer.append('model_step_finished', { step_id: step, assistant_message: { role: 'assistant', content: [{ type: 'text', text: `step ${step} `.repeat(40) }] }, usage: { input_tokens: 1, output_tokens: 1 } });
    session.writer.append('turn_finished', { step_id: step });
  }
  session.writer.barrier();
  session.close();
  return root;
}

/** Runs the CLI, reads its first chunk of stdout and then closes the pipe, as `| head -c N` does. */
function readFirstChunkThenClose(args: string[]): Promise<{ code: number | null; signal: string | null; stderr: string; first: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let first = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.once('data', (chunk: Buffer) => {
      first = chunk.toString();
      child.stdout.destroy();
    });
    child.once('close', (code, signal) => resolve({ code, signal, stderr, first }));
  });
}

describe('walscope exits cleanly', () => {
  it('a busy port: one line, exit 2, and nothing left running', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const run = spawnSync(process.execPath, [CLI, 'serve', bigRoot(), '--port', String(port)], { cwd: REPO, encoding: 'utf8', timeout: 30_000 });
      expect(run.error).toBeUndefined(); // it ended by itself, before the timeout
      expect(run.status).toBe(2);
      expect(run.stderr).toBe(`walscope serve: port ${port} is in use; pick another with --port or omit it\n`);
      expect(run.stdout).toBe('');
    } finally {
      holder.close();
    }
  });

  // The handler is the CLI's, not a command's: these are the commands whose output outgrows a pipe.
  it.each(['dump', 'dump --json', 'replay', 'replay --json'])('a reader that goes away ends `walscope %s` quietly', async (command) => {
    const [name, ...flags] = command.split(' ');
    const args = [name!, path.join(bigRoot(), 'sessions/s1'), ...flags];
    const whole = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(whole.stdout.length).toBeGreaterThan(OUTPUT_BYTES_MIN);
    const run = await readFirstChunkThenClose(args);
    expect(run.first.length).toBeGreaterThan(0);
    expect(run.stderr).toBe('');
    expect({ code: run.code, signal: run.signal }).toEqual({ code: EXIT_READER_GONE, signal: null });
  });

  it('an error nothing handled is one line naming the command; the stack only with WALSCOPE_DEBUG=1', () => {
    const target = '/dev/null/demo'; // mkdir under a file fails with ENOTDIR, an error no command expects
    const run = spawnSync(process.execPath, [CLI, 'demo', target], { cwd: REPO, encoding: 'utf8', env: { ...process.env, WALSCOPE_DEBUG: '' } });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`walscope demo: ENOTDIR: not a directory, mkdir '${target}'\n`);

    const debug = spawnSync(process.execPath, [CLI, 'demo', target], { cwd: REPO, encoding: 'utf8', env: { ...process.env, WALSCOPE_DEBUG: '1' } });
    expect(debug.status).toBe(1);
    expect(debug.stderr).toMatch(/^walscope demo: Error: ENOTDIR/);
    expect(debug.stderr).toMatch(STACK_FRAME);
  });
});
