// The compare view end to end: the real `walscope serve` on the demo root with a resumed copy of its crashed
// session beside it, in Debian's Chromium. "Compare with…" on the header opens the crashed original beside its
// resumed run: the first divergence's sentence on top (the close-out), its step opened, n / p to the next and
// previous difference; two sessions ticked in the list compared, their identical steps folded and expanded; the
// address reopens the comparison after a reload; a damaged side says where its trust ends; WAL text stays text; no
// serious or critical axe-core violation.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openListedSession, seriousViolations } from './e2e-page.js';
import { addResumedCopy, CRASHED_SESSION_ID, RESUMED_SESSION_ID, serveDemo, writeXssSession, XSS_SESSION_ID, XSS_TEXT, type ServedDemo } from './e2e-root.js';
import { writeFinished } from './wal-fixture.js';
import { saveScreenshot } from './screenshots.js';
import type { Served } from './serve-harness.js';

/** A run as the hostile one, answering plainly: the two answers' texts are a word diff. */
const PLAIN_SESSION_ID = 'plain-answer';

let demo: ServedDemo;
let server: Served;
let page: Page;

beforeAll(async () => {
  demo = await serveDemo('walscope-compare-e2e-', (root) => {
    addResumedCopy(root);
    writeXssSession(root);
    writeFinished(root, PLAIN_SESSION_ID, 'done');
  });
  ({ server, page } = demo);
  await page.setViewportSize({ width: 1400, height: 900 });
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

const view = () => page.locator('[data-testid=compare-view]');
const current = () => page.locator('[data-current=true]');
const fragment = () => page.evaluate(() => decodeURIComponent(window.location.hash));

describe('the compare view, in Chromium on the real serve', () => {
  it('"Compare with…" opens the crashed session beside its resumed run: the divergence on top, its step opened, n / p walk the differences', async () => {
    await page.goto(await server.link());
    await openListedSession(page, CRASHED_SESSION_ID);
    await page.locator('[data-testid=compare-with]').click();
    await page.locator('[data-testid=compare-with-select]').selectOption(RESUMED_SESSION_ID);
    await page.locator('[data-testid=compare-with-open]').click();
    await view().waitFor();
    expect(await view().getAttribute('data-a')).toBe(CRASHED_SESSION_ID);
    expect(await view().getAttribute('data-b')).toBe(RESUMED_SESSION_ID);
    expect(await fragment()).toBe(`#compare=${CRASHED_SESSION_ID}&with=${RESUMED_SESSION_ID}`);
    expect(await page.locator('[data-testid=divergence-sentence]').innerText()).toBe('episode 1, step 1: `edit_file` call 2 has a result recorded in B only (tool_result, outcome unknown)');
    expect(await page.locator('[data-testid=compare-trust-a]').innerText()).toBe('read whole');

    // The first divergence's step is current and opened: its call's difference in words, the class chips the Timeline shows.
    const first = page.locator('[data-testid=compare-step][data-episode="1"][data-step="1"]');
    expect(await first.getAttribute('data-current')).toBe('true');
    expect(await first.getAttribute('data-open')).toBe('true');
    await first.locator('[data-testid=compare-difference][data-kind=call_outcome]').waitFor();
    expect(await first.locator('[data-testid=compare-side-a] [data-testid=class-chip]').evaluateAll((chips) => chips.map((chip) => chip.getAttribute('data-class')))).toEqual(['completed', 'indeterminate']);
    expect(await page.locator('[data-testid=compare-place]').innerText()).toMatch(/^difference 1 of \d+ · n \/ p$/);

    // n: the next difference (how the run ended, after the episode's steps); p: back; past the ends nothing moves.
    await page.keyboard.press('n');
    await expect.poll(() => current().getAttribute('data-kind')).toBe('episode_end');
    expect(await current().innerText()).toContain('the run has no run_finished (running) in A, finished (interrupted) in B');
    await page.keyboard.press('n');
    expect(await current().getAttribute('data-kind')).toBe('episode_end');
    await page.keyboard.press('p');
    await expect.poll(() => current().getAttribute('data-step')).toBe('1');
    expect(await page.locator('[data-testid=compare-previous]').isDisabled()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    // Close returns to A's session.
    await page.locator('[data-testid=compare-close]').click();
    await page.locator(`[data-testid=session-view][data-session="${CRASHED_SESSION_ID}"]`).waitFor();
  });

  it('two sessions ticked in the list are compared, their identical steps folded into one row that expands; the address reopens it', async () => {
    await page.goto(await server.link());
    // The list is windowed: each is found by its id first (a tick outlives the search).
    for (const key of ['finished', 'natural-end']) {
      await page.locator('[data-testid=session-search]').fill(key);
      await page.locator(`[data-testid=compare-tick][data-session="${key}"]`).check();
    }
    await page.locator('[data-testid=session-search]').fill('');
    expect(await page.locator('[data-testid=compare-ticked-open]').innerText()).toBe('Compare finished with natural-end');
    await page.locator('[data-testid=compare-ticked-open]').click();
    await view().waitFor();
    expect(await page.locator('[data-testid=divergence-sentence]').innerText()).toBe('episode 1: the run finished (completed) in A, has no run_finished (running) in B');
    // No step differs: the divergence is how the run ended, current; both steps are one folded row.
    expect(await current().getAttribute('data-kind')).toBe('episode_end');
    const fold = page.locator('[data-testid=compare-fold]');
    expect(await fold.innerText()).toMatch(/^▸ 2 identical steps \(steps 1–2\)$/);
    expect(await page.locator('[data-testid=compare-step]').count()).toBe(0);
    await fold.click();
    await expect.poll(() => page.locator('[data-testid=compare-step][data-identical=true]').count()).toBe(2);
    expect(await fold.getAttribute('aria-expanded')).toBe('true');

    const address = page.url();
    expect(decodeURIComponent(new URL(address).hash)).toBe('#compare=finished&with=natural-end');
    await page.reload();
    await view().waitFor();
    expect(await view().getAttribute('data-a')).toBe('finished');
    expect(await page.locator('[data-testid=divergence-sentence]').innerText()).toBe('episode 1: the run finished (completed) in A, has no run_finished (running) in B');
    expect(await page.locator('[data-testid=compare-fold]').getAttribute('aria-expanded')).toBe('false');
  });

  it('a damaged side says where its trusted part ends, in its line and in the first divergence; an episode alone is in the address', async () => {
    await page.goto(await server.link());
    await page.evaluate(() => { window.location.hash = '#compare=finished&with=corrupt-middle&episode=1'; });
    await view().waitFor();
    const trust = page.locator('[data-testid=compare-trust-b]');
    expect(await trust.getAttribute('data-trust')).toBe('refused');
    expect(await trust.innerText()).toMatch(/^it is refused \(damaged\) at offset [\d,]+: .*only its first [\d,]+ bytes \(up to seq \d+\) are trusted and compared$/);
    expect(await page.locator('[data-testid=divergence-sentence]').innerText()).toContain('— B\'s records end here: it is refused (damaged) at offset');
    expect(await page.locator('[data-testid=compare-episode-select]').inputValue()).toBe('1');
    expect(await fragment()).toBe('#compare=finished&with=corrupt-middle&episode=1');
    await saveScreenshot(page, 'compare');
  });

  it('shows a WAL\'s text as text: a hostile answer in a word diff is characters, never markup', async () => {
    await page.goto(await server.link());
    await page.evaluate((hash) => { window.location.hash = hash; }, `#compare=${XSS_SESSION_ID}&with=${PLAIN_SESSION_ID}`);
    await view().waitFor();
    const step = page.locator('[data-testid=compare-step][data-step="1"]');
    expect(await step.getAttribute('data-open')).toBe('true');
    const words = step.locator('[data-testid=compare-difference][data-kind=answer_text]');
    expect(await words.locator('[data-testid=words-a] del').innerText()).toBe(XSS_TEXT);
    expect(await words.locator('[data-testid=words-b] ins').innerText()).toBe('done');
    expect(await view().locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __walscope_xss?: number }).__walscope_xss)).toBeUndefined();
  });
});
