// The History panel's live lineage comes from the session model's one read, never from a second read of the
// live WAL (a 1 GiB one took seconds, and the worker answered nothing meanwhile): counted in bytes of the WAL
// read during getHistory. What the model gathers equals what `walscope lineages` reads itself, and follows
// appends.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WalscopeEvent } from '../../src-shared/ipc.js';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { DEMO_SESSIONS } from '../../src-main/demo/sessions.js';
import { archivePath } from '../../src-main/engine/archive-format.js';
import { readArchive } from '../../src-main/engine/archive-reader.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { readLineage } from '../../src-main/engine/lineage-chain.js';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { historyOf } from '../../src-main/services/history.js';
import { READ_SLICE_BYTES } from '../../src-main/services/read-scheduler.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { SessionTailer } from '../../src-main/services/session-tailer.js';
import { longTailOutputBytes, writeSessionWal } from '../../scripts/bench-data.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession, writeFinished } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-history-read-');
const TEST_MS_MAX = 120_000;

const services: SessionService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

async function open(root: string): Promise<SessionService> {
  const service = await SessionService.open(root, { watch: false, cache: false });
  services.push(service);
  return service;
}

/** Runs `work`, counting the bytes read from the file `wal` meanwhile (every read of the engine goes through
 *  fs.readSync). */
async function walBytesReadDuring<T>(wal: string, work: () => Promise<T>): Promise<{ value: T; bytes: number }> {
  const inode = fs.statSync(wal).ino;
  const original = fs.readSync;
  let bytes = 0;
  fs.readSync = ((...args: Parameters<typeof fs.readSync>) => {
    const count = original(...args);
    if (fs.fstatSync(args[0]).ino === inode) bytes += count;
    return count;
  }) as typeof fs.readSync;
  try {
    return { value: await work(), bytes };
  } finally {
    fs.readSync = original;
  }
}

describe('the History panel from the session read', () => {
  it('answers at once while a big session is read, without reading its WAL, and is complete once it is read', async () => {
    const root = tempDir();
    const wal = walPath(sessionDir(root, 's'));
    writeSessionWal(wal, { seed: 95, size_bytes_target: 3 * READ_SLICE_BYTES, outputBytes: longTailOutputBytes });
    const full = readWal(wal, { with_payload: false });
    const service = await open(root);
    // Mid-read: after the first slice, before the next (the slices are macrotasks; this runs between them).
    const sliced = new Promise<void>((resolve) => {
      const stop = service.subscribe((event: WalscopeEvent) => {
        if (event.type !== 'progress' || event.progress.finished || event.progress.done_bytes === 0) return;
        stop();
        resolve();
      });
    });
    // Opened as the session view opens it: its tail found from the end, then its read from the start begins.
    await service.getTail('s');
    const before = await walBytesReadDuring(wal, () => service.getHistory('s'));
    expect(before.bytes).toBe(0);
    expect(before.value.live_reading).toBe(true);
    expect(before.value.lineages).toEqual([]);
    await sliced;
    const midway = await walBytesReadDuring(wal, () => service.getHistory('s'));
    expect(midway.bytes).toBe(0);
    expect(midway.value.live_reading).toBe(true);
    const live = midway.value.lineages.find((lineage) => lineage.where === 'live')!;
    const so_far = (await service.getSession('s')).summary;
    expect(so_far.status).toBe('loading');
    expect(live.last_seq).toBe(so_far.last_seq);
    expect(live.last_seq).toBeLessThan(full.last_seq);
    await service.whenRead();
    const read = await walBytesReadDuring(wal, () => service.getHistory('s'));
    expect(read.bytes).toBe(0);
    expect(read.value).toEqual({ ...(await historyOf(resolveTargets(sessionDir(root, 's'))[0]!)), live_reading: false });
    expect(read.value.lineages[0]).toMatchObject({ where: 'live', last_seq: full.last_seq });
  }, TEST_MS_MAX);

  it('equals the history read on its own for every demo session (lineages, retires, tags, notices, problems)', async () => {
    const root = path.join(tempDir(), 'root');
    buildDemoRoot(root, steppedClock(1_750_000_000_000));
    const service = await open(root);
    await service.whenRead();
    let chains = 0;
    for (const key of Object.keys(DEMO_SESSIONS)) {
      const dir = sessionDir(root, key);
      const own = await historyOf(resolveTargets(dir)[0]!);
      // Opened (read, if the background read released it) before the count: only getHistory's reads count.
      await service.getSession(key);
      const { value, bytes } = await walBytesReadDuring(walPath(dir), () => service.getHistory(key));
      expect(bytes, key).toBe(0);
      expect(value, key).toEqual(own);
      if (own.lineages.length > 1) chains++;
    }
    // The demo's histories are in the comparison: sealed with a retire's audit, deleted, carried counters.
    const history = await service.getHistory('history');
    expect(chains).toBeGreaterThan(2);
    expect(history.lineages.map((lineage) => lineage.where)).toEqual(['live', 'deleted', 'sealed']);
    expect(history.lineages[0]!.next_tag).toBeGreaterThan(1);
    expect(history.lineages[0]!.next_notice_seq).toBeGreaterThan(1);
  }, TEST_MS_MAX);

  it('reads a sealed member\'s content once while the archive is unchanged, and again when the archive changes', async () => {
    const root = path.join(tempDir(), 'root');
    buildDemoRoot(root, steppedClock(1_750_000_000_000));
    const dir = sessionDir(root, 'history');
    const archive = archivePath(dir);
    const sealed = readArchive(dir).members.find((member) => member.reason === 'sealed')!;
    const service = await open(root);
    await service.whenRead();
    await service.getSession('history');
    const fresh = () => historyOf(resolveTargets(dir)[0]!);
    // The first history hashes the member's content and reads it as a WAL.
    const first = await walBytesReadDuring(archive, () => service.getHistory('history'));
    expect(first.bytes).toBeGreaterThanOrEqual(2 * sealed.content_bytes);
    expect(first.value).toEqual(await fresh());
    // Asked again (as the History panel asks at every append): the archive's headers, not the member's content.
    const again = await walBytesReadDuring(archive, () => service.getHistory('history'));
    expect(again.bytes).toBeLessThan(sealed.content_bytes);
    expect(again.value).toEqual(first.value);
    // A byte of the member's content changed in place: the file's mtime moved, the member is read again and refused.
    const fd = fs.openSync(archive, 'r+');
    const byte = Buffer.alloc(1);
    fs.readSync(fd, byte, 0, 1, sealed.content_offset + 40);
    fs.writeSync(fd, Buffer.from([byte[0]! ^ 0xff]), 0, 1, sealed.content_offset + 40);
    fs.closeSync(fd);
    fs.utimesSync(archive, new Date(), new Date(Date.now() + 5_000));
    const damaged = await walBytesReadDuring(archive, () => service.getHistory('history'));
    expect(damaged.bytes).toBeGreaterThanOrEqual(sealed.content_bytes);
    expect(damaged.value.problems.map((problem) => problem.kind)).toContain('member_damaged');
    expect(damaged.value).toEqual(await fresh());
  }, TEST_MS_MAX);

  it('follows appends: the live lineage\'s last seq, runner tags, notice numbers and time span', () => {
    const root = tempDir();
    writeFinished(root, 's');
    const dir = sessionDir(root, 's');
    const tailer = new SessionTailer(resolveTargets(dir)[0]!);
    tailer.refresh();
    const own = () => readLineage((on_frame) => readWal(walPath(dir), { on_frame }));
    const facts = () => {
      const { read, ...rest } = tailer.lineage!;
      return { last_seq: read.last_seq, ...rest };
    };
    const ownFacts = () => {
      const { read, ...rest } = own();
      return { last_seq: read.last_seq, ...rest };
    };
    expect(facts()).toEqual(ownFacts());
    expect(facts().end).toEqual({ next_tag: 1, next_notice_seq: 1 });
    withSession(root, 's', (append) => {
      append('steered', { input: [], tags: [[3, 7], [5]], ts_ms: 1_900_000_000_000 });
      append('compaction_notice', { step_id: 1, notice_seq: 4, headers: [] });
    });
    tailer.refresh();
    expect(facts()).toEqual(ownFacts());
    expect(facts()).toMatchObject({ last_seq: own().read.last_seq, end: { next_tag: 8, next_notice_seq: 5 }, last_ms: 1_900_000_000_000 });
    // Untrusted stamps: one that is not a number hides `created_ms` in the projection as in a built payload.
    withSession(root, 's', (append) => {
      append('steered', { input: [], tags: 2 });
      append('steered', { input: [], ts_ms: [1], created_ms: 5 });
    });
    tailer.refresh();
    expect(facts()).toEqual(ownFacts());
    expect(facts().end).toEqual({ next_tag: 8, next_notice_seq: 5 });
  });

  it('takes the live lineage\'s facts from the fold\'s pass over each payload: only a lineage frame is read twice', () => {
    const root = tempDir();
    writeFinished(root, 's');
    const dir = sessionDir(root, 's');
    const tailer = new SessionTailer(resolveTargets(dir)[0]!);
    const own = () => {
      const { read, ...rest } = readLineage((on_frame) => readWal(walPath(dir), { on_frame }));
      return { last_seq: read.last_seq, ...rest };
    };
    const facts = () => {
      const { read, ...rest } = tailer.lineage!;
      return { last_seq: read.last_seq, ...rest };
    };
    tailer.refresh();
    // A writer opening the WAL writes a lineage frame (seq 0): the facts read those again, for their bytes.
    const lineageFrames = () => {
      const read = readWal(walPath(dir), { with_payload: false });
      return read.frames - read.records;
    };
    expect(lineageFrames()).toBeGreaterThan(0);
    expect(tailer.facts_projected).toBe(lineageFrames());
    // Records the fold keeps in places (their members named), with untrusted stamps and tags: a stamp that is
    // not a number hides created_ms, a created_ms alone is a stamp, tags count, as in a built payload.
    withSession(root, 's', (append) => {
      append('model_attempt_finished', { step_id: 1, attempt: 1, ts_ms: { at: 1 }, created_ms: 3_000_000_000_000, tags: [[9]] });
      append('tool_result', { batch_id: 'b', tool_call_id: 'c', output: 'x'.repeat(100), created_ms: 1_000, tags: 11 });
      append('turn_finished', { step_id: 1, ts_ms: 2_000_000_000_000, created_ms: 5 });
    });
    tailer.refresh();
    expect(facts()).toEqual(own());
    expect(facts()).toMatchObject({ first_ms: 1_000, last_ms: 2_000_000_000_000, end: { next_tag: 12 } });
    expect(tailer.facts_projected).toBe(lineageFrames());
  });
});
