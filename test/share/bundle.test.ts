// `walscope bundle`: a bundle of every demo session and of a hostile one, opened from file:// in Chromium with
// every request refused, shows the timeline, the transcript and a step's request, makes no request, runs no WAL
// text and trips no CSP rule; the WAL is never written. --max-bytes is kept and what is left out is said.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { DEMO_SESSION_IDS } from '../../src-main/demo/sessions.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { saveScreenshot } from '../app/screenshots.js';
import { launchChromium, type LaunchedBrowser } from '../app/serve-harness.js';
import { useTempDirs } from '../helpers/temp.js';
import { bundleCli, bundleTo, longestRequest, openBundle, showStep } from './bundle-page.js';
import { HOSTILE, writeSecretsSession } from './secrets-session.js';

const tempDir = useTempDirs('walscope-bundle-');

let browser: LaunchedBrowser;
let root: string;
let work: string;
beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-bundle-root-'));
  root = path.join(work, 'root');
  buildDemoRoot(root, steppedClock(1_750_000_000_000));
  writeSecretsSession(root, 'hostile');
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** A bundle of `session` written by the CLI into a fresh folder; the WAL's bytes are the same after. */
function bundleOf(session: string, ...flags: string[]): string {
  const out = path.join(tempDir(), `${session}.html`);
  bundleTo(sessionDir(root, session), out, ...flags);
  return out;
}

describe('walscope bundle', () => {
  it.each(DEMO_SESSION_IDS.filter((id) => id !== 'not-a-wal'))('bundles the demo session %s: it opens offline and shows the timeline, the transcript and a step\'s request', async (session) => {
    const out = bundleOf(session);
    const opened = await openBundle(browser.context, out);
    try {
      const page = opened.page;
      expect(await page.locator('#report [data-field=verdict]').count()).toBe(1);
      expect(await page.locator('#timeline tbody tr').count()).toBeGreaterThan(0);
      const longest = await longestRequest(page);
      if (longest !== null) {
        // The transcript, or why the session's next request cannot be rendered (a view that no longer assembles).
        expect(await page.locator('#transcript li.msg, #transcript .bad').count()).toBeGreaterThan(0);
        expect(await showStep(page, longest)).toBeGreaterThan(0);
      }
      expect(opened.requests).toEqual([]);
      expect(await opened.violations()).toEqual([]);
      expect(opened.dialogs).toEqual([]);
    } finally {
      await opened.page.close();
    }
  });

  it('the README\'s picture: the coding agent\'s bundle, secrets and outputs redacted, a step\'s request shown', async () => {
    const opened = await openBundle(browser.context, bundleOf('coding-agent', '--redact', 'secrets,outputs'));
    try {
      const page = opened.page;
      const longest = await longestRequest(page);
      expect(longest).not.toBeNull();
      expect(await showStep(page, longest!)).toBeGreaterThan(0);
      expect(await page.getByText('⟦redacted outputs').count()).toBeGreaterThan(0);
      expect(await opened.violations()).toEqual([]);
      // The top of the page: the report's facts and the timeline, as whoever opens the file first sees it.
      await page.evaluate(() => window.scrollTo(0, 0));
      await saveScreenshot(page, 'bundle');
    } finally {
      await opened.page.close();
    }
  });

  it('bundles a file that is not a WAL as its report, saying nothing of it is a run', async () => {
    const opened = await openBundle(browser.context, bundleOf('not-a-wal'));
    try {
      expect(await opened.page.locator('#report [data-field=verdict]').textContent()).toBe('not_a_wal');
      expect(opened.requests).toEqual([]);
    } finally {
      await opened.page.close();
    }
  });

  it('runs no WAL text: hostile markup in every field stays text, in the file and on the page', async () => {
    const out = bundleOf('hostile');
    const html = fs.readFileSync(out, 'utf8');
    expect(html).not.toMatch(/<img|onerror="/i);
    // The page's scripts are its own: the requests' numbers and the one script the CSP allows by its hash.
    expect([...html.matchAll(/<script[^>]*>/g)].map((match) => match[0])).toEqual(['<script type="application/json" id="walscope-requests">', '<script>']);
    const opened = await openBundle(browser.context, out);
    try {
      const page = opened.page;
      for (let index = 0; index < (await page.locator('button[data-step-index]').count()); index++) await showStep(page, index);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator('#transcript').textContent()).toContain(HOSTILE);
      expect(await page.locator('#request-view').textContent()).toContain(HOSTILE);
      expect(opened.dialogs).toEqual([]);
      expect(opened.requests).toEqual([]);
      expect(await opened.violations()).toEqual([]);
    } finally {
      await opened.page.close();
    }
  });

  it('stays within --max-bytes and says what it left out', async () => {
    const whole = fs.statSync(bundleOf('long-run')).size;
    const size_bytes_max = Math.floor(whole / 4);
    const out = bundleOf('long-run', '--max-bytes', String(size_bytes_max));
    expect(fs.statSync(out).size).toBeLessThanOrEqual(size_bytes_max);
    const opened = await openBundle(browser.context, out);
    try {
      const note = opened.page.locator('#left-out [data-left-out]');
      expect(Number(await note.getAttribute('data-left-out'))).toBeGreaterThan(0);
      expect(await opened.page.locator('#left-out li').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/of the timeline's \d+ rows|of the transcript's \d+ messages|the requests of \d+ of/)]));
      expect(await showStep(opened.page, 0)).toBeGreaterThan(0);
    } finally {
      await opened.page.close();
    }
    const whole_note = fs.readFileSync(bundleOf('finished'), 'utf8');
    expect(whole_note).toContain('Nothing: the whole session is in this bundle');
  });

  it('refuses a --max-bytes too small for the report and the manifest, and an --out beside the WAL or existing', () => {
    const out = path.join(tempDir(), 'small.html');
    const small = bundleCli(sessionDir(root, 'finished'), '--out', out, '--max-bytes', '1000');
    expect(small.status).toBe(2);
    expect(small.stderr).toContain('too small');
    expect(fs.existsSync(out)).toBe(false);
    const beside = bundleCli(sessionDir(root, 'finished'), '--out', path.join(sessionDir(root, 'finished'), 'b.html'));
    expect(beside.status).toBe(2);
    fs.writeFileSync(out, 'mine');
    expect(bundleCli(sessionDir(root, 'finished'), '--out', out).status).toBe(1);
    expect(fs.readFileSync(out, 'utf8')).toBe('mine');
  });
});
