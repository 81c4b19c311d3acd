// End to end, in Chromium on the real `walscope serve`: several exports opened at once (a folder of them, and
// several files named), each read-only with unreadable ones showing their own cause, nothing written in the
// folder; records after a non-tail damage listed unverified after the damage marker; a time on every timeline
// row (and "no times recorded" where a WAL has none); the list saying what verify says about a damaged archive;
// and the History panel's retire asking for the reason and writing its operator_action first. On the demo root
// and on cut and flipped copies of its WALs. WALSCOPE_SCREENSHOTS=1 also saves the views to docs/screenshots/.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractSealedLineage } from '../../src-main/engine/archive-member.js';
import { resolveTargets, verifyTarget } from '../../src-main/engine/inspect.js';
import { readHistory } from '../../src-main/engine/lineage-chain.js';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { cutCopy, flippedCopy, makeE2eRoot } from './e2e-root.js';
import { saveScreenshot } from './screenshots.js';
import { launchChromium, REPO_DIR, serve, type LaunchedBrowser, type Served } from './serve-harness.js';
import { writeFinished } from './wal-fixture.js';

const RETIRE_REASON = 'ticket 93: archive the finished lineage before the disk swap';

let work: string;
let root: string;
let folder: string;
let rootServer: Served;
let folderServer: Served;
let filesServer: Served;
let chromium: LaunchedBrowser;
let page: Page;
/** The exports folder as it was before any server opened it. */
let folderBefore: Record<string, string>;

/** Every entry of `dir` with its mode, size, mtime and bytes. */
function snapshot(dir: string): Record<string, string> {
  const found: Record<string, string> = { '.': String(fs.statSync(dir).mtimeMs) };
  for (const name of fs.readdirSync(dir)) {
    const stat = fs.lstatSync(path.join(dir, name));
    found[name] = `${stat.mode}:${stat.size}:${stat.mtimeMs}:${stat.isFile() ? fs.readFileSync(path.join(dir, name)).toString('base64') : ''}`;
  }
  return found;
}

/** A folder of exports as support receives them: copies of demo WALs (one cut short in transfer, one with a
 *  flipped bit in the middle), one from a runtime that records no times, a note, a FIFO and a subfolder. */
function makeExportsFolder(): string {
  const into = path.join(work, 'from-customer');
  fs.mkdirSync(into);
  cutCopy(root, 'finished', into, 11);
  flippedCopy(root, 'approvals', into);
  fs.copyFileSync(walPath(sessionDir(root, 'indeterminate')), path.join(into, 'indeterminate.wal'));
  const untimed = fs.mkdtempSync(path.join(work, 'untimed-'));
  writeFinished(untimed, 'untimed');
  fs.copyFileSync(walPath(sessionDir(untimed, 'untimed')), path.join(into, 'untimed.wal'));
  fs.writeFileSync(path.join(into, 'notes.txt'), 'the customer says it hung at step 3\n'.repeat(20));
  expect(spawnSync('mkfifo', [path.join(into, 'pipe.wal')]).status).toBe(0);
  fs.mkdirSync(path.join(into, 'attachments'));
  return into;
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-e2e-exports-'));
  ({ root } = makeE2eRoot(work));
  folder = makeExportsFolder();
  folderBefore = snapshot(folder);
  const files = [path.join(folder, 'indeterminate.wal'), path.join(folder, 'approvals-flipped.wal')];
  [rootServer, folderServer, filesServer, chromium] = await Promise.all([serve(root), serve(folder), serve(files), launchChromium()]);
  page = await chromium.context.newPage();
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await Promise.all([rootServer?.stop(), folderServer?.stop(), filesServer?.stop()]);
  if (work !== undefined) fs.rmSync(work, { recursive: true, force: true });
});

const row = (key: string) => page.locator(`[data-testid=session-row][data-session="${key}"]`);

async function openSession(key: string): Promise<void> {
  await row(key).click();
  await page.locator(`[data-testid=session-view][data-session="${key}"]`).waitFor();
}

async function statusOf(key: string): Promise<string | null> {
  await expect.poll(() => row(key).getAttribute('data-status'), { timeout: 60_000 }).not.toBe('loading');
  return row(key).getAttribute('data-status');
}

describe('the demo root', () => {
  it('lists a session whose archive verify refuses as refused, naming the archive, as the History banner does', async () => {
    await page.goto(await rootServer.link());
    const id = 'history-damaged-archive';
    expect(verifyTarget(resolveTargets(sessionDir(root, id))[0]!).archive?.error?.kind).toBe('archive_corruption');
    expect(await statusOf(id)).toBe('damaged');
    expect(await row(id).locator('[data-testid=status-chip]').getAttribute('title')).toMatch(/^the session's archive is refused .*archive corruption at offset \d+/);
    await openSession(id);
    expect(await page.locator('[data-testid=archive-banner]').getAttribute('data-kind')).toBe('archive_corruption');
    expect(await page.locator('[data-testid=integrity-banner]').innerText()).toContain('verify refuses the session');
  });

  it('puts a time on every episode, step and call row: the recorded one, and how far into the episode', async () => {
    const id = 'approvals';
    await openSession(id);
    const fold = replayTarget(resolveTargets(sessionDir(root, id))[0]!).fold;
    const episode = page.locator('[data-testid=episode-row] [data-testid=row-time]').first();
    await episode.waitFor();
    expect(await episode.getAttribute('data-recorded')).toBe('true');
    const steps = page.locator('.tl-step [data-testid=row-time]');
    expect(await steps.count()).toBeGreaterThan(0);
    expect(await steps.evaluateAll((spans) => spans.every((span) => span.getAttribute('data-recorded') === 'true' && /^\+[\d.]+ m?s · /.test(span.textContent ?? '')))).toBe(true);
    const calls = fold.episodes.flatMap((found) => found.batches.flatMap((batch) => batch.calls));
    for (const call of calls) {
      const time = page.locator(`[data-testid=call-row][data-call="${call.tool_call_id}"] [data-testid=row-time]`);
      // No time recorded: the row says nothing of it.
      if (call.dispatched_at_ms === null) {
        expect(await time.count()).toBe(0);
        continue;
      }
      expect(await time.getAttribute('data-ms')).toBe(String(call.dispatched_at_ms));
      // A call whose terminal carries no finish time is not one still waiting for its result.
      expect(await time.innerText()).toContain(call.finished_at_ms !== null ? 'took' : call.terminals.length > 0 ? 'no finish time recorded' : 'no result yet');
    }
    await saveScreenshot(page, 'row-times');
  });

  it('retires a lineage only with a reason, and writes the operator_action first into the lineage it seals', async () => {
    const id = 'history-no-index';
    const dir = sessionDir(root, id);
    const live_before = readHistory(dir).lineages.find((lineage) => lineage.where === 'live')!;
    await openSession(id);
    await page.locator('[data-testid=retire-sealed]').click();
    await page.locator('[data-testid=retire-plan]').waitFor();
    expect(await page.locator('[data-testid=retire-audit]').innerText()).toContain(`operator_action — action retire, your name and reason, via app, based on seq ${live_before.last_seq}`);
    expect(await page.locator('[data-testid=retire-confirm]').isDisabled()).toBe(true);
    await page.locator('[data-testid=retire-reason]').fill(RETIRE_REASON);
    await page.locator('[data-testid=operator-input]').fill('Ann Operator');
    await page.locator('[data-testid=retire-confirm]').click();
    await expect.poll(() => page.locator('[data-testid=retire-result]').getAttribute('data-ok')).toBe('true');
    await expect.poll(() => page.locator(`[data-testid=retired-by][data-wal-id="${live_before.wal_id}"]`).count()).toBe(1);
    expect(await page.locator(`[data-testid=retired-by][data-wal-id="${live_before.wal_id}"]`).innerText()).toContain(RETIRE_REASON);
    await saveScreenshot(page, 'retire-audit');
    const sealed = readHistory(dir).lineages.find((lineage) => lineage.wal_id === live_before.wal_id)!;
    expect(sealed).toMatchObject({ where: 'sealed', last_seq: live_before.last_seq! + 1 });
    const copy = extractSealedLineage(dir, sealed.wal_id);
    if (typeof copy === 'string') throw new Error(copy);
    try {
      const records: { seq: number; type: string; payload: unknown }[] = [];
      readWal(copy.file, { on_frame: (frame) => records.push({ seq: frame.seq, type: frame.type, payload: frame.payload }) });
      expect(records.at(-1)).toMatchObject({ seq: live_before.last_seq! + 1, type: 'operator_action', payload: { action: 'retire', reason: RETIRE_REASON, via: 'app', based_on_seq: live_before.last_seq } });
    } finally {
      copy.dispose();
    }
  });
});

describe('a folder of exports', () => {
  it('lists every file as a read-only session, each unreadable one with its own cause', async () => {
    await page.goto(await folderServer.link());
    expect(await page.locator('[data-testid=workspace-kind]').innerText()).toBe('exports · read-only');
    expect(await page.locator('[data-testid=workspace-path]').innerText()).toBe(folder);
    await expect.poll(() => page.locator('[data-testid=session-row]').count()).toBe(6);
    expect(await statusOf('pipe.wal')).toBe('unreadable');
    expect(await row('pipe.wal').locator('[data-testid=status-chip]').getAttribute('title')).toContain('is a FIFO (named pipe), not a regular file');
    expect(await row('pipe.wal').locator('[data-testid=list-cause]').innerText()).toContain('is a FIFO (named pipe)');
    // Text is not a WAL (wal-format §5 rule 0): its own word, never a torn tail, listed apart in the overview.
    expect(await statusOf('notes.txt')).toBe('not_a_wal');
    expect(await row('notes.txt').locator('[data-testid=status-chip]').innerText()).toContain('not a WAL');
    expect(await row('notes.txt').locator('[data-testid=torn-tail-chip]').count()).toBe(0);
    expect(await page.locator('[data-testid=not-wals] [data-testid=not-wal]').evaluateAll((rows) => rows.map((entry) => entry.getAttribute('data-session')))).toEqual(['notes.txt']);
    expect(await page.locator('[data-testid=status-counts] [data-status=not_a_wal]').count()).toBe(0);
    expect(await page.locator('[data-testid=list-count]').innerText()).toContain('1 file is not a WAL');
    // A cut copy: its plan decides the word, the torn tail is beside it.
    expect(await statusOf('finished-cut.wal')).toBe('needs_operator');
    expect(await row('finished-cut.wal').locator('[data-testid=torn-tail-chip]').count()).toBe(1);
    expect(await statusOf('approvals-flipped.wal')).toBe('damaged');
    expect(await statusOf('indeterminate.wal')).toBe('needs_operator');
    expect(await page.locator('header').innerText()).toContain('not sessions: attachments');
    await saveScreenshot(page, 'exports-folder');
    for (const key of ['indeterminate.wal', 'untimed.wal', 'finished-cut.wal', 'approvals-flipped.wal', 'pipe.wal']) {
      await openSession(key);
      await page.locator('[data-testid=read-only]').waitFor();
      expect({ key, recovery: await page.locator('[data-testid=recovery-panel]').count(), retire: await page.locator('[data-testid^=retire-]').count() }).toEqual({ key, recovery: 0, retire: 0 });
    }
    expect(await page.locator('[data-testid=integrity-banner]').innerText()).toContain('is a FIFO (named pipe), not a regular file');
  });

  it('says a WAL that records no times records none, instead of inventing them', async () => {
    await openSession('untimed.wal');
    const time = page.locator('[data-testid=episode-row] [data-testid=row-time]').first();
    await time.waitFor();
    expect(await time.getAttribute('data-recorded')).toBe('false');
    expect(await time.innerText()).toBe('no times recorded in this WAL');
    // Said once, for the episode: its steps say nothing of a time they do not have.
    expect(await page.locator('.tl-step').count()).toBeGreaterThan(0);
    expect(await page.locator('.tl-step [data-testid=row-time]').count()).toBe(0);
    expect(await page.locator('[data-testid=session-view]').innerText()).not.toContain('no time recorded');
  });

  it('lists the records found after a non-tail damage after the marker, unverified, and uses none of them', async () => {
    const file = path.join(folder, 'approvals-flipped.wal');
    const replay = replayTarget(resolveTargets(file)[0]!);
    await openSession('approvals-flipped.wal');
    // Its timeline (the verified prefix) keeps the times its records carry.
    const fold_calls = replay.fold.episodes.flatMap((episode) => episode.batches.flatMap((batch) => batch.calls));
    await page.locator('[data-testid=episode-row] [data-testid=row-time][data-recorded=true]').waitFor();
    for (const call of fold_calls.filter((found) => found.dispatched_at_ms !== null)) {
      expect(await page.locator(`[data-testid=call-row][data-call="${call.tool_call_id}"] [data-testid=row-time]`).getAttribute('data-ms')).toBe(String(call.dispatched_at_ms));
    }
    await page.locator('[data-testid=tab-records]').click();
    const note = page.locator('[data-testid=after-damage-note]');
    await note.waitFor();
    expect(await note.innerText()).toMatch(/After the damage at offset \d+: \d+ intact record\(s\), seq \d+–\d+, listed after record \d+ and marked unverified by sequence/);
    await page.keyboard.press('End');
    const marker = page.locator('[data-testid=records-row] [data-testid=damage-marker]');
    const unverified = page.locator('[data-testid=records-row] [data-unverified=true]');
    await expect.poll(() => unverified.count()).toBeGreaterThan(0);
    await page.keyboard.press('Home');
    await expect.poll(() => marker.count()).toBe(1);
    await marker.click();
    await page.locator('[data-testid=record-unverified]').waitFor();
    expect(await page.locator('[data-testid=digest-check]').innerText()).toContain('verified');
    expect(await page.locator('[data-testid=jump-timeline]').count()).toBe(0);
    await saveScreenshot(page, 'records-after-damage');
    // The timeline stops at the damage: it names no seq past the last verified one.
    expect(await page.locator('[data-testid=last-seq]').innerText()).toBe(String(replay.read.last_seq));
  });

  it('wrote nothing in or beside the folder', () => {
    expect(snapshot(folder)).toEqual(folderBefore);
  });
});

describe('several export files', () => {
  it('opens each named file as a read-only session under the folder holding them', async () => {
    await page.goto(await filesServer.link());
    await expect.poll(() => page.locator('[data-testid=session-row]').count()).toBe(2);
    expect(await page.locator('[data-testid=workspace-kind]').innerText()).toBe('exports · read-only');
    expect(await page.locator('[data-testid=workspace-path]').innerText()).toBe(folder);
    expect(await statusOf('approvals-flipped.wal')).toBe('damaged');
    await openSession('indeterminate.wal');
    await page.locator('[data-testid=read-only]').waitFor();
    expect(await page.locator('[data-testid=recovery-panel]').count()).toBe(0);
    expect(snapshot(folder)).toEqual(folderBefore);
  });

  it('refuses a missing file among them by name, before anything starts', () => {
    const result = spawnSync(process.execPath, ['bin/walscope.js', 'serve', path.join(folder, 'indeterminate.wal'), path.join(folder, 'nope.wal'), '--port', '0'], { cwd: REPO_DIR, encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('nope.wal: no such file');
  });
});
