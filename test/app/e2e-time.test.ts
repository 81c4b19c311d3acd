// The Time view end to end: the real `walscope serve` on the demo root, in Debian's Chromium. An episode's steps,
// batches and calls on one axis across the main pane (the side pane gives way), each bar coloured by how it ended
// (a step retried after a failed attempt answered: not failed), read on hover, zoomed by the buttons and keys, in
// the address across a reload, and passing an axe-core audit; the header says what the run cost and by which
// price table, and each step what it cost.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openListedSession, seriousViolations } from './e2e-page.js';
import { serveDemo, type ServedDemo } from './e2e-root.js';
import { saveScreenshot } from './screenshots.js';
import type { Served } from './serve-harness.js';

let demo: ServedDemo;
let server: Served;
let page: Page;

beforeAll(async () => {
  demo = await serveDemo('walscope-time-e2e-', () => {});
  ({ server, page } = demo);
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

const rows = () => page.locator('[data-testid=time-row]');
const scale = async () => Number(await page.locator('[data-testid=time-chart]').getAttribute('data-scale'));

describe('the Time view, in Chromium on the real serve', () => {
  it('draws each step, batch and call of the episode on one axis, reads a bar on hover, zooms, and is in the address', async () => {
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(await server.link());
    await openListedSession(page, 'coding-agent');
    expect(await page.locator('[data-testid=session-cost]').innerText()).toMatch(/^cost: \$\d+\.\d{2} \(price table @pydantic\/genai-prices \d+\.\d+\.\d+, prices as of \d{4}-\d{2}-\d{2}\)$/);
    // Each step says what it cost, in its row and its detail.
    const step = page.locator('[data-testid=step-row][data-step="1"]');
    expect(await step.locator('[data-testid=step-meta]').innerText()).toMatch(/ · \$0\.\d+$/);
    await step.click();
    expect(await page.locator('[data-testid=step-cost]').innerText()).toMatch(/^cost \$0\.\d+, by the price table named in the header$/);
    await page.locator('[data-testid=tab-time]').click();
    await page.locator('[data-testid=time-chart]').waitFor();
    expect(await page.locator('.session-side').count()).toBe(0);
    // 6 steps, 5 batches, 7 calls (the first batch's three calls in parallel).
    await expect.poll(() => rows().count()).toBe(18);
    const kinds = await rows().evaluateAll((all) => all.map((row) => `${row.getAttribute('data-kind')}:${row.getAttribute('data-ended')}:${row.querySelector('.tv-label')?.textContent}`));
    expect(kinds.slice(0, 5)).toEqual(['step:ok:step 1', 'batch:ok:batch fix-csv-export.b1', 'call:ok:read_file ca1', 'call:ok:read_file ca2', 'call:ok:shell ca3']);

    const bar = rows().nth(4).locator('[data-testid=time-bar]');
    await bar.hover();
    expect(await page.locator('[data-testid=time-hover]').innerText()).toMatch(/^shell ca3: from \+\d+ ms, took \d+ ms, answered or completed \(seq \d+\)$/);
    expect(await bar.getAttribute('aria-label')).toBe(await page.locator('[data-testid=time-hover]').innerText());

    const fitted = await scale();
    await page.locator('[data-testid=time-zoom-in]').click();
    await expect.poll(scale).toBeCloseTo(fitted * 2, 6);
    await page.locator('[data-testid=time-chart]').focus();
    await page.keyboard.press('+');
    await expect.poll(scale).toBeCloseTo(fitted * 4, 6);
    await page.keyboard.press('0');
    await expect.poll(scale).toBeCloseTo(fitted, 6);

    expect(new URL(page.url()).hash).toContain('tab=time');
    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'time-view');
    await page.reload();
    await page.locator('[data-testid=time-chart]').waitFor();
    await expect.poll(() => rows().count()).toBe(18);
  });

  it('draws a step retried after a failed attempt as answered, saying it was retried', async () => {
    await openListedSession(page, 'finished');
    await page.locator('[data-testid=tab-time]').click();
    const step = rows().filter({ hasText: 'step 1' }).first();
    await step.waitFor();
    expect(await step.getAttribute('data-ended')).toBe('ok');
    expect(await step.locator('.tv-label').innerText()).toBe('step 1 (1 retried)');
    await step.locator('[data-testid=time-bar]').focus();
    expect(await page.locator('[data-testid=time-hover]').innerText()).toContain('answered or completed, after 1 failed attempt');
  });
});
