// Tool output as a terminal shows it (issue 34, item 4), end to end: the real `walscope serve` on the demo root
// (its coding-agent session's test runs are coloured) and a session whose one call printed 10,000 coloured
// lines, driven in Debian's Chromium. No escape code reaches the page as text; colours are styles; the last line
// of the long output is reached in place by the keyboard, the rows are virtualized, lines wrap on demand, the
// box opens over the window, and a copy is the whole output's plain text.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTPUT_COPY_CHARS_MAX, terminalPlain } from '../../src-shared/terminal-text.js';
import { ESCAPE_REMAINS } from './e2e-page.js';
import { serveDemo, type ServedDemo } from './e2e-root.js';
import { saveScreenshot } from './screenshots.js';
import type { Served } from './serve-harness.js';
import { colouredTestOutput, writeOutputSession } from './wal-fixture.js';

const LONG_SESSION = 'long-output';
const LONG_LINES = 10_000;
/** An output past what a copy takes (OUTPUT_COPY_CHARS_MAX, 4 Mi characters). */
const HUGE_SESSION = 'huge-output';
const HUGE_LINES = 200_000;

const long_output = colouredTestOutput(LONG_LINES);
let demo: ServedDemo;
let server: Served;
let page: Page;

beforeAll(async () => {
  demo = await serveDemo('walscope-output-', (root) => {
    writeOutputSession(root, LONG_SESSION, long_output);
    writeOutputSession(root, HUGE_SESSION, colouredTestOutput(HUGE_LINES));
  });
  ({ server, page } = demo);
}, 120_000);

afterAll(() => demo?.close());

async function openCall(session: string, call: string): Promise<void> {
  await page.goto(`${await server.link()}#session=${session}&tab=timeline`);
  await page.locator(`[data-testid=call-row][data-call="${call}"]`).click();
  // A loaded machine reads an 8 MiB session slowly at first: a wait, not a measure.
  await page.locator('[data-testid=call-output] [data-testid=output-row]').first().waitFor({ timeout: 90_000 });
}

describe('tool output as a terminal shows it, in Chromium on the real serve', () => {
  it('shows a coloured test run with its colours as styles and no escape code as text', async () => {
    expect(long_output.length).toBeGreaterThan(24 * 1024);
    await openCall('coding-agent', 'ca4');
    const output = page.locator('[data-testid=call-output]');
    expect(await output.innerText()).toContain('AssertionError: expected');
    expect(await page.locator('body').innerText()).not.toMatch(ESCAPE_REMAINS);
    // The failure mark (SGR 31) in a red, the verdict (SGR 1) in bold: inline styles, no markup of the WAL's.
    const cross = output.locator('span', { hasText: /^×$/ }).first();
    const [red, green, blue] = (await cross.evaluate((element) => getComputedStyle(element).color)).match(/\d+/g)!.map(Number) as [number, number, number];
    expect(red).toBeGreaterThan(green + 80);
    expect(red).toBeGreaterThan(blue + 80);
    expect(await output.locator('span', { hasText: /^ FAIL $/ }).evaluate((element) => getComputedStyle(element).fontWeight)).toBe('700');
    await saveScreenshot(page, 'tool-output-colours');

    // The transcript's tool results show their text the same way.
    await page.locator('[data-testid=tab-transcript]').click();
    await page.locator('[data-testid=transcript-message][data-role=tool]').nth(1).click();
    await page.locator('[data-testid=tool-result-output] [data-testid=output-row]').first().waitFor();
    expect(await page.locator('body').innerText()).not.toMatch(ESCAPE_REMAINS);
  });

  it('reads a 10,000-line output whole in place: virtualized, the last line reached by the keyboard', async () => {
    await openCall(LONG_SESSION, 'call-1');
    const output = page.locator('[data-testid=call-output]');
    expect(await page.locator('[data-testid=output-about]').textContent()).toBe(`10,000 lines · ${long_output.length.toLocaleString('en-US')} characters`);
    // Only the rows in view (and a few around them) are in the page.
    expect(await output.locator('[data-testid=output-row]').count()).toBeLessThan(200);
    await output.focus();
    await page.keyboard.press('End');
    const last = output.locator('[data-testid=output-row]', { hasText: 'last line of the output' });
    await last.waitFor();
    // Seen in the box, not only in the page: the row lies within the scroll region's bounds.
    const box = (await output.boundingBox())!;
    await expect.poll(async () => {
      const row = await last.boundingBox();
      return row !== null && row.y >= box.y && row.y + row.height <= box.y + box.height + 1;
    }).toBe(true);
    expect(await last.locator('span').evaluate((element) => getComputedStyle(element).fontWeight)).toBe('700');
    // A colour set 9,000 lines above the end carried into rows read from a page of their own.
    await output.evaluate((element) => element.scrollTo({ top: 1_000 * 18, behavior: 'instant' }));
    const frame = output.locator('[data-testid=output-row]', { hasText: 'at frame 1001' });
    await frame.waitFor();
    expect(await frame.locator('span').evaluate((element) => getComputedStyle(element).color)).not.toBe(await output.evaluate((element) => getComputedStyle(element).color));
    expect(await page.locator('body').innerText()).not.toMatch(ESCAPE_REMAINS);
    await saveScreenshot(page, 'tool-output-long');
  });

  it('wraps long lines on demand, opens full size, and copies the whole output as plain text', async () => {
    await demo.chromium.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${server.port}` });
    await openCall(LONG_SESSION, 'call-1');
    const output = page.locator('[data-testid=call-output]');
    const wrap = page.locator('[data-testid=output-wrap]');
    expect(await wrap.getAttribute('aria-pressed')).toBe('false');
    expect(await output.locator('[data-testid=output-row]').first().evaluate((element) => getComputedStyle(element).whiteSpace)).toBe('pre');
    await wrap.click();
    expect(await wrap.getAttribute('aria-pressed')).toBe('true');
    expect(await output.locator('[data-testid=output-row]').first().evaluate((element) => getComputedStyle(element).whiteSpace)).toBe('pre-wrap');

    // Full size: the box takes the window's width (the side pane is at most 420 px), and Escape gives it back.
    const full = page.locator('[data-testid=output-full]');
    await full.click();
    expect((await output.boundingBox())!.width).toBeGreaterThan(1_000);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('call-output');
    await page.keyboard.press('Escape');
    expect(await full.getAttribute('aria-pressed')).toBe('false');
    expect((await output.boundingBox())!.width).toBeLessThan(430);
    expect(await page.locator('[data-testid=timeline-detail]').count()).toBe(1);

    await page.locator('[data-testid=output-copy]').click();
    await expect.poll(() => page.locator('[data-testid=output-copied]').textContent(), { timeout: 30_000 }).toBe('Copied 10,000 lines, without escape codes.');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).not.toMatch(ESCAPE_REMAINS);
    const lines = copied.split('\n');
    expect(lines).toHaveLength(LONG_LINES);
    expect(lines[0]).toBe('✓ test 1 passes 1ms');
    expect(lines.at(-1)).toBe('last line of the output');
  });

  it('copies at most OUTPUT_COPY_CHARS_MAX characters of a bigger output, and says what it copied', async () => {
    await demo.chromium.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${server.port}` });
    await openCall(HUGE_SESSION, 'call-1');
    expect(terminalPlain(colouredTestOutput(HUGE_LINES)).length).toBeGreaterThan(OUTPUT_COPY_CHARS_MAX);
    await page.locator('[data-testid=output-copy]').click();
    await expect.poll(() => page.locator('[data-testid=output-copied]').textContent(), { timeout: 100_000 }).toMatch(/^Copied the first/);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toHaveLength(OUTPUT_COPY_CHARS_MAX);
    const lines = copied.split('\n').length.toLocaleString('en-US');
    expect(await page.locator('[data-testid=output-copied]').textContent()).toBe(`Copied the first ${lines} lines of 200,000 lines (${OUTPUT_COPY_CHARS_MAX.toLocaleString('en-US')} characters: a copy takes at most that many); the record has the rest.`);
    expect(copied.startsWith('✓ test 1 passes 1ms\n')).toBe(true);
    expect(copied).not.toMatch(ESCAPE_REMAINS);
  }, 180_000);
});
