// The sample server config of docs/fleet.md, as shipped: the server (not walscope) enforces who may do what.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { ActionPreview, Workspace } from '../../src-shared/ipc.js';
import { callHost, fleetRows } from '../../src-main/fleet/client.js';
import { sessionKey } from '../../src-main/fleet/names.js';
import { serve } from '../app/serve-harness.js';
import { AgentProcess, NatsServer, REPO_DIR, until, walscope } from './nats-harness.js';

const CONFIG = fs.readFileSync(path.join(REPO_DIR, 'docs/fleet-server.conf'), 'utf8');

let dir: string;
let server: NatsServer;
let agent: AgentProcess | null = null;
const clients: NatsConnection[] = [];

async function as(user: string, password: string): Promise<NatsConnection> {
  const nc = await connect({ servers: server.url, user, pass: password });
  clients.push(nc);
  return nc;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-fleet-sec-'));
  server = await NatsServer.start(dir, CONFIG);
  expect(walscope(['fleet', 'init', '--nats', server.url, '--user', 'fleet-admin', '--password', 'ADMIN_PASSWORD']).status).toBe(0);
  const root = path.join(dir, 'root');
  expect(walscope(['demo', root]).status).toBe(0);
  agent = await AgentProcess.start(root, 'alpha', server.url, ['--user', 'agent-alpha', '--password', 'AGENT_ALPHA_PASSWORD']);
}, 120_000);

afterAll(async () => {
  await agent?.stop('SIGKILL');
  for (const nc of clients) await nc.close();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the sample server config enforces the three roles', () => {
  it('the agent, with only its own host\'s subjects, fills the bucket; operator and support read it', async () => {
    const operator = await as('operator', 'OPERATOR_PASSWORD');
    await until('alpha listed', 20_000, async () => (await fleetRows(operator)).rows.length > 0);
    const support = await as('support', 'SUPPORT_PASSWORD');
    expect((await fleetRows(support)).rows.length).toBe((await fleetRows(operator)).rows.length);
    expect(((await callHost(support, 'alpha', 'getWorkspace', { args: [] })) as Workspace).kind).toBe('state_root');
  }, 60_000);

  it('support may preview but its action request is refused by the server; nothing is written', async () => {
    const support = await as('support', 'SUPPORT_PASSWORD');
    const preview = (await callHost(support, 'alpha', 'previewAction', { args: ['indeterminate', 'resume'] })) as ActionPreview;
    expect(preview.refusal).toBeNull();
    await expect(callHost(support, 'alpha', 'runAction', { args: ['indeterminate', 'resume', preview.based_on_seq, 'support tries'] }, 3_000)).rejects.toThrow(/permission/i);
    const operator = await as('operator', 'OPERATOR_PASSWORD');
    const again = (await callHost(operator, 'alpha', 'previewAction', { args: ['indeterminate', 'resume'] })) as ActionPreview;
    expect(again.based_on_seq).toBe(preview.based_on_seq);
  }, 60_000);

  it('walscope serve --fleet as the support user: the list and a preview work, the action is refused by the server', async () => {
    const served = await serve(['--fleet', '--nats', server.url, '--user', 'support', '--password', 'SUPPORT_PASSWORD']);
    const call = async (method: string, args: unknown[]) => {
      const response = await fetch(`http://127.0.0.1:${served.port}/api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-walscope-token': served.token }, body: JSON.stringify({ args }) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    try {
      const key = sessionKey('alpha', 'indeterminate');
      expect((await call('listPage', [{ status: null, host: 'alpha' }, 0, 100])).body['total']).toBeGreaterThan(0);
      const preview = (await call('previewAction', [key, 'resume'])).body as unknown as ActionPreview;
      expect(preview.refusal).toBeNull();
      const refused = await call('runAction', [key, 'resume', preview.based_on_seq, 'support tries through serve']);
      expect(refused.status).toBe(400);
      expect(String(refused.body['error'])).toMatch(/NATS server refused.*permission/i);
      expect(((await call('previewAction', [key, 'resume'])).body as unknown as ActionPreview).based_on_seq).toBe(preview.based_on_seq);
    } finally {
      await served.stop();
    }
  }, 60_000);

  it('an agent cannot pose as another host: its writes to that host\'s keys are refused', () => {
    const run = walscope(['agent', path.join(dir, 'root'), '--host', 'beta', '--nats', server.url, '--user', 'agent-alpha', '--password', 'AGENT_ALPHA_PASSWORD']);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/permission/i);
  }, 60_000);
});
