// The buckets' values are untrusted: any agent may write anything to its own keys (the sample config lets it).
// With a real nats-server and the real `walscope serve --fleet` and `fleet ls`: values that are not JSON, not
// a summary, or that name another host are left out and reported by key, and nothing a value holds ends a viewer
// or breaks a page; a summary or a heartbeat is believed by its key, and a beat is aged by when it arrived.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { SessionPage } from '../../src-shared/ipc.js';
import type { FleetSummary, HostBeat } from '../../src-main/fleet/agent.js';
import { hostKey, HOSTS_BUCKET, sessionKey, SESSIONS_BUCKET } from '../../src-main/fleet/names.js';
import { serve, type Served } from '../app/serve-harness.js';
import { AgentProcess, agentUser, connectAs, fleetConfig, login, NatsServer, until, walscope } from './nats-harness.js';

let dir: string;
let server: NatsServer;
let agent: AgentProcess;
let served: Served;
let serve_stderr = '';
const clients: NatsConnection[] = [];

async function as(user: string): Promise<NatsConnection> {
  const nc = await connectAs(server.url, user);
  clients.push(nc);
  return nc;
}

async function listPage(filter: { status: null; host: string | null; attention: boolean }): Promise<{ status: number; page: SessionPage }> {
  const response = await fetch(`http://127.0.0.1:${served.port}/api/listPage`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-walscope-token': served.token }, body: JSON.stringify({ args: [filter, 0, 2_000] }) });
  return { status: response.status, page: (await response.json()) as SessionPage };
}

interface Listed {
  hosts: HostBeat[];
  sessions: (FleetSummary & { stale: boolean })[];
  skipped: { bucket: string; key: string | null; why: string }[];
}

function fleetLs(): { status: number | null; listed: Listed; stderr: string } {
  const run = walscope(['fleet', 'ls', '--json', '--nats', server.url, ...login('support')]);
  return { status: run.status, listed: (run.status === 0 ? JSON.parse(run.stdout) : null) as Listed, stderr: run.stderr };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-fleet-values-'));
  server = await NatsServer.start(dir, fleetConfig(['alpha', 'gamma']));
  expect(walscope(['fleet', 'init', '--nats', server.url, ...login('fleet-admin')]).status).toBe(0);
  const root = path.join(dir, 'root');
  expect(walscope(['demo', root]).status).toBe(0);
  agent = await AgentProcess.start(root, 'alpha', server.url, login(agentUser('alpha')));
  served = await serve(['--fleet', '--nats', server.url, ...login('operator')]);
  served.child.stderr!.on('data', (chunk: Buffer) => (serve_stderr += chunk.toString()));
  await until('alpha listed, every session read', 20_000, async () => {
    const { page } = await listPage({ status: null, host: 'alpha', attention: false });
    return page.total > 0 && page.rows.every((row) => row.status !== 'loading');
  });
}, 120_000);

afterAll(async () => {
  await served?.stop();
  await agent?.stop('SIGKILL');
  for (const nc of clients) await nc.close();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('bucket values are untrusted', () => {
  it('an agent\'s junk values are left out and reported by key: serve --fleet stays up, its pages answer, fleet ls lists the rest', async () => {
    const real = (await (await new Kvm(await as('fleet-admin')).open(SESSIONS_BUCKET)).get(sessionKey('alpha', 'finished')))!.json<FleetSummary>();
    const rogue = await as(agentUser('alpha'));
    const sessions = await new Kvm(rogue).open(SESSIONS_BUCKET);
    const bad: Record<string, string> = {
      'alpha.junk': 'definitely { not json',
      'alpha.null': 'null',
      'alpha.five': '{"host": 5}',
      'alpha.spoofed': JSON.stringify({ ...real, host: 'gamma', session: 'spoofed', status: 'needs_operator' }),
      'alpha.nostatus': JSON.stringify({ ...real, session: 'nostatus', status: 'bogus' }),
      'alpha.badattention': JSON.stringify({ ...real, session: 'badattention', attention: { kind: 'world_ending', message: 'x' } }),
      'alpha.badtail': JSON.stringify({ ...real, session: 'badtail', torn_tail: { offset: -1, bytes: 'many' } }),
    };
    for (const [key, value] of Object.entries(bad)) await sessions.put(key, value);
    await (await new Kvm(rogue).open(HOSTS_BUCKET)).put(hostKey('alpha'), 'a heartbeat { that is not JSON');
    await until('serve reports every bad key', 10_000, async () => [...Object.keys(bad), 'walscope-hosts key alpha'].every((key) => serve_stderr.includes(key)));
    expect(served.child.exitCode).toBeNull();
    expect(serve_stderr).toMatch(/walscope-sessions key alpha\.spoofed: it names host "gamma", but the key is host alpha's/);
    const { status, page } = await listPage({ status: null, host: null, attention: false });
    expect(status).toBe(200);
    const keys = page.rows.map((row) => row.key);
    for (const key of Object.keys(bad)) expect(keys).not.toContain(key);
    expect(page.rows.every((row) => row.host === 'alpha')).toBe(true);
    expect((await listPage({ status: null, host: 'gamma', attention: false })).page.total).toBe(0);
    expect((await listPage({ status: null, host: null, attention: true })).status).toBe(200);

    const ls = fleetLs();
    expect(ls.status).toBe(0);
    expect(ls.listed.skipped.filter((s) => s.bucket === SESSIONS_BUCKET).map((s) => s.key).sort()).toEqual(Object.keys(bad).sort());
    expect(ls.stderr).toContain('left out walscope-sessions key alpha.junk: not JSON');
    expect(ls.listed.sessions.every((row) => row.host === 'alpha' && !Object.keys(bad).includes(sessionKey(row.host, row.session)))).toBe(true);
    const text = walscope(['fleet', 'ls', '--nats', server.url, ...login('support')]);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain('alpha\tfinished\tcompleted');
    for (const key of Object.keys(bad)) await sessions.delete(key);
  }, 60_000);

  it('a summary and a heartbeat are believed by their key: a heartbeat naming another host keeps no dead host fresh, in serve or fleet ls', async () => {
    const admin = await as('fleet-admin');
    const sessions = await new Kvm(admin).open(SESSIONS_BUCKET);
    const real = (await sessions.get(sessionKey('alpha', 'finished')))!.json<FleetSummary>();
    // gamma's agent is long gone: its summary is in the bucket, its heartbeat is not.
    await sessions.put(sessionKey('gamma', 'left-behind'), JSON.stringify({ ...real, host: 'gamma', session: 'left-behind' }));
    const rogue = await as(agentUser('alpha'));
    const spoof: HostBeat = { host: 'gamma', version: '0.1.0', root: '/r', sessions: 1, started_ms: Date.now(), beat_ms: Date.now() + 1e10 };
    await (await new Kvm(rogue).open(HOSTS_BUCKET)).put(hostKey('alpha'), JSON.stringify(spoof));
    await until('serve reports the spoofed beat', 10_000, async () => /walscope-hosts key alpha: it names host "gamma"/.test(serve_stderr));
    const { page } = await listPage({ status: null, host: 'gamma', attention: false });
    expect(page.rows.map((row) => row.key)).toEqual([sessionKey('gamma', 'left-behind')]);
    expect(page.rows[0]!.stale).toMatch(/gamma has never sent a heartbeat/);
    const ls = fleetLs();
    expect(ls.listed.sessions.find((row) => row.host === 'gamma')).toMatchObject({ session: 'left-behind', stale: true });
    expect(ls.listed.hosts.map((beat) => beat.host)).not.toContain('gamma');
    await sessions.delete(sessionKey('gamma', 'left-behind'));
  }, 60_000);

  it('fleet ls ages a heartbeat by when the server stored it, not by the time it carries: a host whose clock is a minute behind is fresh', async () => {
    const admin = await as('fleet-admin');
    const behind: HostBeat = { host: 'skewed', version: '0.1.0', root: '/r', sessions: 1, started_ms: Date.now() - 120_000, beat_ms: Date.now() - 60_000 };
    await (await new Kvm(admin).open(HOSTS_BUCKET)).put(hostKey('skewed'), JSON.stringify(behind));
    const sessions = await new Kvm(admin).open(SESSIONS_BUCKET);
    const real = (await sessions.get(sessionKey('alpha', 'finished')))!.json<FleetSummary>();
    await sessions.put(sessionKey('skewed', 's1'), JSON.stringify({ ...real, host: 'skewed', session: 's1' }));
    expect(fleetLs().listed.sessions.find((row) => row.host === 'skewed')).toMatchObject({ session: 's1', stale: false });
  }, 60_000);
});
