// The sample server config of docs/fleet.md, as shipped (docs/fleet-server.conf, an agent block per host as it
// says to add one): the server and the agent, not walscope's viewers, enforce who may do what. Tried as each
// principal would: support writing, an agent reading other principals' replies, a caller naming someone else,
// a JetStream consumer delivering a stored message to an agent's write subject.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { AcknowledgePreview, ActionOutcome, ActionPreview, RetirePreview, SessionHistory, Workspace } from '../../src-shared/ipc.js';
import type { FleetReply } from '../../src-main/fleet/agent.js';
import { callHost, fleetRows } from '../../src-main/fleet/client.js';
import { alertSubject, ALERTS_STREAM, apiSubject, sessionKey, SESSIONS_BUCKET } from '../../src-main/fleet/names.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { serve } from '../app/serve-harness.js';
import { AgentProcess, agentUser, auditEntries, connectAs, demoFleet, login, NatsServer, until, walscope } from './nats-harness.js';

const HOSTS = ['alpha', 'beta'];
const FORGED_ALERT = JSON.stringify({ host: 'alpha', type: 'fired', at_ms: 1, alert: { session: 'indeterminate', kind: 'attention' } });

let dir: string;
let server: NatsServer;
let roots: Map<string, string>;
const agents: AgentProcess[] = [];
const clients: NatsConnection[] = [];

async function as(user: string): Promise<NatsConnection> {
  const nc = await connectAs(server.url, user);
  clients.push(nc);
  return nc;
}

/** A request on a subject of the caller's choosing, answered as the agent answers it. */
async function raw(nc: NatsConnection, subject: string, body: unknown): Promise<FleetReply> {
  return (await nc.request(subject, JSON.stringify(body), { timeout: 5_000 })).json<FleetReply>();
}

/** The session as its host's disk has it, read by a fresh service. */
async function onDisk<T>(host: string, read: (service: SessionService) => Promise<T>): Promise<T> {
  const service = await SessionService.open(roots.get(host)!, { watch: false });
  try {
    return await read(service);
  } finally {
    await service.close();
  }
}

const walDigest = (host: string, session: string) => createHash('sha256').update(fs.readFileSync(path.join(roots.get(host)!, 'sessions', session, 'wal'))).digest('hex');

beforeAll(async () => {
  ({ dir, server, roots } = await demoFleet('fleet-sec', HOSTS));
  for (const host of HOSTS) agents.push(await AgentProcess.start(roots.get(host)!, host, server.url, login(agentUser(host))));
  const operator = await as('operator');
  await until('both hosts listed', 20_000, async () => {
    const { rows } = await fleetRows(operator);
    return HOSTS.every((host) => rows.some((row) => row.host === host && row.status !== 'loading'));
  });
}, 120_000);

afterAll(async () => {
  for (const agent of agents) await agent.stop('SIGKILL');
  for (const nc of clients) await nc.close();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the sample server config and the agent enforce the roles', () => {
  it('the agents, with only their own host\'s subjects and no consumer, fill the bucket; operator and support read it', async () => {
    const operator = await as('operator');
    const support = await as('support');
    expect((await fleetRows(support)).rows.length).toBe((await fleetRows(operator)).rows.length);
    expect(((await callHost(support, 'support', 'alpha', 'getWorkspace', { args: [] })) as Workspace).kind).toBe('state_root');
  }, 60_000);

  it('neither operator, support nor another host\'s agent can put an alert in a host\'s stream: the server refuses each publish', async () => {
    const admin = await as('fleet-admin');
    const stored = async () => (await (await jetstreamManager(admin)).streams.info(ALERTS_STREAM)).state.messages;
    const before = await stored();
    for (const user of ['operator', 'support', agentUser('beta')]) {
      const nc = await as(user);
      await expect(jetstream(nc).publish(alertSubject('alpha', 'indeterminate'), FORGED_ALERT, { timeout: 2_000 }), user).rejects.toThrow();
    }
    expect(await stored()).toBe(before);
    // The same publish by a principal the server lets publish anything is stored: the refusals were the roles'.
    await jetstream(admin).publish(alertSubject('alpha', 'indeterminate'), FORGED_ALERT, { timeout: 2_000 });
    expect(await stored()).toBe(before + 1);
  }, 60_000);

  it('support may preview every write, but the server refuses each write it asks for, and the agent refuses it on a read subject, audited; nothing is written', async () => {
    const support = await as('support');
    const admin = await as('fleet-admin');
    const preview = (await callHost(support, 'support', 'alpha', 'previewAction', { args: ['indeterminate', 'resume'] })) as ActionPreview;
    expect(preview.refusal).toBeNull();
    const retire = (await callHost(support, 'support', 'alpha', 'previewRetire', { args: ['finished', 'deleted'] })) as RetirePreview;
    expect(retire.plan).not.toBeNull();
    const [unconfirmed] = await onDisk('alpha', async (s) => (await s.getSession('parallel-unknown')).summary.run!.unconfirmed);
    const call = { batch_id: unconfirmed!.batch_id, tool_call_id: unconfirmed!.tool_call_id };
    const writes = {
      runAction: ['indeterminate', 'resume', preview.based_on_seq, 'support tries', 'sam'],
      runRetire: ['finished', 'deleted', retire.plan, 'support tries', 'sam'],
      runAcknowledge: ['parallel-unknown', call, 'applied', 13, 'support tries', 'sam'],
    } as const;
    const before = { finished: walDigest('alpha', 'finished'), indeterminate: walDigest('alpha', 'indeterminate'), unknown: walDigest('alpha', 'parallel-unknown') };
    const audited_before = (await auditEntries(admin)).length;
    for (const [method, args] of Object.entries(writes)) {
      // The write subject: the server's permissions refuse it.
      await expect(callHost(support, 'support', 'alpha', method as keyof typeof writes, { args: [...args] }, 3_000), method).rejects.toThrow(/permission/i);
      // The read subject the server allows support: the agent refuses a write there, and audits the attempt.
      const refused = await raw(support, apiSubject('alpha', 'getSession', 'support').replace(/getSession$/, method), { args });
      expect(refused, method).toMatchObject({ ok: false, code: 'bad_request' });
      expect((refused as { error: string }).error).toContain(`${method} writes: only an operator may call it`);
    }
    const audit = (await auditEntries(admin)).slice(audited_before);
    expect(audit.map((e) => `${e.phase} ${e.nats_user} ${e.session}`)).toEqual(['indeterminate', 'finished', 'parallel-unknown'].flatMap((session) => [`request support ${session}`, `outcome support ${session}`]));
    expect(audit.filter((e) => e.phase === 'outcome').every((e) => e.records_written === 0 && e.result.startsWith('refused: '))).toBe(true);
    // The host's disk, re-read: every WAL as it was, the lineage not deleted.
    expect({ finished: walDigest('alpha', 'finished'), indeterminate: walDigest('alpha', 'indeterminate'), unknown: walDigest('alpha', 'parallel-unknown') }).toEqual(before);
    expect(fs.existsSync(path.join(roots.get('alpha')!, 'sessions', 'finished', 'archive'))).toBe(false);
  }, 60_000);

  it('a user the server lets write but the agent does not count as an operator (--operators) is refused by the agent, audited', async () => {
    // fleet-admin may publish anything: only the agent's own list of operators stands between it and the WAL.
    const admin = await as('fleet-admin');
    const preview = (await callHost(admin, 'fleet-admin', 'alpha', 'previewAction', { args: ['natural-end', 'resume'] })) as ActionPreview;
    const before = walDigest('alpha', 'natural-end');
    const audited_before = (await auditEntries(admin)).length;
    await expect(callHost(admin, 'fleet-admin', 'alpha', 'runAction', { args: ['natural-end', 'resume', preview.based_on_seq, 'admin tries', 'root'] })).rejects.toThrow(/fleet-admin is not among this agent's operators \(--operators operator\)/);
    const audit = (await auditEntries(admin)).slice(audited_before);
    expect(audit.map((e) => `${e.phase} ${e.nats_user} ${e.result.split(':')[0]}`)).toEqual(['request fleet-admin requested', 'outcome fleet-admin refused']);
    expect(walDigest('alpha', 'natural-end')).toBe(before);
  }, 60_000);

  it('walscope serve --fleet as the support user: the list and previews work, every write is refused by the server', async () => {
    const served = await serve(['--fleet', '--nats', server.url, ...login('support')]);
    const call = async (method: string, args: unknown[]) => {
      const response = await fetch(`http://127.0.0.1:${served.port}/api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-walscope-token': served.token }, body: JSON.stringify({ args }) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    try {
      const key = (session: string) => sessionKey('alpha', session);
      expect((await call('listPage', [{ status: null, host: 'alpha', attention: false }, 0, 100])).body['total']).toBeGreaterThan(0);
      const preview = (await call('previewAction', [key('indeterminate'), 'resume'])).body as unknown as ActionPreview;
      expect(preview.refusal).toBeNull();
      const retire = (await call('previewRetire', [key('finished'), 'deleted'])).body as unknown as RetirePreview;
      expect(retire.plan).not.toBeNull();
      const [unconfirmed] = await onDisk('alpha', async (s) => (await s.getSession('parallel-unknown')).summary.run!.unconfirmed);
      const acknowledge = (await call('previewAcknowledge', [key('parallel-unknown'), { batch_id: unconfirmed!.batch_id, tool_call_id: unconfirmed!.tool_call_id }, 'applied'])).body as unknown as AcknowledgePreview;
      expect(acknowledge.refusal).toBeNull();
      const before = [walDigest('alpha', 'finished'), walDigest('alpha', 'parallel-unknown')];
      for (const [method, args] of [
        ['runAction', [key('indeterminate'), 'resume', preview.based_on_seq, 'support tries through serve', 'sam']],
        ['runRetire', [key('finished'), 'deleted', retire.plan, 'support tries through serve', 'sam']],
        ['runAcknowledge', [key('parallel-unknown'), acknowledge.call, 'applied', acknowledge.based_on_seq, 'support tries through serve', 'sam']],
      ] as const) {
        const refused = await call(method, [...args]);
        expect(refused.status, method).toBe(400);
        expect(String(refused.body['error']), method).toMatch(/NATS server refused.*permission/i);
      }
      expect(((await call('previewAction', [key('indeterminate'), 'resume'])).body as unknown as ActionPreview).based_on_seq).toBe(preview.based_on_seq);
      expect([walDigest('alpha', 'finished'), walDigest('alpha', 'parallel-unknown')]).toEqual(before);
    } finally {
      await served.stop();
    }
  }, 60_000);

  it('an agent sees no other principal\'s replies: support\'s fetch of another host\'s WAL and the operator\'s answers go to their own inboxes only', async () => {
    const spy = await as(agentUser('beta'));
    const refused: string[] = [];
    const seen: string[] = [];
    for (const subject of ['_INBOX.>', '_INBOX_support.>', '_INBOX_operator.>']) {
      spy.subscribe(subject, {
        callback: (error, msg) => {
          if (error === null) seen.push(msg.subject);
          else refused.push(`${subject}: ${error.message}`);
        },
      });
    }
    await spy.flush();
    await until('the server refuses every subscription of the spy', 5_000, async () => refused.length === 3);
    expect(refused.every((line) => /permission/i.test(line))).toBe(true);
    const out = path.join(dir, 'spied');
    const fetched = walscope(['fetch', 'alpha', 'finished', out, '--nats', server.url, ...login('support')]);
    expect(fetched.stderr).toBe('');
    expect(fetched.status).toBe(0);
    const operator = await as('operator');
    expect(((await callHost(operator, 'operator', 'alpha', 'getWorkspace', { args: [] })) as Workspace).kind).toBe('state_root');
    await spy.flush();
    expect(seen).toEqual([]);
  }, 60_000);

  it('an agent cannot create a JetStream consumer: none can deliver a stored message to another host\'s API', async () => {
    const rogue = await as(agentUser('alpha'));
    const jsm = await jetstreamManager(rogue, { checkAPI: false });
    await expect(jsm.consumers.add(`KV_${SESSIONS_BUCKET}`, {
      name: 'rogue',
      filter_subject: `$KV.${SESSIONS_BUCKET}.alpha.>`,
      deliver_subject: apiSubject('beta', 'runAction', 'operator'),
      ack_policy: AckPolicy.None,
    })).rejects.toThrow(/permission/i);
  }, 60_000);

  it('a request whose reply goes to another principal\'s inbox is not answered, and a write in it is refused, audited', async () => {
    const operator = await as('operator');
    const support = await as('support');
    const admin = await as('fleet-admin');
    const overheard: string[] = [];
    support.subscribe('_INBOX_support.>', {
      callback: (error, msg) => {
        overheard.push(error === null ? msg.subject : error.message);
      },
    });
    await support.flush();
    const preview = (await callHost(operator, 'operator', 'alpha', 'previewAction', { args: ['natural-end', 'resume'] })) as ActionPreview;
    operator.publish(apiSubject('alpha', 'runAction', 'operator'), JSON.stringify({ args: ['natural-end', 'resume', preview.based_on_seq, 'answer elsewhere', 'ops-1'] }), { reply: '_INBOX_support.elsewhere' });
    const entry = await until('the refusal audited', 10_000, async () => (await auditEntries(admin)).find((e) => e.phase === 'outcome' && e.reason === 'answer elsewhere'));
    expect(entry).toMatchObject({ nats_user: 'operator', records_written: 0 });
    expect(entry.result).toMatch(/^refused: its reply does not go to operator's own inbox/);
    expect(((await callHost(operator, 'operator', 'alpha', 'previewAction', { args: ['natural-end', 'resume'] })) as ActionPreview).based_on_seq).toBe(preview.based_on_seq);
    await support.flush();
    expect(overheard).toEqual([]);
  }, 60_000);

  it('the audit names the authenticated user, not what the caller declares; a name of the wrong type or with control characters is a bad request', async () => {
    const operator = await as('operator');
    const admin = await as('fleet-admin');
    const preview = (await callHost(operator, 'operator', 'beta', 'previewAction', { args: ['indeterminate', 'resume'] })) as ActionPreview;
    const args = ['indeterminate', 'resume', preview.based_on_seq, 'ticket 9'];
    const subject = apiSubject('beta', 'runAction', 'operator');
    for (const body of [{ args: [...args, 'ops-1'], nats_user: 'somebody-else' }, { args: [...args, 'ops-1'], operator: 42 }, { args: [...args, 42] }, { args: [...args, 'ops\u001b[2J'] }]) {
      expect(await raw(operator, subject, body), JSON.stringify(body)).toMatchObject({ ok: false, code: 'bad_request' });
    }
    const audited_before = (await auditEntries(admin)).length;
    const outcome = (await callHost(operator, 'operator', 'beta', 'runAction', { args: [...args, 'ops-1'] })) as ActionOutcome;
    expect(outcome.ok).toBe(true);
    const audit = (await auditEntries(admin)).slice(audited_before);
    expect(audit.map((e) => e.phase)).toEqual(['request', 'outcome']);
    for (const entry of audit) expect(entry).toMatchObject({ host: 'beta', session: 'indeterminate', operator: 'operator', declared_operator: 'ops-1', nats_user: 'operator', reason: 'ticket 9' });
    // The WAL on the host, re-read: its operator_action names the server's user, via the fleet.
    const recovery = await onDisk('beta', async (s) => (await s.getSession('indeterminate')).summary.recoveries.at(-1));
    expect(recovery).toMatchObject({ action: 'resume', operator: 'operator', via: 'fleet', reason: 'ticket 9', based_on_seq: preview.based_on_seq });
  }, 60_000);

  it('a retire through the fleet is audited before it runs, and its operator_action names the fleet operator via "fleet"', async () => {
    const operator = await as('operator');
    const admin = await as('fleet-admin');
    const preview = (await callHost(operator, 'operator', 'beta', 'previewRetire', { args: ['finished', 'sealed'] })) as RetirePreview;
    expect(preview.refusal).toBeNull();
    const audited_before = (await auditEntries(admin)).length;
    const result = await callHost(operator, 'operator', 'beta', 'runRetire', { args: ['finished', 'sealed', preview.plan, 'ticket 12', 'ops-2'] });
    expect(result).toMatchObject({ ok: true });
    const audit = (await auditEntries(admin)).slice(audited_before);
    expect(audit.map((e) => `${e.phase} ${e.action}`)).toEqual(['request retire (sealed)', 'outcome retire (sealed)']);
    expect(audit[1]).toMatchObject({ operator: 'operator', declared_operator: 'ops-2', nats_user: 'operator', reason: 'ticket 12' });
    expect(audit[1]!.result).toMatch(/^written: retired /);
    const history = await onDisk('beta', (s) => s.getHistory('finished') as Promise<SessionHistory>);
    const retired = history.lineages.find((lineage) => lineage.retired_by !== null);
    expect(retired?.retired_by).toMatchObject({ action: 'retire', operator: 'operator', via: 'fleet', reason: 'ticket 12' });
  }, 60_000);

  it('an agent cannot pose as another host: its writes to that host\'s keys are refused', () => {
    const run = walscope(['agent', roots.get('alpha')!, '--host', 'beta', '--nats', server.url, ...login(agentUser('alpha'))]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/permission/i);
  }, 60_000);
});

