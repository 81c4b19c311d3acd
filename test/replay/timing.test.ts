// Time and tokens from what the records carry, on the demo root: a retried attempt counts as failed, tool
// times make call bars, a held call's wait stays open while its result is owed, and a WAL without times says
// so instead of getting invented ones.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { episodeTiming } from '../../src-main/replay/timing.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { writeFinished } from '../app/wal-fixture.js';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-timing-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const root = path.join(work, 'root');
buildDemoRoot(root, steppedClock(1_750_000_000_000));

const timingOf = (id: string) => replayTarget(resolveTargets(sessionDir(root, id))[0]!).fold.episodes.map((episode) => episodeTiming(episode));

describe('episode timing', () => {
  it('counts failed attempts, sums tokens, and puts steps, batches and calls on one axis', () => {
    const [timing] = timingOf('finished');
    expect(timing!.times_recorded).toBe(true);
    expect(timing!.failed_attempts).toBe(1);
    expect(timing!.tokens['input_tokens']).toBeGreaterThan(0);
    expect(timing!.spans.map((span) => span.kind)).toContain('step');
    for (const span of timing!.spans) {
      expect(span.start_ms).toBeGreaterThanOrEqual(timing!.first_ms!);
      if (span.end_ms !== null) expect(span.end_ms).toBeLessThanOrEqual(timing!.last_ms!);
    }
  });

  it('a step retried after a failed attempt ended answered, not failed; each call as its result says', () => {
    const [timing] = timingOf('finished');
    const retried = timing!.spans.find((span) => span.kind === 'step' && span.failed > 0)!;
    expect(retried).toMatchObject({ ended: 'ok', step_id: 1 });
    const [agent] = timingOf('coding-agent');
    const first_batch = agent!.spans.filter((span) => span.kind === 'call' && span.step_id === 1);
    expect(first_batch.map((span) => span.label)).toEqual(['read_file ca1', 'read_file ca2', 'shell ca3']);
    expect(first_batch.every((span) => span.ended === 'ok')).toBe(true);
    expect(timingOf('held-sequential')[0]!.spans.find((span) => span.kind === 'held')!.ended).toBe('open');
  });

  it('shows a held call\'s wait, open while its late result is owed', () => {
    const [timing] = timingOf('held-sequential');
    const held = timing!.spans.filter((span) => span.kind === 'held');
    expect(held).toHaveLength(1);
    expect(held[0]!.end_ms).toBeNull();
  });

  it('a WAL without times says so: no first or last time, no bars', () => {
    const bare = path.join(work, 'bare');
    fs.mkdirSync(bare);
    writeFinished(bare, 'untimed');
    const [timing] = replayTarget(resolveTargets(sessionDir(bare, 'untimed'))[0]!).fold.episodes.map((episode) => episodeTiming(episode));
    expect(timing).toMatchObject({ times_recorded: false, first_ms: null, last_ms: null, spans: [] });
    expect(timing!.tokens).toEqual({ input_tokens: 1, output_tokens: 1 });
  });
});
