// The fleet in the UI: a real nats-server with the sample config, three `walscope agent` processes on three demo
// roots, the real `walscope serve --fleet` as the operator and Debian's Chromium. The list holds every session of
// every host and filters by host, by status and by the attention queue; an action on a remote session writes
// exactly the previewed records on that host and is audited; an acknowledgement on a remote host's unconfirmed
// run makes it finished, checked; an agent killed with SIGKILL shows offline (its actions disabled, saying why)
// within 15 s; a restarted server gives back the whole view within 10 s with nothing lost from the audit stream.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ActionOutcome, RowPage, SessionPage } from '../../src-shared/ipc.js';
import type { AlertsView } from '../../src-shared/alerts.js';
import { listSessions } from '../../src-main/engine/state-root.js';
import { hostKey, HOSTS_BUCKET, sessionKey } from '../../src-main/fleet/names.js';
import type { HostBeat } from '../../src-main/fleet/agent.js';
import { Kvm } from '@nats-io/kv';
import { fleetRows } from '../../src-main/fleet/client.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { launchChromium, serve, type LaunchedBrowser, type Served } from '../app/serve-harness.js';
import { saveScreenshot } from '../app/screenshots.js';
import { AgentProcess, agentUser, auditEntries, connectAs, demoFleet, login, NatsServer, until } from './nats-harness.js';

const HOSTS = ['alpha', 'beta.dc-1', 'gamma'];
const REASON = 'fleet ticket 7';

let dir: string;
let server: NatsServer;
let nc: NatsConnection;
/** fleet-admin: the audit, and a heartbeat written by hand. */
let admin: NatsConnection;
let served: Served;
let chromium: LaunchedBrowser;
let page: Page;
let roots: Map<string, string>;
const agents = new Map<string, AgentProcess>();


function sessionsOf(host: string): string[] {
  return listSessions(roots.get(host)!).sessions;
}

const rows = () => page.locator('[data-testid=session-row]');
const TALL = { width: 1400, height: 3_600 };

/** A screenshot at the usual window size; the page is tall again after it. */
async function screenshot(name: string): Promise<void> {
  await page.setViewportSize({ width: 1400, height: 900 });
  await saveScreenshot(page, name);
  await page.setViewportSize(TALL);
}
const row = (host: string, session: string) => page.locator(`[data-testid=session-row][data-host="${host}"][data-session="${session}"]`);

/** Every host:session shown in the list (all of them fit on the tall page). */
async function shown(): Promise<string[]> {
  const all = await rows().evaluateAll((elements) => elements.map((e) => `${e.getAttribute('data-host')}:${e.getAttribute('data-session')}`));
  return all.sort();
}

/** One call of the served API, as the renderer makes it. */
function apiCall(method: string, args: unknown[]): Promise<Response> {
  return fetch(`http://127.0.0.1:${served.port}/api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-walscope-token': served.token }, body: JSON.stringify({ args }) });
}

beforeAll(async () => {
  ({ dir, server, roots } = await demoFleet('fleet-view', HOSTS));
  await Promise.all(HOSTS.map(async (host) => agents.set(host, await AgentProcess.start(roots.get(host)!, host, server.url, login(agentUser(host))))));
  nc = await connectAs(server.url, 'operator');
  admin = await connectAs(server.url, 'fleet-admin');
  [served, chromium] = await Promise.all([serve(['--fleet', '--nats', server.url, ...login('operator')]), launchChromium()]);
  page = await chromium.context.newPage();
  // Tall enough that the virtualized list renders every one of the three demos' sessions.
  await page.setViewportSize(TALL);
  await page.goto(await served.link());
}, 180_000);

afterAll(async () => {
  await chromium?.close();
  await served?.stop();
  for (const agent of agents.values()) await agent.stop('SIGKILL');
  await nc?.close();
  await admin?.close();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('walscope serve --fleet in Chromium', () => {
  it('lists every session of every host, and filters by host, by status, and "needs attention anywhere"', async () => {
    const expected = HOSTS.flatMap((host) => sessionsOf(host).map((s) => `${host}:${s}`)).sort();
    await expect.poll(shown, { timeout: 20_000 }).toEqual(expected);
    expect(await page.locator('[data-testid=workspace-kind]').innerText()).toContain('fleet');
    expect(await page.locator('[data-testid=host-row][data-online=true]').count()).toBe(HOSTS.length);
    expect(await page.locator('[data-testid=fleet-count]').innerText()).toContain(`${expected.length} sessions on ${HOSTS.length} hosts`);

    await page.locator('[data-testid=host-filter]').selectOption('beta.dc-1');
    await expect.poll(shown).toEqual(sessionsOf('beta.dc-1').map((s) => `beta.dc-1:${s}`).sort());

    await page.locator('[data-testid=host-filter]').selectOption('');
    await page.locator('[data-testid=status-filter]').selectOption('damaged');
    await expect.poll(async () => (await rows().count()) > 0 && (await rows().evaluateAll((e) => e.every((x) => x.getAttribute('data-status') === 'damaged')))).toBe(true);
    await page.locator('[data-testid=status-filter]').selectOption('');

    await page.locator('[data-testid=needs-attention-anywhere]').click();
    const needing = (await fleetRows(nc, { attention: true })).rows.map((r) => `${r.host}:${r.session}`).sort();
    // Each host's demo waits on a person for a recovery, a held call, an unconfirmed outcome and its damage.
    expect(needing.length).toBeGreaterThanOrEqual(HOSTS.length * 6);
    await expect.poll(shown).toEqual(needing);
    await screenshot('fleet-needs-attention');
    await page.locator('[data-testid=needs-attention-anywhere]').click();
    await expect.poll(shown).toEqual(expected);
  }, 60_000);

  it("the Alerts panel holds every host's alerts from the stream, and each opens its session by the fleet's key", async () => {
    // Each host's attention alerts are its part of the queue (wal-format §10): the agents published them at their
    // first look; serve --fleet read them from WALSCOPE_ALERTS.
    const queue = (await fleetRows(nc, { attention: true })).rows;
    const attentionOf = (view: AlertsView) => view.current.filter((shown) => shown.alert.kind === 'attention').map((shown) => shown.key).sort();
    await expect.poll(async () => attentionOf((await (await apiCall('getAlerts', [])).json()) as AlertsView), { timeout: 30_000 }).toEqual(queue.map((row) => sessionKey(row.host, row.session)).sort());
    const view = (await (await apiCall('getAlerts', [])).json()) as AlertsView;
    expect(view.thresholds).toBeNull();
    expect(new Set(view.current.map((shown) => shown.host))).toEqual(new Set(HOSTS));

    await page.locator('[data-testid=alerts-button]').click();
    const rows = page.locator('[data-testid=alerts-current] [data-testid=alert-row]');
    await expect.poll(() => rows.count()).toBe(view.current.length);
    const gamma_close_out = rows.filter({ hasText: 'indeterminate on gamma' }).filter({ hasText: 'close_out' });
    await gamma_close_out.locator('[data-testid=alert-session]').click();
    await page.locator(`[data-testid=session-view][data-session="${sessionKey('gamma', 'indeterminate')}"]`).waitFor();
    await expect.poll(() => page.locator('[data-testid=alerts-panel]').count()).toBe(0);
  }, 60_000);

  it('an action on a remote session writes exactly the previewed records on that host under its lease, audited', async () => {
    const host = 'beta.dc-1';
    const before = await SessionService.open(roots.get(host)!, { watch: false });
    const based_on_seq = (await before.getSession('indeterminate')).summary.last_seq;
    await before.close();
    await row(host, 'indeterminate').click();
    await page.locator('[data-testid=action-resume]').click();
    await page.locator('[data-testid=confirm-dialog]').waitFor();
    const listed = await page.locator('[data-testid=confirm-records] li').allInnerTexts();
    expect(listed.length).toBeGreaterThan(0);
    await page.locator('[data-testid=confirm-reason]').fill(REASON);
    await page.locator('[data-testid=operator-input]').fill('ops-7');
    await page.locator('[data-testid=confirm-write]').click();
    await page.locator('[data-testid=action-outcome][data-ok=true]').waitFor({ timeout: 15_000 });

    // That host's disk, re-read by a fresh service: the records after the confirmed seq are the listed ones.
    const fresh = await SessionService.open(roots.get(host)!, { watch: false });
    try {
      const records = (await fresh.getRows('indeterminate', 'records', 0, 2_000)) as RowPage<'records'>;
      const after = records.rows.filter((r) => r.seq > based_on_seq).map((r) => r.type);
      expect(after.slice(1)).toEqual(listed.map((line) => line.split(/\s+/)[2]));
      expect(after[0]).toBe('operator_action');
      // The WAL's own audit names the NATS user the server authenticated, not the agent's OS user nor the name typed.
      const audit_index = records.rows.findIndex((r) => r.seq === based_on_seq + 1);
      const audit_record = await fresh.getRecord('indeterminate', audit_index);
      expect(audit_record.payload).toMatchObject({ action: 'resume', operator: 'operator', via: 'fleet', reason: REASON, based_on_seq });
    } finally {
      await fresh.close();
    }
    // The other hosts' copies are untouched.
    for (const other of ['alpha', 'gamma']) {
      const service = await SessionService.open(roots.get(other)!, { watch: false });
      expect((await service.getSession('indeterminate')).summary.last_seq).toBe(based_on_seq);
      await service.close();
    }
    const audit = (await auditEntries(admin)).filter((e) => e.host === host && e.session === 'indeterminate');
    expect(audit.map((e) => e.phase)).toEqual(['request', 'outcome']);
    expect(audit[1]).toMatchObject({ operator: 'operator', declared_operator: 'ops-7', nats_user: 'operator', reason: REASON, action: 'resume', based_on_seq, records_written: listed.length + 1, result: 'written' });
  }, 60_000);

  it('an acknowledgement on a remote host\'s unconfirmed run, from the fleet view, makes it finished, checked in the fleet list, audited first', async () => {
    const host = 'gamma';
    const unconfirmed = row(host, 'parallel-unknown');
    expect(await unconfirmed.getAttribute('data-status')).toBe('finished_unconfirmed');
    await unconfirmed.click();
    await page.locator('[data-testid=acknowledge-open]').first().click();
    await page.locator('[data-testid=acknowledge-dialog]').waitFor();
    await page.locator('[data-testid=finding-applied]').check();
    await page.locator('[data-testid=acknowledge-reason]').fill('checked c2.txt on gamma');
    expect(await page.locator('[data-testid=acknowledge-record]').innerText()).toContain('the NATS user this view logs in as and your reason, via fleet');
    await page.locator('[data-testid=acknowledge-write]').click();
    await page.locator('[data-testid=acknowledge-result][data-ok=true]').waitFor({ timeout: 15_000 });
    await expect.poll(() => unconfirmed.getAttribute('data-status'), { timeout: 10_000 }).toBe('finished_checked');
    const recovery = await (async () => {
      const fresh = await SessionService.open(roots.get(host)!, { watch: false });
      try {
        return (await fresh.getSession('parallel-unknown')).summary.recoveries.at(-1);
      } finally {
        await fresh.close();
      }
    })();
    expect(recovery).toMatchObject({ action: 'acknowledge', operator: 'operator', via: 'fleet', finding: 'applied', reason: 'checked c2.txt on gamma' });
    const audit = (await auditEntries(admin)).filter((e) => e.host === host && e.session === 'parallel-unknown');
    expect(audit.map((e) => e.phase)).toEqual(['request', 'outcome']);
    expect(audit[1]).toMatchObject({ operator: 'operator', declared_operator: 'ops-7', records_written: 1, result: 'written' });
    expect(audit[1]!.action).toMatch(/^acknowledge .+: applied$/);
    // The other hosts' copies still wait.
    expect(await row('alpha', 'parallel-unknown').getAttribute('data-status')).toBe('finished_unconfirmed');
  }, 60_000);

  it('the server restarted: agents reconnect and the view is whole within 10 s, the audit kept', async () => {
    const audit_before = await auditEntries(admin);
    const expected = HOSTS.flatMap((host) => sessionsOf(host).map((s) => `${host}:${s}`)).sort();
    await page.locator('[data-testid=host-filter]').selectOption('');
    await server.stop();
    await server.restart();
    const restarted = Date.now();
    await until('the whole view back', 10_000, async () => {
      if ((await shown()).join() !== expected.join()) throw new Error(`listed ${(await shown()).length} of ${expected.length}`);
      const stale = await page.locator('[data-testid=row-stale]').count();
      if (stale > 0) throw new Error(`${stale} stale`);
      // Every agent has beaten since the restart, and the viewer's watch of the hosts has seen it.
      const listed = (await (await apiCall('listPage', [{ status: null, host: null, attention: false }, 0, 1])).json()) as SessionPage;
      const fresh = listed.hosts.filter((h) => h.beat_ms > restarted).length;
      if (fresh !== HOSTS.length) throw new Error(`${fresh} hosts beat since the restart`);
      // A session opens through its agent again: every host answers.
      for (const host of HOSTS) {
        const response = await apiCall('getSession', [sessionKey(host, 'indeterminate')]);
        if (!response.ok) throw new Error(`${host}: ${await response.text()}`);
      }
      return true;
    });
    expect(Date.now() - restarted).toBeLessThan(10_000);
    expect(await auditEntries(admin)).toEqual(audit_before);
  }, 60_000);

  it('kill -9 of an agent: within 15 s its host is offline, its sessions stale, the open one\'s actions disabled with the reason', async () => {
    await row('gamma', 'indeterminate').click();
    await page.locator('[data-testid=action-resume]:not([disabled])').waitFor({ timeout: 10_000 });
    await agents.get('gamma')!.stop('SIGKILL');
    const killed = Date.now();
    await page.locator('[data-testid=action-resume][disabled]').waitFor({ timeout: 16_000 });
    expect(Date.now() - killed).toBeLessThanOrEqual(16_000);
    expect(await page.locator('[data-testid=why-resume]').innerText()).toMatch(/gamma is offline.*actions are disabled/);
    expect(await page.locator('[data-testid=session-stale]').innerText()).toContain('gamma is offline');
    await expect.poll(() => row('gamma', 'indeterminate').getAttribute('data-stale')).toBe('true');
    expect(await row('alpha', 'indeterminate').getAttribute('data-stale')).toBe('false');
    await expect.poll(() => page.locator('[data-testid=host-filter] option[value=gamma]').innerText()).toContain('offline');
    await screenshot('fleet-host-offline');
    // Refused by the serve process too, not only disabled in the page: nothing is sent to the host.
    const refused = (await (await apiCall('runAction', [sessionKey('gamma', 'indeterminate'), 'resume', 8, 'while offline', 'ops-7'])).json()) as ActionOutcome;
    expect(refused).toMatchObject({ ok: false, refusal: { reason: 'unavailable' } });
    const unopened = await apiCall('getSession', [sessionKey('gamma', 'finished')]);
    expect(unopened.status).toBe(503);
    expect(((await unopened.json()) as { error: string }).error).toContain('gamma is offline');
  }, 60_000);

  it('a heartbeat is aged from when it arrived, not by the agent\'s clock: a host a minute behind is online', async () => {
    const behind: HostBeat = { host: 'skewed', version: '0.1.0', root: '/r', sessions: 0, started_ms: Date.now() - 120_000, beat_ms: Date.now() - 60_000 };
    await (await new Kvm(admin).open(HOSTS_BUCKET)).put(hostKey('skewed'), JSON.stringify(behind));
    await until('the skewed host listed', 5_000, async () => {
      const hosts = ((await (await apiCall('listPage', [{ status: null, host: null, attention: false }, 0, 1])).json()) as SessionPage).hosts;
      return hosts.find((h) => h.host === 'skewed')?.online === true;
    });
  }, 60_000);
});
