// The session detail carries the last episode's timing, without its waterfall's bars, and the session's token
// sums; the bars and an earlier episode's timing are asked for by number. Every episode's waterfall in every
// detail was 11 MB at a million records, cloned to the window on every live append; the last one's alone still
// ~200 KB an append, most of a detail's cost.
import { afterEach, describe, expect, it } from 'vitest';
import type { EpisodeTimingSummary } from '../../src-shared/replay.js';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { SessionFolder } from '../../src-main/replay/fold.js';
import { episodeTimingSummary } from '../../src-main/replay/timing.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { useTempDirs } from '../helpers/temp.js';
import { withSession, writeFinished } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-episode-timing-');
let service: SessionService | null = null;
afterEach(async () => {
  await service?.close();
  service = null;
});

describe('episode timing', () => {
  it('the detail holds the last episode; getTiming any other; tokens sum all of them', async () => {
    const root = tempDir();
    writeFinished(root, 's', 'first');
    writeFinished(root, 's', 'second');
    writeFinished(root, 's', 'third');
    service = await SessionService.open(root, { watch: false, cache: false });
    const detail = await service.getSession('s');
    expect(detail.summary.episodes).toBe(3);
    expect(detail.timing.map((timing) => timing.episode)).toEqual([3]);
    expect(detail.tokens).toEqual({ input_tokens: 3, output_tokens: 3 });
    expect((await service.getTiming('s', 1)).episode).toBe(1);
    expect((await service.getTiming('s', 1)).tokens).toEqual({ input_tokens: 1, output_tokens: 1 });
    await expect(service.getTiming('s', 9)).rejects.toThrow(/no episode 9/);
  });

  it('the last episode\'s summary is its timing without the bars, with their count and a digest', async () => {
    const root = tempDir();
    writeFinished(root, 's', 'first');
    timedSteps(root, 's', 1, 3);
    service = await SessionService.open(root, { watch: false, cache: false });
    const [summary] = (await service.getSession('s')).timing;
    expect(summary).not.toHaveProperty('spans');
    const { spans, ...rest } = await service.getTiming('s', summary!.episode);
    expect(spans.length).toBeGreaterThan(0);
    expect(summary).toEqual({ ...rest, spans_count: spans.length, spans_digest: expect.any(String) });
  });

  it('the digest changes when the bars do, and only then', () => {
    const root = tempDir();
    timedSteps(root, 's', 1, 3);
    const before = lastSummary(root);
    withSession(root, 's', (append) => append('run_note', { note: 'no bar' }));
    const noted = lastSummary(root);
    expect(noted.spans_digest).toBe(before.spans_digest);
    expect(noted.spans_count).toBe(before.spans_count);
    timedSteps(root, 's', 4, 4);
    const stepped = lastSummary(root);
    expect(stepped.spans_count).toBeGreaterThan(before.spans_count);
    expect(stepped.spans_digest).not.toBe(before.spans_digest);
  });
});

/** Steps `first`..`last` of an open run (started with the first), each with a timed attempt. */
function timedSteps(root: string, session_id: string, first: number, last: number): void {
  withSession(root, session_id, (append) => {
    if (first === 1) append('run_started', { run_id: 'run-timed', session: session_id, config: { model: 'm' }, input: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
    for (let step = first; step <= last; step++) {
      append('model_attempt_finished', { step_id: step, attempt: 1, outcome: 'completed', ts_ms: 1_000 * step });
      append('model_step_finished', { step_id: step, assistant_message: { role: 'assistant', content: [{ type: 'text', text: `step ${step}` }] }, usage: { input_tokens: 1, output_tokens: 1 } });
    }
  });
}

function lastSummary(root: string): EpisodeTimingSummary {
  const folder = new SessionFolder();
  readWal(walPath(sessionDir(root, 's')), { on_frame: (frame) => folder.push(frame) });
  return episodeTimingSummary(folder.finish().episodes.at(-1)!);
}
