// One live append costs one look at the lease and one open of the WAL per refresh (issue 29, "chatty up close":
// an append opened the WAL three times and probed the lease twice). A real session appended through the real
// writer under its lease; the opens are counted through the FileIO seam (a probe opens the lease file once, to
// read the tenure), never timed.
import { afterEach, describe, expect, it } from 'vitest';
import { sessionTarget } from '../../src-main/engine/inspect.js';
import { openSessionForWrite, type WritableSession } from '../../src-main/engine/session.js';
import { leasePath, sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { SessionModel } from '../../src-main/services/session-model.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { countingIO } from '../helpers/counting-io.js';
import { useTempDirs } from '../helpers/temp.js';
import { writeFinished } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-live-probes-');
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A finished session reopened by a live writer, which holds its lease until the test ends. */
function liveSession(): { root: string; dir: string; writer: WritableSession } {
  const root = tempDir();
  writeFinished(root, 'live');
  const writer = openSessionForWrite(root, 'live', { writer_name: 'live-probes-test' });
  cleanup.push(() => writer.close());
  return { root, dir: sessionDir(root, 'live'), writer };
}

function appendNote(writer: WritableSession, note: string): number {
  const { seq } = writer.writer.append('run_note', { note });
  writer.writer.barrier();
  return seq;
}

/** Opens of the WAL and probes of the lease made through `counted` since the call. */
function since(counted: ReturnType<typeof countingIO>, dir: string): () => { wal_opens: number; probes: number } {
  const wal = walPath(dir);
  const lease = leasePath(dir);
  const [wal_before, lease_before] = [counted.opens(wal), counted.opens(lease)];
  return () => ({ wal_opens: counted.opens(wal) - wal_before, probes: counted.opens(lease) - lease_before });
}

describe('a live refresh probes and opens once', () => {
  it('a refresh after one append probes the lease once and opens the WAL once', () => {
    const { dir, writer } = liveSession();
    const counted = countingIO();
    const model = new SessionModel('live', sessionTarget(dir), counted.io);
    model.refresh();
    expect(model.lease.state).toBe('live');
    for (let append = 1; append <= 3; append++) {
      appendNote(writer, `live ${append}`);
      const made = since(counted, dir);
      expect(model.refresh().frames_added).toBe(1);
      expect(made()).toEqual({ wal_opens: 1, probes: 1 });
    }
    // A refresh that finds nothing new costs the same, no more.
    const made = since(counted, dir);
    expect(model.refresh().frames_added).toBe(0);
    expect(made()).toEqual({ wal_opens: 1, probes: 1 });
  });

  it('a file event\'s refresh probes once and opens once, and the window\'s requests after it once more', async () => {
    const { root, dir, writer } = liveSession();
    const counted = countingIO();
    const service = await SessionService.open(root, { cache: false, io: counted.io });
    cleanup.push(() => service.close());
    await service.whenWatching();
    await service.getSession('live');
    await expect.poll(async () => (await service.getSession('live')).summary.status, { timeout: 5_000 }).toBe('running');
    // The once-a-second look at a live lease probes outside any refresh: stopped, so the counts are the refreshes'.
    const follow = (service as unknown as { follow: { lease_probe: NodeJS.Timeout; growth_probe: NodeJS.Timeout; watcher: { close(): Promise<void> } } }).follow;
    clearInterval(follow.lease_probe);
    const refreshes_before = service.refreshes.made;
    const made = since(counted, dir);
    const seen: { seq: number; wal_opens: number; probes: number; refreshes: number }[] = [];
    service.subscribe((event) => {
      if (event.type === 'session') seen.push({ seq: event.last_seq, ...made(), refreshes: service.refreshes.made - refreshes_before });
    });
    const seq = appendNote(writer, 'live');
    await expect.poll(() => seen.at(-1)?.seq, { timeout: 5_000 }).toBe(seq);
    const at_event = seen.at(-1)!;
    expect(at_event.refreshes).toBeGreaterThanOrEqual(1);
    expect(at_event.probes).toBeLessThanOrEqual(at_event.refreshes);
    expect(at_event.wal_opens).toBeLessThanOrEqual(at_event.refreshes);

    // What the window asks for then (queries.ts: the detail, the list's page and the next, the History panel, the
    // last episode's bars), with no refresh under way meanwhile.
    clearInterval(follow.growth_probe);
    await follow.watcher.close();
    const asked: Record<string, { wal_opens: number; probes: number }> = {};
    const ask = async (name: string, request: () => Promise<unknown>) => {
      const made_by = since(counted, dir);
      await request();
      asked[name] = made_by();
    };
    const refreshes_before_asking = service.refreshes.made;
    await ask('getSession', () => service.getSession('live'));
    await ask('getRows', () => service.getRows('live', 'timeline', 0, 100));
    await ask('getRows next', () => service.getRows('live', 'timeline', 100, 100));
    await ask('getHistory', () => service.getHistory('live'));
    await ask('getTiming', () => service.getTiming('live', 1));
    expect(service.refreshes.made).toBe(refreshes_before_asking);
    // The detail looks at the lease once for the actions it offers; the page reads the appended note's payload back.
    const total = Object.values(asked).reduce((sum, one) => ({ wal_opens: sum.wal_opens + one.wal_opens, probes: sum.probes + one.probes }));
    expect(asked['getSession']!.probes).toBe(1);
    expect(total).toEqual({ wal_opens: 1, probes: 1 });
  });
});
