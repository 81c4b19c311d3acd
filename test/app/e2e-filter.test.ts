// The Timeline's filter end to end: the real `walscope serve` on the demo root, in Debian's Chromium. `f` reaches
// the filter bar and the keyboard sets it; it narrows the timeline to the rows it keeps (their episode, step and
// batch kept around them), says how many of how many, is in the address and survives a reload, gives way to all
// rows again, and passes an axe-core audit. On a real session (where the real trajectories are present) errors only
// keeps exactly the calls whose results were errors.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realdataMissing, realSessionsRoot } from '../fixtures/realdata/fixtures.js';
import { openListedSession, seriousViolations } from './e2e-page.js';
import { makeE2eRoot } from './e2e-root.js';
import { saveScreenshot } from './screenshots.js';
import { launchChromium, serve, type LaunchedBrowser, type Served } from './serve-harness.js';

const real_missing = realdataMissing();
if (real_missing !== null) console.warn(real_missing);

let work: string;
let server: Served;
let real_server: Served | null = null;
let chromium: LaunchedBrowser;
let page: Page;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-filter-e2e-'));
  const { root } = makeE2eRoot(work);
  const real_root = real_missing === null ? realSessionsRoot(path.join(work, 'real')).root : null;
  [server, real_server, chromium] = await Promise.all([serve(root), real_root === null ? null : serve(real_root), launchChromium()]);
  page = await chromium.context.newPage();
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await Promise.all([server?.stop(), real_server?.stop()]);
  if (work !== undefined) fs.rmSync(work, { recursive: true, force: true });
});

const timeline = () => page.locator('[data-testid=list-timeline]');
const total = async () => Number(await timeline().getAttribute('data-total'));
const count = () => page.locator('[data-testid=filter-count]');
const hash = () => new URL(page.url()).hash;

/** The rows drawn now: each one's kind (its call's tool, for a call) and whether it is only context. */
async function drawnRows(): Promise<{ context: boolean; call: string | null; error: boolean }[]> {
  return page.locator('[data-testid=timeline-row]').evaluateAll((rows) => rows.map((row) => {
    const call = row.querySelector('[data-testid=call-row]');
    return { context: row.getAttribute('data-context') === 'true', call: call?.querySelector('strong')?.textContent ?? null, error: call?.getAttribute('data-error') === 'true' };
  }));
}

/** Waits until the filter's walk is complete (its count says so). */
async function filtered(): Promise<string> {
  await expect.poll(() => count().getAttribute('data-complete'), { timeout: 20_000 }).toBe('true');
  return (await count().textContent())!;
}

describe('the Timeline filter, in Chromium on the real serve', () => {
  it('is reached by f and set by the keyboard, narrows the timeline, is in the address, survives a reload, and gives way to all rows', async () => {
    await page.goto(await server.link());
    await openListedSession(page, 'coding-agent');
    await page.locator('[data-testid=timeline-row]').first().waitFor();
    const all = await total();
    await timeline().focus();
    await page.keyboard.press('f');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('filter-errors');
    // Tab to the call class, then the tool, and pick the first tool the session called.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('filter-tool');
    await page.keyboard.press('ArrowDown');
    const tool = await page.locator('[data-testid=filter-tool]').inputValue();
    expect(tool).not.toBe('');
    const text = await filtered();
    const narrowed = await total();
    expect(narrowed).toBeLessThan(all);
    const rows = await drawnRows();
    const matched = rows.filter((row) => !row.context);
    expect(matched.length).toBeGreaterThan(0);
    expect(matched.every((row) => row.call === tool)).toBe(true);
    // The calls read in place: their step's and batch's rows are kept as context.
    expect(rows.some((row) => row.context)).toBe(true);
    expect(text).toMatch(new RegExp(`^${matched.length} of ${all} rows`));
    await expect.poll(hash).toContain(`tool=${encodeURIComponent(tool)}`);
    await saveScreenshot(page, 'timeline-filter');

    await page.reload();
    await page.locator('[data-testid=session-view][data-session="coding-agent"]').waitFor();
    await filtered();
    expect(await page.locator('[data-testid=filter-tool]').inputValue()).toBe(tool);
    expect(await total()).toBe(narrowed);
    expect((await drawnRows()).filter((row) => !row.context).every((row) => row.call === tool)).toBe(true);

    await page.locator('[data-testid=filter-clear]').click();
    await expect.poll(total).toBe(all);
    await expect.poll(hash).not.toContain('tool=');
    expect(await count().textContent()).toBe('');
  });

  it('errors only keeps the calls that were not dispatched, combines with search, and gives way to a jump from a record', async () => {
    await page.goto(await server.link());
    await openListedSession(page, 'approvals');
    await page.locator('[data-testid=timeline-row]').first().waitFor();
    const all = await total();
    await page.locator('[data-testid=filter-errors]').check();
    expect(await filtered()).toMatch(/^2 of \d+ rows/);
    const calls = page.locator('[data-testid=timeline-row]:not([data-context]) [data-testid=call-row]');
    expect(await calls.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-class')))).toEqual(['no_dispatch', 'no_dispatch']);
    // The search matches places in the rows kept: the call, and its step's row (its text names the call).
    await page.locator('[data-testid=search-input]').fill('edit_file');
    await expect.poll(() => page.locator('[data-testid=search-count]').textContent(), { timeout: 10_000 }).toMatch(/^2 matches/);
    const marked = page.locator('[data-testid=timeline-row][data-match=true]');
    await expect.poll(() => marked.count()).toBe(2);
    expect(await marked.locator('[data-testid=call-row] strong').allTextContents()).toEqual(['edit_file']);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(page), scheme).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: null });
    // A record's "show in timeline" names a place in the whole timeline: the filter gives way to it.
    await page.locator('[data-testid=tab-records]').click();
    await page.locator('[data-testid=records-row]').nth(3).click();
    await page.locator('[data-testid=jump-timeline]').click();
    await expect.poll(total).toBe(all);
    expect(await page.locator('[data-testid=filter-errors]').isChecked()).toBe(false);
    await expect.poll(hash).not.toContain('errors=');
    await expect.poll(() => page.locator('[data-testid=timeline-row][aria-selected=true]').count()).toBe(1);
  });

  it.skipIf(real_missing !== null)('on a real session, errors only keeps the calls whose results were errors', async () => {
    await page.goto(await real_server!.link());
    await openListedSession(page, 'real-mini-swe-agent-astroid-1333');
    await page.locator('[data-testid=timeline-row]').first().waitFor();
    const all = await total();
    await page.locator('[data-testid=filter-errors]').check();
    const text = await filtered();
    expect(await total()).toBeLessThan(all);
    const matched = (await drawnRows()).filter((row) => !row.context);
    expect(matched.length).toBeGreaterThan(0);
    expect(matched.every((row) => row.call !== null && row.error)).toBe(true);
    expect(text).toMatch(new RegExp(`of ${all} rows`));
  });
});
