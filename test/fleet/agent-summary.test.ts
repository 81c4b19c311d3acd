// The agent publishes each session's summary as the service made it, plan included: it never opens a session to
// publish it (a getSession per changed summary made every session of a big root resident in turn, evicting the
// ones an operator had open). On a real nats-server with the sample config, the agent in this process.
import { DEFAULT_ALERT_THRESHOLDS } from '../../src-shared/alerts.js';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Kvm } from '@nats-io/kv';
import { FleetAgent, type FleetSummary } from '../../src-main/fleet/agent.js';
import { SESSIONS_BUCKET, sessionKey } from '../../src-main/fleet/names.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { DEMO_SESSION_IDS } from '../../src-main/demo/sessions.js';
import { agentUser, connectAs, demoFleet, until } from './nats-harness.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('the agent publishing summaries', () => {
  it('publishes every session with its plan, opening none of them', async () => {
    const fleet = await demoFleet('agent-summary', ['alpha']);
    cleanups.push(async () => {
      await fleet.server.stop();
      fs.rmSync(fleet.dir, { recursive: true, force: true });
    });
    const service = await SessionService.open(fleet.roots.get('alpha')!, { watch: false, cache: false, alerts: DEFAULT_ALERT_THRESHOLDS });
    cleanups.push(() => service.close());
    await service.whenRead();
    let opened = 0;
    const counted = new Proxy(service, {
      get(target, name) {
        if (name === 'getSession') opened += 1;
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const nc = await connectAs(fleet.server.url, agentUser('alpha'));
    cleanups.push(() => nc.close());
    const agent = await FleetAgent.start({ nc, api: counted, host: 'alpha', root: fleet.roots.get('alpha')!, version: 'test', operators: new Set(['operator']) });
    cleanups.push(() => agent.close());
    const viewer = await connectAs(fleet.server.url, 'operator');
    cleanups.push(() => viewer.close());
    const bucket = await new Kvm(viewer).open(SESSIONS_BUCKET);
    const summaryOf = async (session: string) => {
      const entry = await bucket.get(sessionKey('alpha', session));
      return entry === null || entry.length === 0 ? null : (entry.json() as FleetSummary);
    };
    await until('every summary published', 30_000, async () => (await Promise.all(DEMO_SESSION_IDS.map(summaryOf))).every((summary) => summary !== null));
    expect(await summaryOf('indeterminate')).toMatchObject({ status: 'needs_operator', plan: { action: 'close_out' }, attention: { kind: 'close_out' } });
    expect(await summaryOf('finished')).toMatchObject({ status: 'completed', plan: { action: 'none' } });
    expect(opened).toBe(0);
  });
});
