// End to end: the real `walscope serve` on a demo state root, driven in Debian's Chromium. Saves screenshots
// of the main views to docs/screenshots/.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import type { ReadFrame } from '../../src-shared/wal.js';
import { writeDemoRoot, writeExport, XSS_TEXT } from './demo-fixture.js';
import { buildApp, launchChromium, REPO_DIR, serve, type LaunchedBrowser, type Served } from './serve-harness.js';

const SCREENSHOTS = path.join(REPO_DIR, 'docs/screenshots');
const LIVE_UPDATE_MS_MAX = 5_000;

let work: string;
let root: string;
let exportFile: string;
let server: Served;
let exportServer: Served;
let chromium: LaunchedBrowser;
let page: Page;

beforeAll(async () => {
  buildApp();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-e2e-'));
  root = path.join(work, 'root');
  writeDemoRoot(root);
  exportFile = writeExport(root, 'indeterminate', path.join(work, 'exports'));
  [server, exportServer, chromium] = await Promise.all([serve(root), serve(exportFile), launchChromium()]);
  page = await chromium.context.newPage();
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await Promise.all([server?.stop(), exportServer?.stop()]);
  if (work !== undefined) fs.rmSync(work, { recursive: true, force: true });
});

async function openSession(key: string): Promise<void> {
  await page.locator(`[data-testid=session-row][data-session="${key}"]`).click();
  await page.locator(`[data-testid=session-view][data-session="${key}"]`).waitFor();
}

function frames(session: string): ReadFrame[] {
  const found: ReadFrame[] = [];
  readWal(walPath(sessionDir(root, session)), { on_frame: (frame) => found.push(frame) });
  return found;
}

describe('walscope serve in Chromium', () => {
  it('lists every demo session with its status', async () => {
    await page.goto(server.url);
    await page.locator('[data-testid=session-row]').first().waitFor();
    const expected: Record<string, string> = {
      finished: 'finished',
      indeterminate: 'needs_operator',
      held: 'paused_held',
      torn: 'torn_tail',
      corrupt: 'refused',
      xss: 'finished',
      live: 'finished',
    };
    await expect.poll(() => page.locator('[data-testid=session-row]').count()).toBe(Object.keys(expected).length);
    for (const [key, status] of Object.entries(expected)) {
      expect(await page.locator(`[data-testid=session-row][data-session="${key}"]`).getAttribute('data-status'), key).toBe(status);
    }
    expect(page.url()).not.toContain('token=');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'session-list.png') });
  });

  it('shows the indeterminate chip on the call that may have run', async () => {
    await openSession('indeterminate');
    const call = page.locator('[data-testid=call-row][data-call="call-1"]');
    await call.waitFor();
    expect(await call.locator('[data-testid=class-chip]').getAttribute('data-class')).toBe('indeterminate');
    expect(await call.locator('[data-testid=class-chip]').innerText()).toContain('indeterminate');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'indeterminate-session.png') });
  });

  it('shows the held call and the successor waiting behind it', async () => {
    await openSession('held');
    const held = page.locator('[data-testid=call-row][data-call="deploy-1"]');
    await held.waitFor();
    expect(await held.getAttribute('data-class')).toBe('provider_held');
    expect(await held.locator('[data-testid=held-info]').innerText()).toContain('notify-2');
    const successor = page.locator('[data-testid=call-row][data-call="notify-2"]');
    expect(await successor.getAttribute('data-class')).toBe('held_successor');
    expect(await successor.locator('[data-testid=behind-info]').innerText()).toContain('deploy-1');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'held-session.png') });
  });

  it('opens a record from the timeline: frame fields, digest, payload tree and hex, and back', async () => {
    await openSession('indeterminate');
    await page.locator('[data-testid=call-row][data-call="call-1"]').click();
    await page.locator('[data-testid=jump-record]').first().click();
    const detail = page.locator('[data-testid=record-detail]');
    await detail.waitFor();
    expect(await detail.innerText()).toContain('tool_dispatch_intent');
    expect(await page.locator('[data-testid=digest-check]').innerText()).toContain('verified');
    expect(await page.locator('[data-testid=hex-view]').innerText()).toMatch(/^0000[0-9a-f]{4} {2}42 57 41 4c/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'record-view.png') });
    await page.locator('[data-testid=jump-timeline]').click();
    await page.locator('[data-testid=timeline-detail]').waitFor();
  });

  it('plans the close-out, writes exactly its records on confirmation, and shows finished, interrupted', async () => {
    await openSession('indeterminate');
    expect(await page.locator('[data-testid=plan-action]').innerText()).toBe('close_out');
    const before = frames('indeterminate');
    await page.locator('[data-testid=action-resume]').click();
    const dialog = page.locator('[data-testid=confirm-dialog]');
    await dialog.waitFor();
    const listed = await page.locator('[data-testid=confirm-records] li').allInnerTexts();
    expect(listed.map((line) => line.split(/\s+/)[2])).toEqual(['resume_started', 'tool_result', 'tool_batch_finished', 'turn_finished', 'run_finished']);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'recovery-confirm.png') });
    await page.locator('[data-testid=confirm-write]').click();
    await page.locator('[data-testid=action-outcome][data-ok=true]').waitFor();
    const appended = frames('indeterminate').slice(before.length).filter((frame) => frame.seq > 0);
    expect(appended.map((frame) => frame.type)).toEqual(['resume_started', 'tool_result', 'tool_batch_finished', 'turn_finished', 'run_finished']);
    expect(appended[1]!.payload).toMatchObject({ tool_call_id: 'call-1', outcome: 'unknown' });
    expect(appended[4]!.payload).toMatchObject({ reason: 'interrupted' });
    await expect.poll(() => page.locator('[data-testid=session-row][data-session="indeterminate"]').getAttribute('data-status')).toBe('finished');
    expect(await page.locator('[data-testid=timeline-row]').first().innerText()).toContain('finished: interrupted');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'after-close-out.png') });
  });

  it('shows a record appended by a live writer without a reload, and refuses actions with the holder named', async () => {
    await openSession('live');
    const appender = startAppender(root, 'live');
    try {
      const pid = await appender.next();
      await expect.poll(() => page.locator('[data-testid=session-row][data-session="live"]').getAttribute('data-status'), { timeout: LIVE_UPDATE_MS_MAX }).toBe('live');
      appender.child.stdin!.write('append\n');
      const seq = await appender.next();
      await expect.poll(() => page.locator('[data-testid=last-seq]').innerText(), { timeout: LIVE_UPDATE_MS_MAX }).toBe(seq);
      await page.locator('[data-testid=action-seal]').click();
      const refusal = page.locator('[data-testid=refusal]');
      await refusal.waitFor();
      expect(await refusal.getAttribute('data-reason')).toBe('lease_held');
      expect(await refusal.innerText()).toContain(`pid ${pid.split(' ')[1]}`);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'live-session.png') });
      await page.locator('[data-testid=confirm-close]').click();
    } finally {
      appender.child.stdin!.end();
      await new Promise((resolve) => appender.child.once('exit', resolve));
    }
  });

  it('shows WAL markup and javascript: links as text, and runs nothing', async () => {
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await openSession('xss');
    const step = page.locator('[data-testid=timeline-row]', { hasText: 'onerror' });
    await step.waitFor();
    expect(await step.innerText()).toContain(XSS_TEXT);
    await step.click();
    await page.locator('[data-testid=timeline-detail]').waitFor();
    expect(await page.locator('[data-testid=timeline-detail]').innerText()).toContain('javascript:window.__walscope_xss=2');
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __walscope_xss?: number }).__walscope_xss)).toBeUndefined();
    expect(dialogs).toEqual([]);
  });

  it('opens an export read-only: no action offered, bytes and mtime unchanged', async () => {
    const bytes = fs.readFileSync(exportFile);
    const mtime_ms = fs.statSync(exportFile).mtimeMs;
    const listing = fs.readdirSync(path.dirname(exportFile));
    const exportPage = await chromium.context.newPage();
    try {
      await exportPage.goto(exportServer.url);
      await exportPage.locator('[data-testid=session-row]').first().click();
      await exportPage.locator('[data-testid=read-only]').waitFor();
      await exportPage.locator('[data-testid=call-row][data-call="call-1"]').waitFor();
      expect(await exportPage.locator('[data-testid=recovery-panel]').count()).toBe(0);
      expect(await exportPage.locator('[data-testid^=action-]').count()).toBe(0);
      await exportPage.screenshot({ path: path.join(SCREENSHOTS, 'export-read-only.png') });
      const refused = await exportPage.evaluate(async () => {
        const response = await fetch('./api/runAction', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ args: [document.querySelector('[data-testid=session-view]')!.getAttribute('data-session'), 'seal', 4] }) });
        return response.json();
      });
      expect(refused).toMatchObject({ ok: false, refusal: { reason: 'read_only' } });
    } finally {
      await exportPage.close();
    }
    expect(fs.readFileSync(exportFile).equals(bytes)).toBe(true);
    expect(fs.statSync(exportFile).mtimeMs).toBe(mtime_ms);
    expect(fs.readdirSync(path.dirname(exportFile))).toEqual(listing);
  });

  it('refuses requests without the token or with a foreign Host', async () => {
    const get = (headers: Record<string, string>, url_path = '/') => new Promise<number>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: server.port, path: url_path, headers }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      }).on('error', reject);
    });
    expect(await get({})).toBe(403);
    expect(await get({}, '/api/events')).toBe(403);
    expect(await get({ host: `evil.example:${server.port}` }, `/?token=${server.token}`)).toBe(421);
    expect(await get({ host: `127.0.0.1:${server.port}`, 'x-walscope-token': 'not-the-token' })).toBe(403);
    expect(await get({ host: `localhost:${server.port}`, 'x-walscope-token': server.token })).toBe(200);
  });
});

function startAppender(state_root: string, session_id: string): { child: ChildProcess; next(): Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_DIR, 'test/app/live-appender.ts'), state_root, session_id], { cwd: REPO_DIR, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    const waiter = waiters.shift();
    if (waiter !== undefined) waiter(line);
    else lines.push(line);
  });
  return { child, next: () => (lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise((resolve) => waiters.push(resolve))) };
}
