// Reading comfort (issue 10 §5), end to end: the real `walscope serve` on the demo root plus a session whose
// tool output spans lines and carries markup, driven in Debian's Chromium. Tool output as preformatted text,
// the transcript as a conversation, search (highlight, "searching…", Enter selects the first match, payload
// text in Records), deep links that survive the token redirect and a reload, layout at 1,024 and 1,400 px,
// the keyboard, and an axe-core audit of the main views with no serious or critical violation.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeFileIO } from '../../src-main/engine/file-io.js';
import { call, done, run } from '../../src-main/runtime/catalog.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { driveSession } from '../../src-main/runtime/driver.js';
import { MemoryLedger } from '../../src-main/runtime/ledger.js';
import { AgentRuntime } from '../../src-main/runtime/runtime.js';
import { scriptedWorld } from '../../src-main/runtime/scripted.js';
import type { SessionScript } from '../../src-main/runtime/script.js';
import { openListedSession, seriousViolations as seriousViolationsOf } from './e2e-page.js';
import { cutCopy, flippedCopy, makeE2eRoot } from './e2e-root.js';
import { saveScreenshot } from './screenshots.js';
import { launchChromium, serve, type LaunchedBrowser, type Served } from './serve-harness.js';

const MULTILINE_SESSION = 'multiline-output';
/** A tool's output over several lines, with markup that must stay characters. */
const MULTILINE_OUTPUT = 'line one of the file\n  indented line two\n<b>not bold</b> <img src=x onerror="window.__walscope_xss=3">';
const MULTILINE_SCRIPT: SessionScript = {
  session_id: MULTILINE_SESSION,
  runs: [run('r1', [{ calls: [call('m1', done(MULTILINE_OUTPUT), { name: 'read_file' })] }, { text: 'the file has three lines' }])],
};
const CROWDED_SESSION = 'crowded-calls';
/** An assistant message of many calls with long names: its row is crowded, and the role label must not give way. */
const CROWDED_SCRIPT: SessionScript = {
  session_id: CROWDED_SESSION,
  runs: [run('r1', [{ calls: Array.from({ length: 6 }, (_, index) => call(`crowded-${index}`, done('ok'), { name: `search_the_repository_index_${index}` })) }, { text: 'done' }])],
};
const WIDTHS_PX = [1024, 1400] as const;
const HEIGHT_PX = 900;

let work: string;
let root: string;
let server: Served;
let cutServer: Served;
let flippedServer: Served;
let chromium: LaunchedBrowser;
let page: Page;

function writeScriptedSession(into: string, script: SessionScript): void {
  const clock = steppedClock(1_750_000_000_000);
  const runtime = AgentRuntime.open({ root: into, session_id: script.session_id, io: nodeFileIO, clock, ports: scriptedWorld(script, new MemoryLedger(), clock) });
  try {
    driveSession(runtime, script);
  } finally {
    runtime.close();
  }
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-comfort-'));
  ({ root } = makeE2eRoot(work));
  writeScriptedSession(root, MULTILINE_SCRIPT);
  writeScriptedSession(root, CROWDED_SCRIPT);
  const exports = path.join(work, 'damaged');
  fs.mkdirSync(exports);
  const cut = cutCopy(root, 'finished', exports, 7);
  const flipped = flippedCopy(root, 'finished', exports);
  [server, cutServer, flippedServer, chromium] = await Promise.all([serve(root), serve(cut), serve(flipped), launchChromium()]);
  page = await chromium.context.newPage();
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await Promise.all([server?.stop(), cutServer?.stop(), flippedServer?.stop()]);
  if (work !== undefined) fs.rmSync(work, { recursive: true, force: true });
});

const row = (key: string) => page.locator(`[data-testid=session-row][data-session="${key}"]`);

const openSession = (key: string) => openListedSession(page, key);
const seriousViolations = () => seriousViolationsOf(page);

/** Every text the element with `testid` shows from now on, collected in the page (a flash is caught too). */
async function recordTexts(testid: string): Promise<void> {
  await page.evaluate((id) => {
    const seen: string[] = [];
    (window as unknown as { __seen: string[] }).__seen = seen;
    const element = document.querySelector(`[data-testid="${id}"]`)!;
    new MutationObserver(() => seen.push(element.textContent ?? '')).observe(element, { subtree: true, childList: true, characterData: true });
  }, testid);
}

const seenTexts = () => page.evaluate(() => (window as unknown as { __seen: string[] }).__seen);

/** The texts the search highlight paints now. */
const highlighted = () => page.evaluate(() => [...(CSS.highlights.get('walscope-search') ?? [])].map((range) => range.toString()));

/** Types a search and waits until it has answered (complete). */
async function searchFor(text: string): Promise<string> {
  await recordTexts('search-count');
  await page.locator('[data-testid=search-input]').fill(text);
  await expect.poll(() => page.locator('[data-testid=search-count]').textContent(), { timeout: 10_000 }).toMatch(/match|of/);
  return (await page.locator('[data-testid=search-count]').textContent())!;
}

/**
 * What breaks the layout in the header, the session list, the tabs and the rows: a child overlapping a
 * sibling or sticking out of its container, text spilling out of its box, and a label broken over two lines.
 */
async function layoutProblems(): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const name = (element: Element) => `${element.tagName.toLowerCase()}${element.getAttribute('data-testid') !== null ? `[${element.getAttribute('data-testid')}]` : ''}.${[...element.classList].join('.')} "${(element.textContent ?? '').slice(0, 40)}"`;
    const shown = (element: Element) => { const box = element.getBoundingClientRect(); return box.width > 0 && box.height > 0; };
    const containers = ['.app-head', '.app-body', '.head-line', '.tab-list', '.search-bar', '.list-tools', '.session-row', '.session-body', '.record-line', '.row-inner'];
    for (const container of document.querySelectorAll(containers.join(','))) {
      if (!shown(container)) continue;
      const outer = container.getBoundingClientRect();
      const children = [...container.children].filter((child) => shown(child) && getComputedStyle(child).position !== 'absolute');
      children.forEach((child, index) => {
        const box = child.getBoundingClientRect();
        if (box.left < outer.left - 1 || box.right > outer.right + 1) problems.push(`${name(child)} sticks out of ${name(container)}`);
        for (const other of children.slice(index + 1)) {
          const next = other.getBoundingClientRect();
          if (box.left < next.right - 1 && next.left < box.right - 1 && box.top < next.bottom - 1 && next.top < box.bottom - 1) problems.push(`${name(child)} overlaps ${name(other)}`);
        }
      });
    }
    // What a row is (its role: user, assistant, tool, step n), a call's class and error mark, a status, what a
    // row says of an episode's end, and a listed session's errors and unconfirmed calls are never cut short: the
    // row's text, time and counts give way first.
    for (const element of document.querySelectorAll('.tl > .role, [data-testid=episode-state], [data-testid=episode-finish], [data-testid=class-chip], [data-testid=error-chip], [data-testid=status-chip], [data-testid=list-errors], [data-testid=list-unconfirmed]')) {
      if (!shown(element)) continue;
      // Cut short inside its own box (an ellipsis), or past the edge of the box that clips it (inline text).
      let clip = element.parentElement;
      while (clip !== null && getComputedStyle(clip).overflowX === 'visible') clip = clip.parentElement;
      const past_clip = clip !== null && element.getBoundingClientRect().right > clip.getBoundingClientRect().right + 1;
      if (element.scrollWidth > element.clientWidth + 1 || past_clip) problems.push(`${name(element)} is cut short`);
    }
    const labels = '.app-head > *, .head-line > *, .tab-list > button, .search-bar > *, .session-row > *, [data-testid=status-chip], .list-tools > *';
    for (const element of document.querySelectorAll(labels)) {
      if (!shown(element)) continue;
      if (element.scrollWidth > element.clientWidth + 1 && getComputedStyle(element).overflowX === 'visible') problems.push(`${name(element)} spills out of its box`);
      const range = document.createRange();
      range.selectNodeContents(element);
      const tops = [...range.getClientRects()].filter((box) => box.width > 0).map((box) => box.top).sort((a, b) => a - b);
      if (tops.length > 1 && tops.at(-1)! - tops[0]! > 8) problems.push(`${name(element)} wraps onto a second line`);
    }
    return problems;
  });
}

describe('reading comfort, in Chromium on the real serve', () => {
  it('shows a tool\'s output as its lines, as text', async () => {
    await page.goto(await server.link());
    await openSession(MULTILINE_SESSION);
    await page.locator('[data-testid=call-row][data-call=m1]').click();
    const output = page.locator('[data-testid=call-output]');
    // A row per line (terminal-output.tsx), each its text, once the output's page has come (a loaded machine's
    // serve answers after the click returns).
    await expect.poll(() => output.locator('[data-testid=output-row]').allTextContents(), { timeout: 10_000 }).toEqual(MULTILINE_OUTPUT.split('\n'));
    expect(await output.innerText()).toContain('line one of the file\n  indented line two\n');
    expect(await page.locator('[data-testid=timeline-detail] img, [data-testid=timeline-detail] b').count()).toBe(0);
    // In the record too: the tool_result's payload shows the output's lines, not a JSON string with \n.
    // The call's result: its records, then its batch's end (a batch of one call is folded into the call's row).
    const jumps = page.locator('[data-testid=timeline-detail] [data-testid=jump-record]');
    await jumps.nth((await jumps.count()) - 2).click();
    const record = page.locator('[data-testid=record-detail]');
    await record.waitFor();
    expect(await record.locator('pre', { hasText: 'indented line two' }).textContent()).toBe(MULTILINE_OUTPUT);
    expect(await record.textContent()).not.toContain('\\n');
    expect(await page.evaluate(() => (window as unknown as { __walscope_xss?: number }).__walscope_xss)).toBeUndefined();
  });

  it('shows the transcript as a conversation, with the check of the next request up front', async () => {
    await page.goto(await server.link());
    await openSession(MULTILINE_SESSION);
    await page.locator('[data-testid=tab-transcript]').click();
    const check = page.locator('[data-testid=transcript-check]');
    expect(await check.getAttribute('data-valid')).toBe('true');
    expect(await check.textContent()).toContain('as the next request would carry it');
    const list = (await page.locator('[data-testid=list-transcript]').boundingBox())!;
    expect((await check.boundingBox())!.y).toBeLessThan(list.y);
    const roles = await page.locator('[data-testid=transcript-message]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-role')));
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(await page.locator('[data-testid=tool-use-inline]').textContent()).toContain('read_file');
    await page.locator('[data-testid=transcript-message][data-role=assistant]').first().click();
    const card = page.locator('[data-testid=tool-use-card]');
    expect(await card.textContent()).toContain('read_file');
    expect(await card.locator('.tree-leaf').innerText()).toBe('target: "m1.txt"');
    await page.locator('[data-testid=transcript-message][data-role=tool]').click();
    const result = page.locator('[data-testid=tool-result-card]');
    expect(await result.getAttribute('data-error')).toBe('false');
    expect(await result.locator('[data-testid=tool-result-output] [data-testid=output-row]').allTextContents()).toEqual(MULTILINE_OUTPUT.split('\n'));
    await saveScreenshot(page, 'transcript-conversation');
  });

  it('searches: highlights matches, never says "no match" while searching, Enter selects the first match', async () => {
    await page.goto(await server.link());
    await openSession(MULTILINE_SESSION);
    await page.locator('[data-testid=tab-timeline]').click();
    // The call (read_file, its output) and the answer ("the file has three lines"): more than one match, so
    // Enter going to the second would show.
    const count = await searchFor('file');
    const matches = await page.locator('[data-testid=timeline-row][data-match=true]').evaluateAll((rows) => rows.map((row) => Number(row.parentElement!.getAttribute('data-row'))));
    expect(matches.length).toBeGreaterThan(1);
    expect(count).toMatch(new RegExp(`^${matches.length} match`));
    expect(await seenTexts()).not.toContain('no match');
    await expect.poll(highlighted).not.toEqual([]);
    expect(new Set((await highlighted()).map((text) => text.toLowerCase()))).toEqual(new Set(['file']));
    await page.locator('[data-testid=search-input]').press('Enter');
    await expect.poll(() => page.locator('[data-testid=timeline-row][aria-selected=true]').evaluate((row) => Number(row.parentElement!.getAttribute('data-row')))).toBe(Math.min(...matches));
    expect(await page.locator('[data-testid=search-count]').textContent()).toBe(`1 of ${matches.length}`);
    await page.locator('[data-testid=search-input]').press('Enter');
    expect(await page.locator('[data-testid=search-count]').textContent()).toBe(`2 of ${matches.length}`);
    expect(await searchFor('nothing-has-this-text')).toBe('no match');
    // Enter pressed before the answer (held back here until the key is down): the first match is selected
    // when it arrives.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/search', async (route) => { await held; await route.continue(); });
    await page.locator('[data-testid=search-input]').fill('three lines');
    await page.locator('[data-testid=search-input]').press('Enter');
    expect(await page.locator('[data-testid=search-count]').textContent()).toBe('searching…');
    release();
    await expect.poll(() => page.locator('[data-testid=search-count]').textContent()).toBe('1 of 1');
    await page.unroute('**/api/search');
    expect(await page.locator('[data-testid=timeline-row][aria-selected=true]').textContent()).toContain('the file has three lines');
  });

  it('searches the Records tab in payload text, and opens the first match on Enter', async () => {
    await page.locator('[data-testid=tab-records]').click();
    await page.locator('[data-testid=search-input]').fill('');
    const count = await searchFor('indented line two');
    expect(count).toMatch(/^\d+ match/);
    expect(await seenTexts()).not.toContain('no match');
    await page.locator('[data-testid=search-input]').press('Enter');
    const record = page.locator('[data-testid=record-detail]');
    await expect.poll(() => record.textContent()).toContain('indented line two');
    // The payload holds the text; the record's row shows only its frame fields: the painted match is in the detail.
    await expect.poll(async () => (await highlighted()).length).toBeGreaterThan(0);
    await saveScreenshot(page, 'search-records');
    await page.locator('[data-testid=search-input]').fill('');
  });

  it('opens a deep link to a session, a tab and a record through the token redirect, and again after a reload', async () => {
    const seq = 4;
    const linked = await chromium.context.newPage();
    try {
      await linked.goto(`${await server.link()}#session=${MULTILINE_SESSION}&tab=records&record=${seq}`);
      const check = async () => {
        await linked.locator(`[data-testid=session-view][data-session="${MULTILINE_SESSION}"]`).waitFor();
        await expect.poll(() => linked.locator('[data-testid=tab-records]').getAttribute('aria-selected')).toBe('true');
        await expect.poll(() => linked.locator('[data-testid=record-detail] h4').textContent()).toContain(`seq ${seq}`);
        expect(linked.url()).not.toContain('token=');
        expect(new URL(linked.url()).hash).toBe(`#session=${MULTILINE_SESSION}&tab=records&record=${seq}`);
      };
      await check();
      await linked.reload();
      await check();
      // What is shown is what the address says: another tab, another session.
      await linked.locator('[data-testid=tab-transcript]').click();
      await expect.poll(() => new URL(linked.url()).hash).toBe(`#session=${MULTILINE_SESSION}&tab=transcript`);
      await linked.reload();
      await expect.poll(() => linked.locator('[data-testid=tab-transcript]').getAttribute('aria-selected')).toBe('true');
      await linked.locator('[data-testid=session-row][data-session=finished]').click();
      await expect.poll(() => new URL(linked.url()).hash).toBe('#session=finished&tab=timeline');
    } finally {
      await linked.close();
    }
  });

  it('moves through the session list, the tabs, the help and the confirmation with the keyboard', async () => {
    await page.goto(await server.link());
    await page.locator('[data-testid=session-row]').first().waitFor();
    // The list's order settles once every session was read.
    await expect.poll(() => page.locator('[data-testid=session-row][data-status=loading]').count(), { timeout: 60_000 }).toBe(0);
    const keys = await page.locator('[data-testid=session-row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session')!));
    await row(keys[0]!).click();
    await page.keyboard.press('ArrowDown');
    await page.locator(`[data-testid=session-view][data-session="${keys[1]}"]`).waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-session'))).toBe(keys[1]);
    await page.keyboard.press('ArrowUp');
    await page.locator(`[data-testid=session-view][data-session="${keys[0]}"]`).waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-session'))).toBe(keys[0]);

    await page.locator('[data-testid=tab-timeline]').focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.locator('[data-testid=tab-records]').getAttribute('aria-selected')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('tab-records');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    // From the first tab, ArrowLeft wraps to the last one (Time).
    expect(await page.locator('[data-testid=tab-time]').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowRight');
    expect(await page.locator('[data-testid=tab-timeline]').getAttribute('aria-selected')).toBe('true');

    await page.keyboard.press('?');
    const help = page.locator('[data-testid=keyboard-help]');
    await help.waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('keyboard-help');
    expect(await help.textContent()).toContain('next / previous row');
    expect(await seriousViolations()).toEqual([]);
    await saveScreenshot(page, 'keyboard-help');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('help-close');
    await page.keyboard.press('Escape');
    await expect.poll(() => help.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('tab-timeline');

    await openSession('indeterminate');
    await page.locator('[data-testid=action-resume]').click();
    await page.locator('[data-testid=confirm-dialog]').waitFor();
    expect(await page.evaluate(() => document.activeElement?.closest('[data-testid=confirm-dialog]') !== null)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('confirm-reason');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('[data-testid=confirm-dialog]').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('action-resume');
  });

  for (const width_px of WIDTHS_PX) {
    it(`lays out without wrapping or overlap at ${width_px} px wide, on the demo root and the cut and flipped copies`, async () => {
      await page.setViewportSize({ width: width_px, height: HEIGHT_PX });
      const found: Record<string, string[]> = {};
      await page.goto(await server.link());
      await page.locator('[data-testid=session-row]').first().waitFor();
      found['list'] = await layoutProblems();
      for (const key of ['history-damaged-archive', 'indeterminate', 'held-sequential', 'steered-queued', MULTILINE_SESSION, CROWDED_SESSION]) {
        await openSession(key);
        for (const tab of ['timeline', 'records', 'transcript'] as const) {
          await page.locator(`[data-testid=tab-${tab}]`).click();
          await page.locator(`[data-testid=${tab}-row]`).first().click();
          found[`${key} ${tab}`] = await layoutProblems();
          if (width_px === WIDTHS_PX[0] && key === 'indeterminate' && tab === 'timeline') await saveScreenshot(page, 'layout-narrow');
        }
      }
      for (const [name, copy] of [['cut', cutServer], ['flipped', flippedServer]] as const) {
        await page.goto(await copy.link());
        await page.locator('[data-testid=session-row]').first().click();
        await page.locator('[data-testid=session-view]').waitFor();
        found[name] = await layoutProblems();
        // The flipped copy lists the records after its damage, marked unverified, in a column of their own.
        await page.locator('[data-testid=tab-records]').click();
        await page.locator('[data-testid=records-row]').last().click();
        found[`${name} records`] = await layoutProblems();
      }
      expect(Object.entries(found).filter(([, problems]) => problems.length > 0)).toEqual([]);
      await page.setViewportSize({ width: 1400, height: HEIGHT_PX });
    });
  }

  for (const scheme of ['light', 'dark'] as const) {
    it(`passes an axe-core audit on the main views with no serious or critical violation (${scheme})`, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(await server.link());
      await page.locator('[data-testid=session-row]').first().waitFor();
      // The audit sees the scheme's own colours (styles.css: --bg).
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(scheme === 'dark' ? 'rgb(21, 23, 27)' : 'rgb(255, 255, 255)');
      const found: Record<string, unknown> = {};
      found['list'] = await seriousViolations();
      await openSession('indeterminate');
      await page.locator('[data-testid=call-row]').first().click();
      await page.locator('[data-testid=timeline-detail]').waitFor();
      found['timeline'] = await seriousViolations();
      // A coloured tool output (terminal-output.tsx): its colours read on its box (4.5:1), its controls labelled.
      await openSession('coding-agent');
      await page.locator('[data-testid=call-row][data-call=ca4]').click();
      await page.locator('[data-testid=call-output] [data-testid=output-row]').first().waitFor();
      found['output'] = await seriousViolations();
      await page.locator('[data-testid=tab-records]').click();
      await page.locator('[data-testid=records-row]').first().click();
      await page.locator('[data-testid=record-detail]').waitFor();
      found['records'] = await seriousViolations();
      await openSession(MULTILINE_SESSION);
      await page.locator('[data-testid=tab-transcript]').click();
      await page.locator('[data-testid=transcript-message][data-role=tool]').click();
      await page.locator('[data-testid=transcript-detail]').waitFor();
      found['transcript'] = await seriousViolations();
      await openSession('compaction-ceiling');
      await page.locator('[data-testid=tab-context]').click();
      await page.locator('[data-testid=context-view]').waitFor();
      found['compaction'] = await seriousViolations();
      await openSession('indeterminate');
      await page.locator('[data-testid=action-resume]').click();
      await page.locator('[data-testid=confirm-dialog]').waitFor();
      found['recovery confirm'] = await seriousViolations();
      await page.keyboard.press('Escape');
      for (const [name, copy] of [['cut', cutServer], ['flipped', flippedServer]] as const) {
        await page.goto(await copy.link());
        await page.locator('[data-testid=session-row]').first().click();
        await page.locator('[data-testid=session-view]').waitFor();
        found[name] = await seriousViolations();
      }
      await page.emulateMedia({ colorScheme: null });
      expect(found).toEqual({ list: [], timeline: [], output: [], records: [], transcript: [], compaction: [], 'recovery confirm': [], cut: [], flipped: [] });
    });
  }
});
