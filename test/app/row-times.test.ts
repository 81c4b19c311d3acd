// Time on every timeline row: episodes carry their first and last recorded time, steps their last attempt's
// ts_ms and calls their dispatch and finish (tool-times), each with the episode's first time so the row can say
// how far in it is — all the values the WAL's records carry, the same clock as the waterfall, and null (never
// invented) where a WAL records no time.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TimelineRow } from '../../src-shared/ipc.js';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { episodeTiming } from '../../src-main/replay/timing.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { useTempDirs } from '../helpers/temp.js';
import { writeFinished } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-row-times-');
const opened: SessionService[] = [];
afterEach(async () => {
  for (const service of opened.splice(0)) await service.close();
});

async function timeline(root: string, key: string): Promise<TimelineRow[]> {
  const service = await SessionService.open(root, { watch: false, cache: false });
  opened.push(service);
  const detail = await service.getSession(key);
  return (await service.getRows(key, 'timeline', 0, detail.rows.timeline)).rows;
}

describe('times on timeline rows', () => {
  it('carry exactly the times the records hold, relative to the episode\'s first (demo approvals: tool-times)', async () => {
    const root = path.join(tempDir(), 'root');
    buildDemoRoot(root, steppedClock(1_750_000_000_000));
    const rows = await timeline(root, 'approvals');
    const fold = replayTarget(resolveTargets(sessionDir(root, 'approvals'))[0]!).fold;
    const timings = fold.episodes.map((episode) => episodeTiming(episode));
    const episodes = rows.filter((row) => row.kind === 'episode');
    expect(episodes.map((row) => [row.first_ms, row.last_ms])).toEqual(timings.map((timing) => [timing.first_ms, timing.last_ms]));
    expect(timings.every((timing) => timing.times_recorded)).toBe(true);
    const steps = rows.filter((row) => row.kind === 'step');
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) {
      const folded = fold.episodes[step.episode - 1]!.steps.find((candidate) => candidate.step_id === step.step_id)!;
      expect(step.ts_ms).toBe(Math.max(...folded.attempts.map((attempt) => attempt.ts_ms!)));
      expect(step.episode_first_ms).toBe(timings[step.episode - 1]!.first_ms);
      expect(step.ts_ms! - step.episode_first_ms!).toBeGreaterThanOrEqual(0);
    }
    const calls = rows.filter((row) => row.kind === 'call');
    expect(calls.some((row) => row.call.dispatched_at_ms !== null && row.call.finished_at_ms !== null)).toBe(true);
    for (const call of calls) {
      const folded = fold.episodes[call.episode - 1]!.batches.find((batch) => batch.batch_id === call.batch_id)!.calls.find((candidate) => candidate.tool_call_id === call.call.tool_call_id)!;
      expect([call.call.dispatched_at_ms, call.call.finished_at_ms, call.episode_first_ms]).toEqual([folded.dispatched_at_ms, folded.finished_at_ms, timings[call.episode - 1]!.first_ms]);
    }
  });

  it('are null where the WAL records no time: nothing is invented', async () => {
    const root = tempDir();
    writeFinished(root, 'untimed');
    const rows = await timeline(root, 'untimed');
    const episode = rows.find((row) => row.kind === 'episode')!;
    expect(episode).toMatchObject({ first_ms: null, last_ms: null });
    expect(rows.filter((row) => row.kind === 'step').length).toBeGreaterThan(0);
    for (const row of rows) {
      if (row.kind === 'step') expect([row.ts_ms, row.episode_first_ms]).toEqual([null, null]);
      if (row.kind === 'call') expect([row.call.dispatched_at_ms, row.episode_first_ms]).toEqual([null, null]);
    }
  });
});
