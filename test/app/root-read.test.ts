// A root's first read (issue 9): its sessions are read most recently active first; the WALs after the one being
// read are read ahead into the page cache by a thread of their own (services/read-ahead.ts), within a bound,
// and only when they are worth a thread; and the list is pushed as the summaries that changed, not whole at
// every change. The bytes read ahead, the workers started and the summaries pushed are counted.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withChangedSummaries, type SessionSummary, type WalscopeEvent } from '../../src-shared/ipc.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { nodeFileIO, type FileIO } from '../../src-main/engine/file-io.js';
import { ReadAhead } from '../../src-main/services/read-ahead.js';
import { READ_AHEAD_BYTES_MIN } from '../../src-main/services/read-scheduler.js';
import { SessionService, WATCH_AFTER_READS_SESSIONS_MIN } from '../../src-main/services/session-service.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-root-read-');
const MIB = 1_048_576;

/** A finished run of `steps` model steps, each answering with `text_bytes` of text. */
function writeSteps(root: string, session_id: string, steps: number, text_bytes: number): void {
  withSession(root, session_id, (append) => {
    append('run_started', { run_id: `run-${session_id}`, session: session_id, config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }] });
    for (let step_id = 1; step_id <= steps; step_id++) {
      append('model_step_finished', { step_id, assistant_message: { role: 'assistant', content: [{ type: 'text', text: 'x'.repeat(text_bytes) }] }, usage: { input_tokens: 1, output_tokens: 1 } });
    }
    append('run_finished', { reason: 'completed' });
  });
}

/** A root of sessions `s0`…, each of `steps(index)` steps of `text_bytes`, `s0` written to last and so on down. */
function rootOf(count: number, steps: (index: number) => number, text_bytes = MIB): string {
  const root = tempDir();
  const now_s = Date.now() / 1_000;
  for (let index = 0; index < count; index++) {
    writeSteps(root, `s${index}`, steps(index), text_bytes);
    fs.utimesSync(walPath(sessionDir(root, `s${index}`)), now_s - index * 60, now_s - index * 60);
  }
  return root;
}

function files(count: number, size_bytes: number): { path: string; size_bytes: number }[] {
  const dir = tempDir();
  return Array.from({ length: count }, (_, index) => {
    const file = path.join(dir, `f${index}`);
    fs.writeFileSync(file, Buffer.alloc(size_bytes, index));
    return { path: file, size_bytes };
  });
}

/** Waits until `reader` has read `bytes` ahead, then a little longer to see that it stops there. */
async function readTo(reader: ReadAhead, bytes: number): Promise<void> {
  for (let waited_ms = 0; reader.bytes_read < bytes && waited_ms < 10_000; waited_ms += 5) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(reader.bytes_read).toBe(bytes);
}

const openDescriptors = () => fs.readdirSync('/proc/self/fd').length;

describe('reading ahead', () => {
  it('reads the files after the one the real read takes, in order, up to its bound, and on as the real read moves', async () => {
    const planned = files(6, 3 * MIB);
    const descriptors_before = openDescriptors();
    const reader = new ReadAhead(7 * MIB);
    // The real read takes f0: f1 and f2 fit in the bound, f3 would not.
    reader.plan(planned);
    await readTo(reader, 6 * MIB);
    reader.reached(2);
    await readTo(reader, 12 * MIB);
    // A new plan from f5: nothing before it is read.
    reader.plan(planned.slice(4));
    await readTo(reader, 15 * MIB);
    reader.close();
    await reader.exited;
    expect(openDescriptors()).toBe(descriptors_before);
  });

  it('reads the first bound of a file larger than it, and passes over a file that is gone', async () => {
    const [large, small] = [files(1, 5 * MIB)[0]!, files(1, MIB)[0]!];
    const reader = new ReadAhead(2 * MIB);
    reader.plan([small, { path: path.join(tempDir(), 'gone'), size_bytes: MIB }, large, small]);
    await readTo(reader, 2 * MIB);
    reader.reached(2);
    await readTo(reader, 3 * MIB);
    reader.close();
    await reader.exited;
  });

  it('passes over a FIFO or a device named as a WAL without waiting on it', async () => {
    const fifo = path.join(tempDir(), 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const [first, after] = files(2, MIB);
    const reader = new ReadAhead();
    reader.plan([first!, { path: fifo, size_bytes: MIB }, { path: '/dev/zero', size_bytes: MIB }, after!]);
    await readTo(reader, MIB);
    reader.close();
    await reader.exited;
  });

  it('stops in the middle of a file when closed', async () => {
    const planned = files(2, 64 * MIB);
    const descriptors_before = openDescriptors();
    const reader = new ReadAhead();
    reader.plan(planned);
    for (let waited_ms = 0; reader.bytes_read === 0 && waited_ms < 10_000; waited_ms += 1) await new Promise((resolve) => setTimeout(resolve, 1));
    reader.close();
    await reader.exited;
    expect(reader.bytes_read).toBeLessThan(64 * MIB);
    expect(openDescriptors()).toBe(descriptors_before);
  });
});

describe("a root's first read", () => {
  it('reads the most recently active session first and reads the WALs after it ahead, then ends the worker', async () => {
    // s0 is written to last and is the largest: while it is read, the others are read ahead.
    const root = rootOf(4, (index) => (index === 0 ? 24 : 6));
    // The read of s0 waits (a bound: 20 s) for the read-ahead to read something: on a loaded machine its worker can
    // start after a 24 MiB read is done, and the claim is what happens while that read is under way.
    const first_wal = walPath(sessionDir(root, 's0'));
    let waited = false;
    const io: FileIO = {
      ...nodeFileIO,
      open(file, mode) {
        if (file === first_wal && !waited) {
          waited = true;
          const deadline_ms = Date.now() + 20_000;
          while (service.read_ahead_counts.bytes === 0 && Date.now() < deadline_ms) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        }
        return nodeFileIO.open(file, mode);
      },
    };
    const service: SessionService = await SessionService.open(root, { watch: false, cache: false, io });
    const summarized: string[] = [];
    service.subscribe((event) => event.type === 'summaries' && summarized.push(...event.changed.map((summary) => summary.key)));
    await service.whenRead();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await service.close();
    expect(summarized).toEqual(['s0', 's1', 's2', 's3']);
    expect(service.read_ahead_counts.started).toBe(1);
    const after_first = [1, 2, 3].reduce((sum, index) => sum + fs.statSync(walPath(sessionDir(root, `s${index}`))).size, 0);
    expect(after_first).toBeGreaterThanOrEqual(READ_AHEAD_BYTES_MIN);
    expect(service.read_ahead_counts.bytes).toBeGreaterThan(0);
    expect(service.read_ahead_counts.bytes).toBeLessThanOrEqual(after_first);
  });

  it('starts no read-ahead for a root whose WALs are few bytes', async () => {
    const root = rootOf(5, () => 1, 1_000);
    const service = await SessionService.open(root, { watch: false, cache: false });
    await service.whenRead();
    await service.close();
    expect(service.read_ahead_counts).toEqual({ started: 0, bytes: 0 });
  });

  it('watches a root of many sessions once its first reads are done, and catches up what changed before', async () => {
    const root = rootOf(WATCH_AFTER_READS_SESSIONS_MIN, () => 1, 100);
    const service = await SessionService.open(root, { watch: true, cache: false });
    let read_when_watching = -1;
    const watching = service.whenWatching().then(() => (read_when_watching = service.counts.sessions_read));
    // s0, the most recently active, is read first; then, with the other reads under way and nothing watching,
    // it gets a second run.
    while (service.counts.sessions_read === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(service.counts.sessions_read).toBeLessThan(WATCH_AFTER_READS_SESSIONS_MIN);
    withSession(root, 's0', (append) => append('run_started', { run_id: 'again', session: 's0', config: { model: 'm' }, input: [] }));
    await watching;
    expect(read_when_watching).toBeGreaterThanOrEqual(WATCH_AFTER_READS_SESSIONS_MIN);
    await service.whenRead();
    const s0 = (await service.listSessions()).find((summary) => summary.key === 's0')!;
    expect(s0.episodes).toBe(2);
    await service.close();
  });

  it('pushes each summary as it changes, and the pushes make the list', async () => {
    const root = rootOf(40, () => 1, 100);
    const service = await SessionService.open(root, { watch: false, cache: false });
    const events: WalscopeEvent[] = [];
    service.subscribe((event) => events.push(event));
    let listed: SessionSummary[] = await service.listSessions();
    await service.whenRead();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const pushes = events.filter((event) => event.type === 'summaries');
    for (const push of pushes) listed = withChangedSummaries(listed, push.changed);
    expect(listed).toEqual(await service.listSessions());
    expect(listed.every((summary) => summary.status === 'completed')).toBe(true);
    // No whole list (the sessions stayed the same), and each summary once: it changed once, when its WAL was read.
    // Nor any progress: each WAL was read in one slice, so there was no bar to show or to end.
    expect(events.filter((event) => event.type === 'sessions' || event.type === 'progress')).toHaveLength(0);
    expect(pushes.reduce((sum, push) => sum + push.changed.length, 0)).toBe(40);
    await service.close();
  });
});
