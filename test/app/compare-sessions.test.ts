// The API's compareSessions through the session service, on the demo root: the crashed original beside its resumed
// copy (the close-out is the first divergence, as `walscope diff` says), a sealed lineage beside its live one, the
// steps a window at a time cut from one comparison (made again only when a WAL changes), and keys it does not know.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COMPARE_PAGE_STEPS_MAX } from '../../src-shared/compare.js';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { readHistory } from '../../src-main/engine/lineage-chain.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { useTempDirs } from '../helpers/temp.js';
import { addResumedCopy, CRASHED_SESSION_ID, RESUMED_SESSION_ID } from './e2e-root.js';

const tempDir = useTempDirs('walscope-compare-sessions-');
const opened: SessionService[] = [];
afterEach(async () => {
  for (const service of opened.splice(0)) await service.close();
});

async function openDemo(): Promise<{ root: string; service: SessionService }> {
  const root = path.join(tempDir(), 'root');
  buildDemoRoot(root, steppedClock(1_750_000_000_000));
  addResumedCopy(root);
  const service = await SessionService.open(root, { watch: false, cache: false });
  opened.push(service);
  return { root, service };
}

let shared: { root: string; service: SessionService };
let shared_dir = '';
beforeAll(async () => {
  shared_dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-compare-shared-'));
  const root = path.join(shared_dir, 'root');
  buildDemoRoot(root, steppedClock(1_750_000_000_000));
  addResumedCopy(root);
  shared = { root, service: await SessionService.open(root, { watch: false, cache: false }) };
}, 60_000);
afterAll(async () => {
  await shared?.service.close();
  if (shared_dir !== '') fs.rmSync(shared_dir, { recursive: true, force: true });
});

describe('compareSessions', () => {
  it('a crashed session beside its resumed copy: the close-out is the first divergence, the sides named by their keys', async () => {
    const { service } = shared;
    const page = await service.compareSessions(CRASHED_SESSION_ID, RESUMED_SESSION_ID, null, 0, 10);
    expect(page.first_divergence).toEqual({ episode: 1, step_id: 1, kind: 'call_outcome', sentence: 'episode 1, step 1: `edit_file` call 2 has a result recorded in B only (tool_result, outcome unknown)' });
    expect(page.a).toMatchObject({ name: CRASHED_SESSION_ID, session: CRASHED_SESSION_ID, member: null, trust: 'whole' });
    expect(page.b).toMatchObject({ name: RESUMED_SESSION_ID, trust: 'whole' });
    expect(page.listed).toBe(page.steps_compared);
    expect(page.outline).toEqual(page.steps.map((step) => [step.episode, step.step_id, step.identical]));
    expect(page.episode_differences.map(({ difference }) => difference.kind)).toEqual(['episode_end']);
  });

  it('a sealed lineage beside its live one: the member read is named, and the runs are the same', async () => {
    const { root, service } = shared;
    const sealed = readHistory(sessionDir(root, 'history')).lineages.find((lineage) => lineage.where === 'sealed')!.wal_id;
    const page = await service.compareSessions(`history@${sealed}`, 'history', null, 0, 5);
    expect(page.a).toMatchObject({ name: `history@${sealed}`, session: `history@${sealed}`, member: sealed, wal_id: sealed });
    expect(page.identical).toBe(true);
    expect(page.first_divergence).toBeNull();
  });

  it('the steps come a window at a time from one comparison, made again only when a WAL changes', async () => {
    const { root, service } = await openDemo();
    const whole = await service.compareSessions('history', 'history', null, 0, COMPARE_PAGE_STEPS_MAX + 50);
    expect(whole.steps.length).toBe(Math.min(whole.listed, COMPARE_PAGE_STEPS_MAX));
    expect(whole.listed).toBeGreaterThan(2);
    const made = service.comparisons.made;
    const second = await service.compareSessions('history', 'history', null, 1, 1);
    expect(second.outline).toBeNull();
    expect(second.start).toBe(1);
    expect(second.steps).toEqual([whole.steps[1]]);
    expect(service.comparisons.made).toBe(made);
    const past = await service.compareSessions('history', 'history', null, whole.listed + 5, 10);
    expect(past.steps).toEqual([]);
    // A WAL that changed is read again (an appended byte is a torn tail, never committed).
    fs.appendFileSync(walPath(sessionDir(root, 'history')), Buffer.from([0x57]));
    const again = await service.compareSessions('history', 'history', null, 0, 1);
    expect(service.comparisons.made).toBe(made + 1);
    expect(again.a.trust).toBe('torn_tail');
  });

  it('--episode\'s scope, and a damaged side compared up to where it is trusted', async () => {
    const { service } = shared;
    const episode = await service.compareSessions('history', 'history', 2, 0, 10);
    expect(episode.episodes).toEqual([2]);
    const damaged = await service.compareSessions('finished', 'corrupt-middle', null, 0, 10);
    expect(damaged.b.trust).toBe('refused');
    expect(damaged.b.trust_words).toMatch(/^it is refused \(damaged\) at offset/);
  });

  it('a key the workspace does not hold is not found', async () => {
    const { service } = shared;
    await expect(service.compareSessions('finished', 'no-such-session', null, 0, 10)).rejects.toMatchObject({ code: 'not_found' });
  });
});
