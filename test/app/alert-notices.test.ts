// The desktop's alert notices (electron/alert-notices.ts) over a real session service on a real root whose
// writers are killed mid-batch: the first look is one notice for the whole root, then one notice per alert.
import { afterEach, describe, expect, it } from 'vitest';
import { noticesOf, watchNotices, type Notice } from '../../src-main/electron/alert-notices.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { killHard, runFixture } from '../fixtures/run-fixture.js';
import { useTempDirs } from '../helpers/temp.js';
import { until } from '../fleet/nats-harness.js';

const tempDir = useTempDirs('walscope-notices-');
const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function killedMidBatch(root: string, session: string): Promise<void> {
  const writer = runFixture('write-mid-batch.ts', [root, session, 'in_flight']);
  await writer.nextLine();
  await killHard(writer);
}

describe('alert notices', () => {
  it('say nothing of a clear, and nothing for a first look that finds nothing', () => {
    const alert = { session: 's', kind: 'torn_tail' as const, attention: null, seq: 3, severity: 'warning' as const, waits_for: 'w', link: 'l' };
    expect(noticesOf([{ type: 'summary', at_ms: 0, alerts: [], sessions: 4 }, { type: 'cleared', at_ms: 0, alert }])).toEqual([]);
    expect(noticesOf([{ type: 'fired', at_ms: 0, alert }])).toEqual([{ title: 'walscope: torn tail — s', body: 'w', session: 's' }]);
  });

  it('a root opened with alerts true is one notice; a writer killed later is a notice per alert, naming its session', async () => {
    const root = tempDir();
    await killedMidBatch(root, 'a');
    await killedMidBatch(root, 'b');
    const service = await SessionService.open(root, { cache: false });
    stops.push(() => service.close());
    const notices: Notice[] = [];
    stops.push(watchNotices(service, root, (notice) => notices.push(notice), 100));
    await until('the first look', 20_000, async () => notices.length > 0);
    expect(notices).toEqual([{ title: 'walscope: 4 alerts already true', body: 'in 2 of 2 sessions: needs attention, writer gone', session: null }]);
    await killedMidBatch(root, 'c');
    await until('the new session\'s alerts', 20_000, async () => notices.length >= 3);
    // In the order the looks found them: the lease and the WAL's read are seen apart.
    expect(notices.slice(1).map((notice) => [notice.title, notice.session]).sort()).toEqual([
      ['walscope: needs attention — c', 'c'],
      ['walscope: writer gone — c', 'c'],
    ]);
  });
});
