// The fleet end to end: a real nats-server with the sample config (docs/fleet-server.conf, an agent block per
// host), three `walscope agent` processes on three demo roots, and the viewer's side (fleet ls, API calls through
// the bus) as the operator. Sized for CI: one server, one demo per host.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ActionOutcome, ActionPreview, RowPage } from '../../src-shared/ipc.js';
import { listSessions } from '../../src-main/engine/state-root.js';
import { callHost, fleetRows } from '../../src-main/fleet/client.js';
import { FleetIndex } from '../../src-main/fleet/index.js';
import { AUDIT_STREAM, sessionKey } from '../../src-main/fleet/names.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { statusLabel } from '../../src-shared/status.js';
import { AgentProcess, agentUser, auditEntries, connectAs, fleetConfig, login, NatsServer, until, walscope } from './nats-harness.js';

const HOSTS = ['alpha', 'beta.dc-1', 'gamma'];

let dir: string;
let server: NatsServer;
let nc: NatsConnection;
/** fleet-admin: the audit and the streams, as an auditor reads them. */
let admin: NatsConnection;
const roots = new Map<string, string>();
const agents = new Map<string, AgentProcess>();


beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-fleet-'));
  server = await NatsServer.start(dir, fleetConfig(HOSTS));
  for (const host of HOSTS) {
    const root = path.join(dir, `root-${host}`);
    expect(walscope(['demo', root]).status).toBe(0);
    roots.set(host, root);
  }
  nc = await connectAs(server.url, 'operator');
  admin = await connectAs(server.url, 'fleet-admin');
}, 120_000);

afterAll(async () => {
  for (const agent of agents.values()) await agent.stop('SIGKILL');
  await nc?.close();
  await admin?.close();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('fleet over a real nats-server', () => {
  it('an agent on a server without the topology refuses in one line and creates nothing', async () => {
    const run = walscope(['agent', roots.get('alpha')!, '--host', 'alpha', '--nats', server.url, ...login(agentUser('alpha'))]);
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('walscope fleet init');
    const jsm = await jetstreamManager(admin);
    const names: string[] = [];
    for await (const info of jsm.streams.list()) names.push(info.config.name);
    expect(names).toEqual([]);
  }, 60_000);

  it('fleet init creates the buckets and streams with their limits, and a second run changes nothing', async () => {
    const first = walscope(['fleet', 'init', '--nats', server.url, ...login('fleet-admin')]);
    expect(first.status).toBe(0);
    expect(first.stdout.match(/^created /gm)).toHaveLength(5);
    const second = walscope(['fleet', 'init', '--nats', server.url, ...login('fleet-admin')]);
    expect(second.stdout.match(/^present /gm)).toHaveLength(5);
    const jsm = await jetstreamManager(nc);
    const events = await jsm.streams.info('WALSCOPE_EVENTS');
    expect(events.config.subjects).toEqual(['walscope.events.>']);
    expect(events.config.max_age).toBe(30 * 86_400_000 * 1_000_000);
    expect(events.config.max_bytes).toBeGreaterThan(0);
    expect((await jsm.streams.info(AUDIT_STREAM)).config.max_bytes).toBeGreaterThan(0);
  }, 60_000);

  it('three agents: the fleet list holds every session of every host', async () => {
    for (const host of HOSTS) agents.set(host, await AgentProcess.start(roots.get(host)!, host, server.url, login(agentUser(host))));
    const expected = HOSTS.flatMap((host) => listSessions(roots.get(host)!).sessions.map((s) => `${host}/${s}`)).sort();
    // Listed first with status 'loading' (the list comes before each WAL's read), then each read's status.
    await until('every session listed with its status', 20_000, async () => {
      const { rows } = await fleetRows(nc);
      return rows.length === expected.length && rows.every((r) => r.status !== 'loading');
    });
    const { rows, hosts } = await fleetRows(nc);
    expect(rows.map((r) => `${r.host}/${r.session}`).sort()).toEqual(expected);
    expect(rows.every((r) => !r.stale)).toBe(true);
    expect(hosts.map((h) => h.host).sort()).toEqual([...HOSTS].sort());
    const ls = walscope(['fleet', 'ls', '--nats', server.url, ...login('support'), '--status', 'needs_operator', '--json']);
    const listed = JSON.parse(ls.stdout) as { sessions: { status: string }[] };
    expect(listed.sessions.length).toBeGreaterThan(0);
    expect(listed.sessions.every((s) => s.status === 'needs_operator')).toBe(true);
  }, 90_000);

  it('fleet ls prints each status by its label with a torn tail beside it, and --attention lists the attention queue of every host, each saying what it waits for', async () => {
    const { rows } = await fleetRows(nc);
    const text = walscope(['fleet', 'ls', '--nats', server.url, ...login('support')]);
    expect(text.status).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines).toHaveLength(rows.length);
    for (const row of rows) expect(lines).toContain(`${row.host}\t${row.session}\t${statusLabel(row.status)}${row.torn_tail === null ? '' : ` · torn tail: ${row.torn_tail.bytes} bytes at offset ${row.torn_tail.offset}`}\tseq ${row.last_seq}\t${row.why}`);
    expect(lines).toContainEqual(expect.stringMatching(/^alpha\tfinished\tcompleted\t/));
    expect(lines).toContainEqual(expect.stringMatching(/^alpha\ttorn-tail\tneeds operator · torn tail: \d+ bytes at offset \d+\t/));

    const queue = rows.filter((row) => row.attention !== null);
    expect(new Set(queue.map((row) => row.attention!.kind))).toEqual(new Set(['close_out', 'finalize', 'wait_held', 'finished_unconfirmed', 'damaged']));
    const attention = walscope(['fleet', 'ls', '--attention', '--nats', server.url, ...login('support')]);
    expect(attention.status).toBe(0);
    expect(attention.stdout.trim().split('\n').sort()).toEqual(queue.map((row) => `${row.host}\t${row.session}\t${statusLabel(row.status)}${row.torn_tail === null ? '' : ` · torn tail: ${row.torn_tail.bytes} bytes at offset ${row.torn_tail.offset}`}\tseq ${row.last_seq}\t${row.attention!.kind}: ${row.attention!.message}`).sort());
    const json = JSON.parse(walscope(['fleet', 'ls', '--attention', '--json', '--nats', server.url, ...login('support')]).stdout) as { sessions: { host: string; session: string }[] };
    expect(json.sessions.map((s) => `${s.host}/${s.session}`).sort()).toEqual(queue.map((row) => `${row.host}/${row.session}`).sort());
    const index = await FleetIndex.open(nc, () => undefined);
    expect(index.page({ attention: true }, 0, 2_000).total).toBe(queue.length);
    index.close();
  }, 60_000);

  it('an action on a remote session writes exactly the previewed records on that host, audited first', async () => {
    const host = 'beta.dc-1';
    const index = await FleetIndex.open(nc, () => undefined);
    expect(index.page({ host }, 0, 100).total).toBe(listSessions(roots.get(host)!).sessions.length);
    const preview = (await callHost(nc, 'operator', host, 'previewAction', { args: ['indeterminate', 'resume'] })) as ActionPreview;
    expect(preview.refusal).toBeNull();
    expect(preview.plan.records.length).toBeGreaterThan(0);
    const outcome = (await callHost(nc, 'operator', host, 'runAction', { args: ['indeterminate', 'resume', preview.based_on_seq, 'ticket 42', 'ops-1'] })) as ActionOutcome;
    expect(outcome.ok).toBe(true);
    // The audit holds the request and the outcome the moment the reply arrives.
    const audit = (await auditEntries(admin)).filter((e) => e.host === host && e.session === 'indeterminate');
    expect(audit.map((e) => e.phase)).toEqual(['request', 'outcome']);
    expect(audit[1]).toMatchObject({ operator: 'operator', declared_operator: 'ops-1', nats_user: 'operator', reason: 'ticket 42', action: 'resume', based_on_seq: preview.based_on_seq, records_written: preview.plan.records.length + 1, result: 'written' });
    // Re-read that host's disk with a fresh service: the records after based_on_seq are the previewed ones.
    const fresh = await SessionService.open(roots.get(host)!, { watch: false });
    try {
      const detail = await fresh.getSession('indeterminate');
      const page = (await fresh.getRows('indeterminate', 'records', 0, 2_000)) as RowPage<'records'>;
      const after = page.rows.filter((r) => r.seq > preview.based_on_seq).map((r) => r.type);
      // The session's own operator_action audit record first, then the previewed records.
      expect(after).toEqual(['operator_action', ...preview.plan.records.map((r) => r.type)]);
      expect(detail.summary.last_seq).toBe(preview.based_on_seq + preview.plan.records.length + 1);
    } finally {
      await fresh.close();
    }
    // The viewer's index follows the bucket: the new last seq arrives (writes are coalesced to ≤ 1 s).
    await until('index current', 5_000, async () => index.summaries.get(sessionKey(host, 'indeterminate'))?.last_seq === preview.based_on_seq + preview.plan.records.length + 1);
    index.close();
    // The other hosts' copies of the same demo session are untouched.
    const untouched = listSessions(roots.get('alpha')!);
    expect(untouched.sessions).toContain('indeterminate');
    const alpha = (await callHost(nc, 'operator', 'alpha', 'previewAction', { args: ['indeterminate', 'resume'] })) as ActionPreview;
    expect(alpha.based_on_seq).toBe(preview.based_on_seq);
  }, 60_000);

  it('fetch copies a session\'s WAL through its agent, byte for byte, as a read-only export', async () => {
    const out = path.join(dir, 'fetched');
    const run = walscope(['fetch', 'alpha', 'torn-tail', out, '--nats', server.url, ...login('support')]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const copy = path.join(out, 'alpha.torn-tail', 'wal');
    const original = fs.readFileSync(path.join(roots.get('alpha')!, 'sessions', 'torn-tail', 'wal'));
    expect(fs.readFileSync(copy).equals(original)).toBe(true);
    expect(run.stdout).toContain(createHash('sha256').update(original).digest('hex'));
    expect(fs.statSync(copy).mode & 0o222).toBe(0);
    const opened = await SessionService.open(path.join(out, 'alpha.torn-tail'), { watch: false });
    try {
      expect((await opened.getWorkspace()).read_only).toBe(true);
    } finally {
      await opened.close();
    }
    const again = walscope(['fetch', 'alpha', 'torn-tail', out, '--nats', server.url, ...login('support')]);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain('never overwrites');
    const missing = walscope(['fetch', 'alpha', 'no-such-session', path.join(dir, 'fetched-2'), '--nats', server.url, ...login('support')]);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('no-such-session');
    expect(fs.existsSync(path.join(dir, 'fetched-2', 'alpha.no-such-session'))).toBe(false);
  }, 60_000);

  it('the server restarted: agents reconnect, the view is whole within 10 s, the audit kept', async () => {
    const audit_before = await auditEntries(admin);
    await server.stop();
    await server.restart();
    const started = Date.now();
    const expected = HOSTS.flatMap((host) => listSessions(roots.get(host)!).sessions).length;
    await until('whole view after restart', 10_000, async () => {
      const { rows } = await fleetRows(nc);
      if (rows.length !== expected || rows.some((r) => r.stale)) return false;
      for (const host of HOSTS) await callHost(nc, 'operator', host, 'getWorkspace', { args: [] }, 1_000);
      return true;
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await auditEntries(admin)).toEqual(audit_before);
  }, 60_000);

  it('kill -9 of an agent: its host is offline within 15 s and its summaries stale; the others stay online', async () => {
    await agents.get('gamma')!.stop('SIGKILL');
    const killed = Date.now();
    await until('gamma offline', 16_000, async () => {
      const { rows } = await fleetRows(nc, { host: 'gamma' });
      return rows.length > 0 && rows.every((r) => r.stale);
    });
    expect(Date.now() - killed).toBeLessThanOrEqual(16_000);
    const { rows } = await fleetRows(nc);
    expect(rows.filter((r) => r.host !== 'gamma').every((r) => !r.stale)).toBe(true);
    await expect(callHost(nc, 'operator', 'gamma', 'previewAction', { args: ['indeterminate', 'resume'] }, 1_000)).rejects.toThrow();
  }, 60_000);

  it('a restarted agent deletes the keys of the sessions that left its root while it was down, and only those', async () => {
    const gone = path.join(roots.get('gamma')!, 'sessions', 'max-steps');
    fs.rmSync(gone, { recursive: true });
    agents.set('gamma', await AgentProcess.start(roots.get('gamma')!, 'gamma', server.url, login(agentUser('gamma'))));
    const expected = listSessions(roots.get('gamma')!).sessions.sort();
    await until('gamma\'s keys are its sessions', 10_000, async () => (await fleetRows(nc, { host: 'gamma' })).rows.map((r) => r.session).join() === expected.join());
    expect((await fleetRows(nc, { host: 'alpha' })).rows.map((r) => r.session)).toContain('max-steps');
  }, 60_000);
});
