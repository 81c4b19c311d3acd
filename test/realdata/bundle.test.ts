// `walscope bundle` on the real sessions (issue 32): each one's bundle, written by the built CLI and opened from
// file:// in Chromium with every request refused, shows its timeline, its transcript and its longest step's
// request, makes no request, opens no dialog and trips no CSP rule; the WAL is the same after.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { launchChromium, type LaunchedBrowser } from '../app/serve-harness.js';
import { realdataMissing, useRealSessions } from '../fixtures/realdata/fixtures.js';
import { REAL_SOURCES } from '../fixtures/realdata/sources.js';
import { useTempDirs } from '../helpers/temp.js';
import { bundleTo, longestRequest, openBundle, showStep } from '../share/bundle-page.js';

const missing = realdataMissing();
if (missing !== null) console.warn(missing);

describe.skipIf(missing !== null)('walscope bundle on the real sessions', () => {
  const real = useRealSessions();
  const tempDir = useTempDirs('walscope-real-bundle-');
  let browser: LaunchedBrowser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it.each(REAL_SOURCES.map((source) => source.session_id))('bundles %s: offline, its work shown, nothing run or fetched', async (id) => {
    const out = path.join(tempDir(), `${id}.html`);
    bundleTo(sessionDir(real().root, id), out);
    const opened = await openBundle(browser.context, out);
    try {
      const page = opened.page;
      expect(await page.locator('#timeline tbody tr').count()).toBeGreaterThan(0);
      expect(await page.locator('#transcript li.msg').count()).toBeGreaterThan(0);
      const longest = await longestRequest(page);
      expect(longest).not.toBeNull();
      expect(await showStep(page, longest!)).toBeGreaterThan(0);
      expect(opened.requests).toEqual([]);
      expect(await opened.violations()).toEqual([]);
      expect(opened.dialogs).toEqual([]);
    } finally {
      await opened.page.close();
    }
  });
});
