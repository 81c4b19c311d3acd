// End to end, in Chromium on the real `walscope serve` of a state root whose writers are real processes killed
// mid-batch: the header's Alerts button and panel show what is true (one entry per writer's death), a session's
// alert opens it, a writer killed while the page is open is a browser notification once the user allowed them
// (and never one for what was already true), and a recovery clears its alert in the panel.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { killHard, runFixture } from '../fixtures/run-fixture.js';
import { launchChromium, REPO_DIR, serve, type LaunchedBrowser, type Served } from './serve-harness.js';

let root: string;
let server: Served;
let chromium: LaunchedBrowser;
let page: Page;

async function killedMidBatch(session: string): Promise<void> {
  const writer = runFixture('write-mid-batch.ts', [root, session, 'in_flight']);
  await writer.nextLine();
  await killHard(writer);
}

/** What the page gave the browser's Notification: its real constructor, watched on its way through. */
function watchNotifications(): void {
  const Real = window.Notification;
  const shown: { title: string; body: string; tag: string }[] = [];
  (window as unknown as { shown_notices: typeof shown }).shown_notices = shown;
  window.Notification = class extends Real {
    constructor(title: string, options?: NotificationOptions) {
      super(title, options);
      shown.push({ title, body: options?.body ?? '', tag: options?.tag ?? '' });
    }
  } as typeof Notification;
}

const shownNotices = () => page.evaluate(() => (window as unknown as { shown_notices: { title: string; body: string }[] }).shown_notices);
const currentRows = () => page.locator('[data-testid=alerts-current] [data-testid=alert-row]');

beforeAll(async () => {
  // One root for the whole file (the tests follow one story), removed after the last.
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-e2e-alerts-'));
  await killedMidBatch('first');
  [server, chromium] = await Promise.all([serve(root), launchChromium()]);
  await chromium.context.grantPermissions(['notifications'], { origin: `http://127.0.0.1:${server.port}` });
  page = await chromium.context.newPage();
  await page.addInitScript(watchNotifications);
  await page.goto(await server.link());
}, 60_000);

afterAll(async () => {
  await chromium?.close();
  await server?.stop();
  if (root !== undefined) fs.rmSync(root, { recursive: true, force: true });
});

describe('the Alerts panel and browser notifications', () => {
  it('shows what is already true as the count and the panel, notifying of none of it', async () => {
    const button = page.locator('[data-testid=alerts-button]');
    await expect.poll(() => button.innerText(), { timeout: 20_000 }).toBe('Alerts 1');
    expect(await button.getAttribute('class')).toContain('critical');
    await button.click();
    await expect.poll(() => currentRows().count()).toBe(1);
    const row = await currentRows().first().innerText();
    expect(row).toContain('needs attention (close_out)');
    expect(row).toContain('first');
    expect(row).toContain('Calls were dispatched with no recorded result');
    expect(await page.locator('[data-testid=alerts-notify-on]').count()).toBe(1);
    expect(await shownNotices()).toEqual([]);
  });

  it('opens the alert\'s session from the panel', async () => {
    await currentRows().first().locator('[data-testid=alert-session]').click();
    await page.locator('[data-testid=session-view][data-session="first"]').waitFor();
    expect(await page.locator('[data-testid=alerts-panel]').count()).toBe(0);
  });

  it('notifies once of a writer killed while the page is open, and the panel lists it', async () => {
    await killedMidBatch('second');
    await expect.poll(shownNotices, { timeout: 20_000 }).toHaveLength(1);
    expect((await shownNotices())[0]).toMatchObject({ title: 'walscope: needs attention — second', body: expect.stringContaining('no recorded result') as string });
    await expect.poll(() => page.locator('[data-testid=alerts-button]').innerText()).toBe('Alerts 2');
    await page.locator('[data-testid=alerts-button]').click();
    await expect.poll(() => currentRows().count()).toBe(2);
    expect(await page.locator('[data-testid=alerts-recent] [data-testid=alert-recent-row]').first().innerText()).toMatch(/fired[\s\S]*needs attention \(close_out\)[\s\S]*second/);
    await page.keyboard.press('Escape');
    // Later looks (each event, each second) find it again and notify nothing more.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await shownNotices()).toHaveLength(1);
  });

  it('clears an alert when its cause is gone: the close-out written, the finished run waiting on its check', async () => {
    execFileSync(process.execPath, [path.join(REPO_DIR, 'bin/walscope.js'), 'resume', sessionDir(root, 'second'), '--yes', '--reason', 'checked: the mail was not sent']);
    await page.locator('[data-testid=alerts-button]').click();
    const recent = page.locator('[data-testid=alerts-recent] [data-testid=alert-recent-row]');
    await expect.poll(async () => (await recent.allInnerTexts()).some((text) => /cleared[\s\S]*\(close_out\)[\s\S]*second/.test(text)), { timeout: 20_000 }).toBe(true);
    const rows = await currentRows().allInnerTexts();
    expect(rows.some((text) => text.includes('(finished_unconfirmed)') && text.includes('second'))).toBe(true);
    expect(rows.some((text) => text.includes('(close_out)') && text.includes('second'))).toBe(false);
    // The one notification more is the new occurrence: the run finished with its call's outcome unknown.
    expect((await shownNotices()).map((notice) => notice.title)).toEqual(['walscope: needs attention — second', 'walscope: needs attention — second']);
  });
});
