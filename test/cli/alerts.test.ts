// `walscope alerts` against real writers in real child processes: killed mid-batch, holding a call, a WAL near
// its ceiling; the events are read from the built CLI's JSON lines (--follow tails the root).
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertEvent } from '../../src-shared/alerts.js';
import { sessionLink } from '../../src-shared/links.js';
import { WAL_BYTES_CEILING } from '../../src-main/engine/limits.js';
import { sessionDir, sessionsDir, walPath } from '../../src-main/engine/state-root.js';
import { killHard, runFixture, type Fixture } from '../fixtures/run-fixture.js';
import { writeBulkWal } from '../fixtures/bulk-wal.js';
import { useTempDirs } from '../helpers/temp.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(REPO, 'bin/walscope.js');
/** How long a wait for an event may take before the test says which never came (a bound, not an assertion). */
const EVENT_WAIT_MS = 20_000;

const tempDir = useTempDirs('walscope-alerts-');
const started: ChildProcess[] = [];
const fixtures: Fixture[] = [];
afterEach(async () => {
  for (const child of started.splice(0)) child.kill('SIGTERM');
  for (const fixture of fixtures.splice(0)) await killHard(fixture);
});

/** `walscope alerts ROOT --follow --json …`: its events as they come, and a wait for the next that matches. */
function followAlerts(root: string, flags: readonly string[] = []) {
  const child = spawn(process.execPath, [CLI, 'alerts', root, '--follow', '--json', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  const events: AlertEvent[] = [];
  /** Events before it were matched already: each wait takes the next match after the last one. */
  let cursor = 0;
  const waiters: { found: (event: AlertEvent) => boolean; resolve: (event: AlertEvent) => void }[] = [];
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    const event = JSON.parse(line) as AlertEvent;
    events.push(event);
    const waiter = waiters[0];
    if (waiter !== undefined && waiter.found(event)) {
      waiters.shift();
      cursor = events.length;
      waiter.resolve(event);
    }
  });
  const next = (what: string, found: (event: AlertEvent) => boolean): Promise<AlertEvent> =>
    new Promise((resolve, reject) => {
      const index = events.findIndex((event, at) => at >= cursor && found(event));
      if (index !== -1) {
        cursor = index + 1;
        return resolve(events[index]!);
      }
      cursor = events.length;
      const timer = setTimeout(() => reject(new Error(`no ${what} event; events: ${JSON.stringify(events)}`)), EVENT_WAIT_MS);
      waiters.push({ found, resolve: (event) => (clearTimeout(timer), resolve(event)) });
    });
  return { events, next };
}

const fired = (kind: string, attention: string | null = null) => (event: AlertEvent) => event.type === 'fired' && event.alert.kind === kind && event.alert.attention === attention;
const cleared = (kind: string, attention: string | null = null) => (event: AlertEvent) => event.type === 'cleared' && event.alert.kind === kind && event.alert.attention === attention;

async function writerMidBatch(root: string, mode: 'in_flight' | 'held'): Promise<Fixture> {
  const fixture = runFixture('write-mid-batch.ts', [root, 's', mode, String(Date.now())]);
  fixtures.push(fixture);
  await fixture.nextLine();
  return fixture;
}

function walscope(...args: string[]): string {
  return execFileSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
}

describe('walscope alerts', () => {
  it('a writer killed mid-batch raises close-out owed (its death one alert, not a gone writer beside it); the close-out and then the acknowledgement clear it', async () => {
    const root = tempDir();
    const writer = await writerMidBatch(root, 'in_flight');
    const alerts = followAlerts(root);
    const summary = await alerts.next('summary', (event) => event.type === 'summary');
    expect(summary).toMatchObject({ type: 'summary', alerts: [], sessions: 1 });
    await killHard(writer);
    // The service probes a live lease every second (LIVE_PROBE_INTERVAL_MS): the event follows that probe.
    await alerts.next('close-out owed', fired('attention', 'close_out'));
    walscope('resume', sessionDir(root, 's'), '--yes', '--reason', 'checked: the mail was not sent');
    await alerts.next('close-out cleared', cleared('attention', 'close_out'));
    await alerts.next('unconfirmed after the close-out', fired('attention', 'finished_unconfirmed'));
    walscope('acknowledge', sessionDir(root, 's'), '--call', 'call-1', '--finding', 'not_applied', '--yes', '--reason', 'no mail in the outbox');
    await alerts.next('unconfirmed cleared', cleared('attention', 'finished_unconfirmed'));
    expect(alerts.events.filter((event) => event.type === 'fired').map((event) => event.type === 'fired' && [event.alert.kind, event.alert.attention])).toEqual([
      ['attention', 'close_out'],
      ['attention', 'finished_unconfirmed'],
    ]);
  });

  it('a copy of that WAL (an export) raises the close-out owed and never a gone writer, as one summary', async () => {
    const root = tempDir();
    await killHard(await writerMidBatch(root, 'in_flight'));
    const exported = path.join(tempDir(), 'customer.wal');
    fs.copyFileSync(walPath(sessionDir(root, 's')), exported);
    const lines = walscope('alerts', exported, '--json').trim().split('\n');
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]!) as AlertEvent;
    expect(summary).toMatchObject({ type: 'summary', sessions: 1, alerts: [{ kind: 'attention', attention: 'close_out', seq: 4, link: sessionLink(exported, 'customer.wal') }] });
    expect(summary.type === 'summary' && summary.alerts).toHaveLength(1);
    expect(walscope('alerts', root)).toMatch(/^1 alert already true over 1 session\n {2}critical needs attention \(close_out\) s seq 4: .*\n$/);
  });

  it('refuses a bad threshold or a missing root as a usage error (exit 2), saying which', () => {
    const root = tempDir();
    const bad = spawnSync(process.execPath, [CLI, 'alerts', root, '--held-after-ms', 'soon'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--held-after-ms soon: a whole number of milliseconds/);
    const missing = spawnSync(process.execPath, [CLI, 'alerts', path.join(root, 'nowhere')], { encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/no such file or folder/);
  });

  it('a held call past a short threshold raises its alert once', async () => {
    // The hold starts after the alerts are up: a CLI slow to start (a loaded machine) would otherwise find the
    // call held past the threshold in its first look, already true, and fire nothing.
    const root = tempDir();
    fs.mkdirSync(sessionsDir(root));
    const alerts = followAlerts(root, ['--held-after-ms', '1500']);
    expect(await alerts.next('summary', (event) => event.type === 'summary')).toMatchObject({ alerts: [], sessions: 0 });
    const writer = await writerMidBatch(root, 'held');
    await alerts.next('held call', fired('held_too_long'));
    // Later looks (each event, each second's tick) find it again and fire nothing: the writer's death is the
    // next event, and the held alert is still one.
    await killHard(writer);
    await alerts.next('waiting on the provider', fired('attention', 'wait_held'));
    expect(alerts.events.filter(fired('held_too_long'))).toHaveLength(1);
  });

  it('a WAL past 90% of its ceiling (a sparse 0.95 GiB file) raises its alert once', async () => {
    const root = tempDir();
    const small = await writerMidBatch(root, 'in_flight');
    const alerts = followAlerts(root);
    await alerts.next('summary', (event) => event.type === 'summary');
    const big = sessionDir(root, 'big');
    const staging = path.join(tempDir(), 'big');
    fs.mkdirSync(staging);
    writeBulkWal(walPath(staging), Math.floor(0.95 * WAL_BYTES_CEILING), { sparse: true });
    fs.renameSync(staging, big);
    // Sparse (its blocks a small part of its size), and a WAL verify finds intact.
    expect(fs.statSync(walPath(big)).blocks * 512).toBeLessThan(fs.statSync(walPath(big)).size / 100);
    expect(JSON.parse(walscope('verify', big, '--json'))).toMatchObject({ error: null, torn_tail: null });
    const event = await alerts.next('near ceiling', fired('near_ceiling'));
    expect(event).toMatchObject({ alert: { session: 'big', severity: 'warning', link: sessionLink(root, 'big') } });
    await killHard(small);
    await alerts.next('close-out owed', fired('attention', 'close_out'));
    expect(alerts.events.filter(fired('near_ceiling'))).toHaveLength(1);
  });
});

