// The session detail carries the last episode's timing and the session's token sums; an earlier episode's
// timing is asked for by number. Every episode's waterfall in every detail was 11 MB at a million records,
// cloned to the window on every live append.
import { afterEach, describe, expect, it } from 'vitest';
import { SessionService } from '../../src-main/services/session-service.js';
import { useTempDirs } from '../helpers/temp.js';
import { writeFinished } from './wal-fixture.js';

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
});
