// End to end, in Chromium on the real `walscope serve` of the demo root: a session's walscope:// link shown with the
// note that it opens in the desktop app or after `walscope serve PATH` — to the session, then to the record or step
// selected — copied to the clipboard as shown, never carrying the serve's token or port; and Export bundle's
// redaction dialog, whose download is the session's bundle (the one `walscope bundle` makes) with the classes
// chosen redacted and no secret of the session left in it.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkTarget, sessionLink } from '../../src-shared/links.js';
import { SECRETS, writeSecretsSession } from '../share/secrets-session.js';
import { openListedSession } from './e2e-page.js';
import { serveDemo, type ServedDemo } from './e2e-root.js';

const SECRETS_SESSION = 'shared-secrets';
let demo: ServedDemo;
let page: Page;

beforeAll(async () => {
  demo = await serveDemo('walscope-e2e-share-', (root) => writeSecretsSession(root, SECRETS_SESSION));
  page = demo.page;
  await demo.chromium.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${demo.server.port}` });
  await page.goto(await demo.server.link());
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

const shownLink = () => page.locator('[data-testid=session-link]').inputValue();

describe('a session\'s walscope:// link in the served page', () => {
  it('shows the link to the session, with where it opens', async () => {
    await openListedSession(page, 'finished');
    await expect.poll(shownLink).toBe(sessionLink(demo.root, 'finished'));
    const link = await shownLink();
    expect(linkTarget(link)).toEqual({ path: demo.root, session: 'finished', tab: null, step: null, record: null });
    expect(link).not.toContain(demo.server.token);
    expect(link).not.toContain(String(demo.server.port));
    expect(await page.locator('[data-testid=link-note]').innerText()).toBe('opens in the desktop app, or after walscope serve PATH');
  });

  it('names the record selected in the Records tab, and the step selected in the timeline', async () => {
    await page.locator('[data-testid=tab-records]').click();
    const record = page.locator('[data-testid=records-row]').nth(2);
    await record.click();
    const seq = Number(/seq (\d+)/.exec(await record.innerText())![1]);
    await expect.poll(async () => linkTarget(await shownLink()).record).toBe(seq);
    await page.locator('[data-testid=tab-timeline]').click();
    const step = page.locator('[data-testid=timeline-row]', { hasText: /step \d/i }).first();
    await step.click();
    await expect.poll(async () => linkTarget(await shownLink()).step).not.toBeNull();
    const named = linkTarget(await shownLink());
    expect(named).toMatchObject({ path: demo.root, session: 'finished', record: null });
  });

  it('copies the link shown', async () => {
    await page.locator('[data-testid=copy-link]').click();
    await expect.poll(() => page.locator('[data-testid=link-note]').innerText()).toMatch(/^copied the link to this /);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await shownLink());
  });

  it('a link opened in the page\'s address shows what it names (the renderer\'s fragment)', async () => {
    const link = linkTarget(sessionLink(demo.root, 'finished', { record: 3 })!);
    const url = new URL(page.url());
    await page.goto(`${url.origin}/#session=${encodeURIComponent(link.session!)}&tab=records&record=${link.record}`);
    await page.locator('[data-testid=session-view][data-session="finished"]').waitFor();
    await expect.poll(async () => linkTarget(await shownLink()).record).toBe(3);
  });
});

describe('Export bundle in the served page', () => {
  it('asks what to redact, then downloads the session\'s bundle with it redacted', async () => {
    await openListedSession(page, SECRETS_SESSION);
    await page.locator('[data-testid=export-bundle]').click();
    const dialog = page.locator('[data-testid=redact-dialog]');
    await dialog.waitFor();
    expect(await page.locator('[data-testid=redact-secrets]').isChecked()).toBe(true);
    await page.locator('[data-testid=redact-outputs]').check();
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=bundle-export]').click()]);
    expect(download.suggestedFilename()).toBe(`${SECRETS_SESSION}-bundle.html`);
    const saved = path.join(demo.root, '..', 'downloaded-bundle.html');
    await download.saveAs(saved);
    const html = fs.readFileSync(saved, 'utf8');
    expect(html).toContain('"format":"walscope-redactions/1"');
    expect(html).toMatch(/"classes":\["outputs","secrets"\]/);
    for (const secret of Object.values(SECRETS)) expect(html).not.toContain(secret.split('\n')[0]!.slice(0, 24));
    await expect.poll(() => page.locator('[data-testid=bundle-result]').innerText()).toMatch(/^bundle downloaded as shared-secrets-bundle\.html: .+, \d+ marker\(s\) for outputs, secrets$/);
    expect(await dialog.count()).toBe(0);
  });

  it('Cancel closes the dialog and downloads nothing', async () => {
    await page.locator('[data-testid=export-bundle]').click();
    await page.locator('[data-testid=redact-dialog]').waitFor();
    let downloaded = false;
    page.once('download', () => (downloaded = true));
    await page.locator('[data-testid=bundle-cancel]').click();
    expect(await page.locator('[data-testid=redact-dialog]').count()).toBe(0);
    await page.waitForTimeout(300);
    expect(downloaded).toBe(false);
  });
});
