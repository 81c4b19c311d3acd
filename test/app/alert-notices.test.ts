// The desktop's alert notices (electron/alert-notices.ts) over a real session service on a real root whose
// writers are killed mid-batch: the first look is one notice for the whole root, then one notice per alert.
import { afterEach, describe, expect, it } from 'vitest';
import { noticesOf, watchNotices, type Notice } from '../../src-main/electron/alert-notices.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { rendererUrlOf } from '../../src-main/electron/app-protocol.js';
import { sessionKey } from '../../src-main/fleet/names.js';
import { DEFAULT_ALERT_THRESHOLDS } from '../../src-shared/alerts.js';
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

  it('a root opened with alerts true is one notice; a writer killed later is a notice naming its session', async () => {
    const root = tempDir();
    await killedMidBatch(root, 'a');
    await killedMidBatch(root, 'b');
    const service = await SessionService.open(root, { cache: false, alerts: DEFAULT_ALERT_THRESHOLDS });
    stops.push(() => service.close());
    const notices: Notice[] = [];
    stops.push(watchNotices(service, (notice) => notices.push(notice)));
    await until('the first look', 20_000, async () => notices.length > 0);
    // Each writer's death is its close-out owed alone (docs/alerts.md: one death, one alert).
    expect(notices).toEqual([{ title: 'walscope: 2 alerts already true', body: 'in 2 of 2 sessions: needs attention', session: null }]);
    await killedMidBatch(root, 'c');
    await until("the new session's alert", 20_000, async () => notices.length >= 2);
    expect(notices.slice(1)).toEqual([{ title: 'walscope: needs attention — c', body: expect.stringContaining('Calls were dispatched with no recorded result') as string, session: 'c' }]);
    // Its click opens that session: the window's fragment, which the renderer's location reads.
    expect(rendererUrlOf('c')).toBe('app://walscope/index.html#session=c');
    expect(new URLSearchParams(new URL(rendererUrlOf('a b&c=#')).hash.slice(1)).get('session')).toBe('a b&c=#');
  });

  it('a window that starts watching after the first look gets what is already true once, from the board', async () => {
    const root = tempDir();
    await killedMidBatch(root, 'a');
    const service = await SessionService.open(root, { cache: false, alerts: DEFAULT_ALERT_THRESHOLDS });
    stops.push(() => service.close());
    await until('the first look', 20_000, async () => (await service.getAlerts()).looked);
    const notices: Notice[] = [];
    stops.push(watchNotices(service, (notice) => notices.push(notice)));
    await until('the summary', 20_000, async () => notices.length > 0);
    expect(notices).toEqual([{ title: 'walscope: 1 alert already true', body: 'in 1 session: needs attention', session: 'a' }]);
  });

  it("name a fleet host's session by its fleet key", () => {
    const alert = { session: 's', kind: 'torn_tail' as const, attention: null, seq: 3, severity: 'warning' as const, waits_for: 'w', link: 'l' };
    expect(noticesOf([{ type: 'fired', at_ms: 0, alert }], 'alpha')).toEqual([{ title: 'walscope: torn tail — s on alpha', body: 'w', session: sessionKey('alpha', 's') }]);
  });
});
