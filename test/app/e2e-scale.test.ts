// End to end at scale (issue 9), with the real `walscope serve` and Chromium: a root of 1,000 sessions lists
// at once and fills in its statuses, and a 100 MB session opens at its tail (found from the end) while it is
// being read, and then shows its timeline, its status and the last page of its records. Data comes
// from the benchmark generator (scripts/bench-data.ts), sized for CI.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRAME_BODY_BYTES_MIN, FRAME_OVERHEAD_BYTES, WAL_BYTES_CEILING } from '../../src-main/engine/limits.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { longTailOutputBytes, manySessionId, smallOutputBytes, writeSessionWal } from '../../scripts/bench-data.js';
import { launchChromium, serve, type LaunchedBrowser, type Served } from './serve-harness.js';

const SESSIONS = 1_000;
const BIG_BYTES = 100 * 1_048_576;
const READ_MS_MAX = 240_000;
/** How long the first list answer is held back: the root's read is done by then (~3 s here). */
const LIST_HELD_MS = 8_000;

let work: string;
let chromium: LaunchedBrowser;
const servers: Served[] = [];

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-e2e-scale-'));
  for (let index = 0; index < SESSIONS; index++) {
    writeSessionWal(walPath(sessionDir(path.join(work, 'many'), manySessionId(index))), { seed: 500 + index, size_bytes_target: 6_000, outputBytes: smallOutputBytes, steps_per_run: 2, leave_open: index % 10 === 0 });
  }
  writeSessionWal(walPath(sessionDir(path.join(work, 'big'), 'big')), { seed: 77, size_bytes_target: BIG_BYTES, outputBytes: longTailOutputBytes });
  chromium = await launchChromium();
}, READ_MS_MAX);

afterAll(async () => {
  await chromium?.close();
  for (const server of servers) await server.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

async function open(root: string): Promise<Page> {
  const server = await serve(root);
  servers.push(server);
  const page = await chromium.context.newPage();
  await page.goto(await server.link());
  return page;
}

describe('walscope serve at scale, in Chromium', () => {
  it(`lists a root of ${SESSIONS.toLocaleString('en')} sessions and fills in every status`, async () => {
    const page = await open(path.join(work, 'many'));
    await page.locator('.list-count', { hasText: `${SESSIONS} of ${SESSIONS} sessions` }).waitFor();
    // Statuses fill in as the WALs are read: every tenth session was left with calls in flight.
    await page.locator('[aria-label="Filter by status"]').selectOption('loading');
    await page.locator('.list-count', { hasText: `0 of ${SESSIONS} sessions` }).waitFor({ timeout: READ_MS_MAX });
    await page.locator('[aria-label="Filter by status"]').selectOption('needs_operator');
    await page.locator('.list-count', { hasText: new RegExp(`^[1-9]\\d* of ${SESSIONS} sessions$`) }).waitFor();
    await page.locator('[data-testid=session-row]').first().click();
    await page.locator('[data-testid=session-view] [data-testid=status-chip][data-status=needs_operator]').waitFor();
    await page.locator('[data-testid=timeline-row]').first().waitFor();
    await page.close();
  }, READ_MS_MAX);

  it('keeps every status a pushed summary gave, when the list that answers the first ask comes after it', async () => {
    // The list is answered as the server had it, but held back until the read is done: the summaries the service
    // pushed meanwhile overtake it. Dropped because no list was there yet, they left sessions "loading" for good.
    const server = await serve(path.join(work, 'many'));
    servers.push(server);
    const page = await chromium.context.newPage();
    let held = 0;
    await page.route('**/api/listSessions', async (route) => {
      const response = await route.fetch();
      if (held++ === 0) await new Promise((resolve) => setTimeout(resolve, LIST_HELD_MS));
      await route.fulfill({ response });
    });
    await page.goto(await server.link());
    await page.locator('.list-count', { hasText: `${SESSIONS} of ${SESSIONS} sessions` }).waitFor({ timeout: READ_MS_MAX });
    await page.locator('[aria-label="Filter by status"]').selectOption('loading');
    await page.locator('.list-count', { hasText: `0 of ${SESSIONS} sessions` }).waitFor({ timeout: READ_MS_MAX });
    expect(held).toBeGreaterThan(0);
    await page.close();
  }, READ_MS_MAX);

  it('opens a 100 MB session at its tail while it is read, then shows its status, timeline and last records', async () => {
    const page = await open(path.join(work, 'big'));
    await page.locator('[data-testid=session-row][data-session=big]').click();
    await page.locator('[data-testid=session-view][data-session=big]').waitFor();
    const banner = page.locator('[data-testid=provisional-banner]');
    const finished = page.locator('[data-testid=session-view] [data-testid=status-chip][data-status=completed]');
    // Either the tail found from the end (the read from the start still under way) or, on a fast machine, the
    // read already done: both are right, and which one comes first is not asserted.
    await banner.or(finished).first().waitFor({ timeout: READ_MS_MAX });
    await page.locator('[data-testid=tab-records]').click();
    // Taken in one look: the read may end between two.
    const tail_seq = await page.evaluate(() => [...document.querySelectorAll('[data-testid=provisional-records-row]')].at(-1)?.getAttribute('data-seq') ?? null);
    await finished.waitFor({ timeout: READ_MS_MAX });
    if (tail_seq === null) {
      await page.locator('[data-testid=records-row]').first().waitFor();
      await page.keyboard.press('End');
    }
    // The real list replaces the tail at its end: the last provisional record is the last real one.
    const last = page.locator('[data-testid=records-row]', { hasText: 'run_finished' }).last();
    await last.waitFor();
    if (tail_seq !== null) expect(await last.textContent()).toContain(`seq ${tail_seq}`);
    expect(await clippedAtFormatMax(page)).toEqual([]);
    await page.locator('[data-testid=tab-timeline]').click();
    await page.locator('[data-testid=timeline-row]').first().waitFor();
    await page.close();
  }, READ_MS_MAX);
});

/** The offset and seq cells that would be cut short (an ellipsis) in a records row holding the largest offset and
 *  seq a WAL can have (wal-format §2: at most WAL_BYTES_CEILING bytes, frames of at least 45): a copy of the
 *  last row, beside it, in both layouts (with and without the damage column). */
async function clippedAtFormatMax(page: Page): Promise<string[]> {
  const offset_max = WAL_BYTES_CEILING - FRAME_OVERHEAD_BYTES - FRAME_BODY_BYTES_MIN;
  const seq_max = Math.floor(WAL_BYTES_CEILING / (FRAME_OVERHEAD_BYTES + FRAME_BODY_BYTES_MIN));
  return page.evaluate(({ offset, seq }) => {
    const line = [...document.querySelectorAll('[data-testid=records-row] .record-line')].at(-1)!;
    const clipped: string[] = [];
    for (const damage of [false, true]) {
      const copy = line.cloneNode(true) as HTMLElement;
      copy.classList.toggle('with-damage', damage);
      // Beside the row's own line, as wide as it (its box is a flex row: a second line would share its width).
      copy.style.width = `${line.clientWidth}px`;
      copy.style.flex = 'none';
      line.after(copy);
      const [offset_cell, seq_cell] = [...copy.children] as HTMLElement[];
      offset_cell!.textContent = String(offset);
      seq_cell!.textContent = `seq ${seq}`;
      for (const cell of [offset_cell!, seq_cell!]) if (cell.scrollWidth > cell.clientWidth) clipped.push(`${damage ? 'with damage: ' : ''}${cell.textContent}`);
      copy.remove();
    }
    return clipped;
  }, { offset: offset_max, seq: seq_max });
}
