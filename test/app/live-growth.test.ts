// A live session's append shows even when its file event is lost (chokidar drops a change whose stat shows an
// mtime it has already seen, or one within 5 ms of the last): the open sessions a live writer holds are also
// checked for growth. The watcher is closed here, so only that check can see the append.
import { afterEach, describe, expect, it } from 'vitest';
import { openSessionForWrite } from '../../src-main/engine/session.js';
import { SessionService } from '../../src-main/services/session-service.js';
import type { WalscopeEvent } from '../../src-shared/ipc.js';
import { useTempDirs } from '../helpers/temp.js';
import { writeFinished } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-live-growth-');
let service: SessionService | null = null;
afterEach(async () => {
  await service?.close();
  service = null;
});

describe('live growth without a file event', () => {
  it('an append to an open live session is shown with the watcher gone', async () => {
    const root = tempDir();
    writeFinished(root, 'live');
    service = await SessionService.open(root, { cache: false });
    await service.whenWatching();
    const writer = openSessionForWrite(root, 'live', { writer_name: 'live-growth-test' });
    try {
      await service.getSession('live');
      await expect.poll(async () => (await service!.getSession('live')).summary.status, { timeout: 5_000 }).toBe('running');
      await (service as unknown as { follow: { watcher: { close(): Promise<void> } } }).follow.watcher.close();
      const seen: number[] = [];
      service.subscribe((event: WalscopeEvent) => {
        if (event.type === 'session') seen.push(event.last_seq);
      });
      const { seq } = writer.writer.append('run_paused', { run_id: 'run-live', reason: 'operator' });
      writer.writer.barrier();
      await expect.poll(() => seen.at(-1), { timeout: 5_000 }).toBe(seq);
    } finally {
      writer.close();
    }
  });
});
