// Comparing in the fleet: a real nats-server with the sample config, two `walscope agent` processes on two demo
// roots, the real `walscope serve --fleet` as support (a read-only role) and Debian's Chromium. Two sessions of one
// host are compared by its agent; two of two hosts by the viewer, from copies of both WALs fetched through their
// agents (verified by SHA-256) into a private temporary folder that is removed after; in the list, two sessions of
// two hosts ticked open the compare view, a damaged side saying where its trust ends.
import fs from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ComparePage } from '../../src-shared/compare.js';
import { sessionKey } from '../../src-main/fleet/names.js';
import { launchChromium, serve, type LaunchedBrowser, type Served } from '../app/serve-harness.js';
import { AgentProcess, agentUser, demoFleet, login, NatsServer } from './nats-harness.js';

const HOSTS = ['alpha', 'beta.dc-1'];

let dir: string;
let server: NatsServer;
let served: Served;
let chromium: LaunchedBrowser;
let page: Page;
const agents = new Map<string, AgentProcess>();

/** One call of the served API, as the renderer makes it. */
async function compare(a: string, b: string, episode: number | null = null): Promise<{ status: number; body: ComparePage & { error?: string } }> {
  const response = await fetch(`http://127.0.0.1:${served.port}/api/compareSessions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-walscope-token': served.token }, body: JSON.stringify({ args: [a, b, episode, 0, 20] }) });
  return { status: response.status, body: (await response.json()) as ComparePage & { error?: string } };
}

/** The viewer's temporary copies for a comparison of two hosts' sessions. */
const copies = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('walscope-fleet-compare-'));

beforeAll(async () => {
  let roots: Map<string, string>;
  ({ dir, server, roots } = await demoFleet('fleet-compare', HOSTS));
  await Promise.all(HOSTS.map(async (host) => agents.set(host, await AgentProcess.start(roots.get(host)!, host, server.url, login(agentUser(host))))));
  [served, chromium] = await Promise.all([serve(['--fleet', '--nats', server.url, ...login('support')]), launchChromium()]);
  page = await chromium.context.newPage();
  await page.setViewportSize({ width: 1400, height: 3_600 });
}, 180_000);

afterAll(async () => {
  await chromium?.close();
  await served?.stop();
  for (const agent of agents.values()) await agent.stop('SIGKILL');
  await server?.stop();
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
});

describe('compareSessions in the fleet', () => {
  it('two sessions of one host are compared by its agent, named by their fleet keys', async () => {
    const [a, b] = [sessionKey('alpha', 'finished'), sessionKey('alpha', 'corrupt-middle')];
    const { status, body } = await compare(a, b);
    expect(status, body.error).toBe(200);
    expect(body.a).toMatchObject({ name: a, session: 'finished', trust: 'whole' });
    expect(body.b).toMatchObject({ name: b, trust: 'refused' });
    expect(body.first_divergence!.sentence).toContain('— B\'s records end here: it is refused (damaged)');
    expect(body.outline).toEqual(body.steps.map((step) => [step.episode, step.step_id, step.identical]));
  }, 60_000);

  it('two of two hosts are compared from copies fetched through their agents, removed after', async () => {
    const before = copies();
    const same = await compare(sessionKey('alpha', 'history'), sessionKey('beta.dc-1', 'history'));
    expect(same.status, same.body.error).toBe(200);
    // The same demo ran on both hosts: its runs are the same, whatever ids and times each minted.
    expect(same.body.identical).toBe(true);
    expect(same.body.a).toMatchObject({ name: sessionKey('alpha', 'history'), session: 'history', trust: 'whole' });
    expect(same.body.episodes).toEqual([1, 2, 3]);
    const scoped = await compare(sessionKey('alpha', 'history'), sessionKey('beta.dc-1', 'history'), 2);
    expect(scoped.body.episodes).toEqual([2]);
    const differ = await compare(sessionKey('alpha', 'indeterminate'), sessionKey('beta.dc-1', 'finished'));
    expect(differ.body.first_divergence).not.toBeNull();
    expect(copies()).toEqual(before);
  }, 60_000);

  it('a session the fleet does not hold is not found; a key that names no host is not found', async () => {
    const missing = await compare(sessionKey('alpha', 'finished'), sessionKey('beta.dc-1', 'no-such-session'));
    expect(missing.status).toBe(503);
    expect(missing.body.error).toMatch(/could not be copied from host beta\.dc-1/);
    expect((await compare('no-host-here', sessionKey('alpha', 'finished'))).status).toBe(404);
  }, 60_000);

  it('in the list, two sessions of two hosts ticked open the compare view', async () => {
    await page.goto(await served.link());
    const [a, b] = [sessionKey('alpha', 'finished'), sessionKey('beta.dc-1', 'corrupt-middle')];
    for (const key of [a, b]) await page.locator(`[data-testid=compare-tick][data-session="${key}"]`).check({ timeout: 20_000 });
    await page.locator('[data-testid=compare-ticked-open]').click();
    const view = page.locator('[data-testid=compare-view]');
    await view.waitFor();
    expect(await view.getAttribute('data-b')).toBe(b);
    await page.locator('[data-testid=divergence-sentence]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-testid=divergence-sentence]').innerText()).toContain('B\'s records end here');
    expect(await page.locator('[data-testid=compare-trust-b]').getAttribute('data-trust')).toBe('refused');
    expect(await page.locator('[data-testid=compare-step][data-step="1"]').getAttribute('data-open')).toBe('true');
  }, 60_000);
});
