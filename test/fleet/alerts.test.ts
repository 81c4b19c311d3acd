// The fleet's alerts on a real nats-server (docs/alerts.md): an agent publishes a killed writer's alerts to
// WALSCOPE_ALERTS, `walscope alerts --fleet` reads them (and --follow tails them), and a restart of the agent
// repeats none (each is published under its occurrence's Nats-Msg-Id).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { sessionDir } from '../../src-main/engine/state-root.js';
import type { FleetAlertEvent } from '../../src-main/fleet/alerts.js';
import { ALERTS_STREAM } from '../../src-main/fleet/names.js';
import { killHard, runFixture } from '../fixtures/run-fixture.js';
import { AgentProcess, agentUser, connectAs, fleetConfig, login, NatsServer, REPO_DIR, until, walscope } from './nats-harness.js';

let dir: string;
let server: NatsServer;
let admin: NatsConnection;
let root: string;
let agent: AgentProcess | null = null;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-fleet-alerts-'));
  server = await NatsServer.start(dir, fleetConfig(['alpha']));
  expect(walscope(['fleet', 'init', '--nats', server.url, ...login('fleet-admin')]).status).toBe(0);
  admin = await connectAs(server.url, 'fleet-admin');
  root = path.join(dir, 'root');
  fs.mkdirSync(root);
  const writer = runFixture('write-mid-batch.ts', [root, 's', 'in_flight']);
  await writer.nextLine();
  await killHard(writer);
}, 60_000);

afterAll(async () => {
  await agent?.stop('SIGKILL');
  await admin?.close();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function storedAlerts(): Promise<number> {
  return (await (await jetstreamManager(admin)).streams.info(ALERTS_STREAM)).state.messages;
}

const startAgent = () => AgentProcess.start(root, 'alpha', server.url, login(agentUser('alpha')));

function fleetAlerts(): FleetAlertEvent[] {
  const run = walscope(['alerts', '--fleet', '--json', '--nats', server.url, ...login('operator')]);
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trim().split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as FleetAlertEvent);
}

const brief = (event: FleetAlertEvent) => [event.host, event.type, event.alert.kind, event.alert.attention];

describe('alerts across a fleet', () => {
  it('fleet init makes a bounded WALSCOPE_ALERTS stream that remembers message ids', async () => {
    const { config } = await (await jetstreamManager(admin)).streams.info(ALERTS_STREAM);
    expect(config.max_bytes).toBe(256 * 1024 ** 2);
    expect(config.max_age).toBeGreaterThan(0);
    expect(config.duplicate_window).toBe(86_400_000 * 1_000_000);
  });

  it('an agent refuses a bad threshold before it connects (exit 2)', () => {
    const run = walscope(['agent', root, '--host', 'alpha', '--held-after-ms', 'soon', '--nats', server.url, ...login(agentUser('alpha'))]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--held-after-ms soon: a whole number of milliseconds');
  });

  it("an agent's alerts reach `alerts --fleet`, a restart repeats none, and --follow tails the next", async () => {
    agent = await startAgent();
    await until('the agent publishes its alert', 20_000, async () => (await storedAlerts()) >= 1);
    // The writer's death is one alert: the close-out it left owed (not a gone writer beside it).
    expect(fleetAlerts().map(brief)).toEqual([['alpha', 'fired', 'attention', 'close_out']]);
    await agent.stop();
    // The restarted agent publishes the same occurrences again (its first look): the stream drops them as
    // duplicates. That it had them is shown below: it clears them.
    agent = await startAgent();
    const follow = spawn(process.execPath, ['bin/walscope.js', 'alerts', '--fleet', '--follow', '--json', '--nats', server.url, ...login('operator')], { cwd: REPO_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    const followed: FleetAlertEvent[] = [];
    readline.createInterface({ input: follow.stdout }).on('line', (line) => followed.push(JSON.parse(line) as FleetAlertEvent));
    try {
      await until('follow reads the stored alert', 20_000, async () => followed.length >= 1);
      expect(walscope(['resume', sessionDir(root, 's'), '--yes', '--reason', 'checked: no mail went out']).status).toBe(0);
      await until('follow reads the close-out clearing it and leaving its call unconfirmed', 20_000, async () => followed.some((event) => event.type === 'cleared' && event.alert.attention === 'close_out') && followed.some((event) => event.type === 'fired' && event.alert.attention === 'finished_unconfirmed'));
    } finally {
      follow.kill('SIGTERM');
    }
    expect(followed.slice(0, 1).map(brief)).toEqual([['alpha', 'fired', 'attention', 'close_out']]);
    const stored = fleetAlerts().map(brief);
    expect(stored.filter((event) => event[1] === 'fired' && event[3] === 'close_out')).toHaveLength(1);
    expect(stored.filter((event) => event[1] === 'fired' && event[3] === 'finished_unconfirmed')).toHaveLength(1);
  });
});
