// Sessions read like the work the agent did (issue 34, items 2 and 3), end to end in Debian's Chromium on the
// real `walscope serve`: the demo's coding agent and the six real trajectories (test/fixtures/realdata; skipped
// in one line where the data is absent). A step row shows the model's words, a call row the command or path it
// was given and its first output line; a batch of one call has no row of its own; thinking is folded (opened on
// demand) and its signature is nowhere in the page; redacted thinking is a placeholder; the screenshot in a tool
// result is an image; no row says "no time recorded". Each at 1,024 px, where the rows are narrowest.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { argsGist } from '../../src-shared/blocks.js';
import { toJsonValue } from '../../src-shared/json.js';
import type { JsonPayload, JsonValue } from '../../src-shared/replay.js';
import { realdataMissing, realSessionsRoot } from '../fixtures/realdata/fixtures.js';
import { REAL_SOURCES } from '../fixtures/realdata/sources.js';
import { ESCAPE_REMAINS, seriousViolations } from './e2e-page.js';
import { saveScreenshot } from './screenshots.js';
import { launchChromium, serve, type LaunchedBrowser, type Served } from './serve-harness.js';

const WIDTH_PX = 1024;
const missing = realdataMissing();
if (missing !== null) console.warn(missing);

let work: string;
let demo: Served;
let real: Served | null = null;
let chromium: LaunchedBrowser;
let page: Page;
let demo_root: string;
let real_root: string | null = null;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-reading-'));
  demo_root = path.join(work, 'demo');
  buildDemoRoot(demo_root, steppedClock(1_750_000_000_000));
  if (missing === null) real_root = realSessionsRoot(path.join(work, 'real')).root;
  [demo, real, chromium] = await Promise.all([serve(demo_root), real_root === null ? null : serve(real_root), launchChromium()]);
  page = await chromium.context.newPage();
  await page.setViewportSize({ width: WIDTH_PX, height: 900 });
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await Promise.all([demo?.stop(), real?.stop()]);
  if (work !== undefined) fs.rmSync(work, { recursive: true, force: true });
});

/** A session's records of one type, as JSON values. */
function payloadsOf(root: string, session: string, type: string): JsonPayload[] {
  const found: JsonPayload[] = [];
  const read = readWal(walPath(sessionDir(root, session)), { on_frame: (frame) => frame.type === type && found.push(toJsonValue(frame.payload!) as JsonPayload) });
  expect(read.error).toBeNull();
  return found;
}

type Block = { type?: JsonValue; text?: JsonValue; signature?: JsonValue };
const blocksOf = (step: JsonPayload) => ((step['assistant_message'] as { content?: Block[] } | undefined)?.content ?? []) as Block[];

async function openSession(served: Served, key: string): Promise<void> {
  await page.goto(await served.link());
  const search = page.locator('[data-testid=session-search]');
  await search.fill(key);
  await page.locator(`[data-testid=session-row][data-session="${key}"]`).click();
  await page.locator(`[data-testid=session-view][data-session="${key}"]`).waitFor();
  await search.fill('');
}

const stepRow = (step_id: number) => page.locator(`[data-testid=step-row][data-step="${step_id}"]`).first();
const callRow = (id: string) => page.locator(`[data-testid=call-row][data-call="${id}"]`);

/** `text`'s start as a row shows it: one line, blanks run together. */
const lineStart = (text: string, chars: number) => text.replace(/\s+/g, ' ').trim().slice(0, chars);

/** The step's words are in its row, visible and given room; the row holds no JSON of its blocks. */
async function expectWordsShown(step: JsonPayload): Promise<void> {
  const words = blocksOf(step).find((block) => block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '')?.text as string;
  const shown = stepRow(step['step_id'] as number).locator('[data-testid=row-words]');
  expect(await shown.innerText()).toContain(lineStart(words, 20));
  expect((await shown.boundingBox())!.width).toBeGreaterThan(WIDTH_PX / 5);
  expect(await stepRow(step['step_id'] as number).innerText()).not.toContain('{"type"');
}

/** A call's gist (its command or path) is in its row, visible. */
async function expectGistShown(intent: JsonPayload): Promise<void> {
  const gist = page.locator(`[data-testid=call-row][data-call="${String(intent['tool_call_id'])}"] [data-testid=call-gist]`);
  expect(await gist.getAttribute('title')).toBe(argsGist(intent['args']));
  expect(await gist.innerText()).toContain(lineStart(argsGist(intent['args'])!, 12));
  // Whole, or given room (a long command is cut to the row's width).
  expect(await gist.evaluate((element) => element.scrollWidth <= element.clientWidth || element.clientWidth > 120)).toBe(true);
}

/** Thinking is folded in the detail, opens on demand, and no signature's text is anywhere in the page. */
async function expectThinkingFolded(steps: readonly JsonPayload[]): Promise<void> {
  const step = steps.find((entry) => blocksOf(entry).some((block) => block.type === 'reasoning' && typeof block.text === 'string'))!;
  const thinking = blocksOf(step).find((block) => block.type === 'reasoning')!;
  await stepRow(step['step_id'] as number).click();
  const folded = page.locator('[data-testid=timeline-detail] [data-testid=thinking]').first();
  expect(await folded.getAttribute('open')).toBeNull();
  expect(await folded.locator('summary').innerText()).toMatch(/^thinking · [\d.]+k? chars( · signed)?$/);
  expect(await folded.locator('pre').isVisible()).toBe(false);
  await folded.locator('summary').click();
  expect(await folded.locator('pre').innerText()).toContain(lineStart(thinking.text as string, 20).split(' ')[0]);
  const signatures = steps.flatMap(blocksOf).flatMap((block) => (typeof block.signature === 'string' ? [block.signature] : []));
  const html = await page.content();
  for (const signature of signatures) expect(html).not.toContain(signature.slice(0, 32));
}

describe("the demo's coding agent reads like its work", () => {
  it('step rows say the words, call rows the command; a batch of one call has no row; no row says it has no time', async () => {
    await openSession(demo, 'coding-agent');
    const steps = payloadsOf(demo_root, 'coding-agent', 'model_step_finished');
    await stepRow(1).waitFor();
    for (const step of steps.filter((entry) => blocksOf(entry).some((block) => block.type === 'text'))) await expectWordsShown(step);
    const intents = payloadsOf(demo_root, 'coding-agent', 'tool_dispatch_intent');
    const long_command = intents.find((intent) => String((intent['args'] as { command?: string }).command ?? '').length > 200)!;
    for (const intent of [intents[0]!, long_command]) await expectGistShown(intent);
    // Tokens compact on the row, cache counts only in the detail; then what the step cost.
    expect(await stepRow(1).locator('[data-testid=step-meta]').innerText()).toMatch(/^3 calls · [\d.]+k? in · [\d.]+k? out · \$0\.\d+$/);
    const batches = payloadsOf(demo_root, 'coding-agent', 'tool_batch_started');
    expect(await page.locator('.tl-batch').count()).toBe(batches.filter((batch) => (batch['planned_calls'] as JsonValue[]).length > 1).length);
    expect(await page.locator('body').innerText()).not.toContain('no time recorded');
    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'reading-timeline');
  });

  it('folds thinking, never shows a signature, marks redacted thinking, and shows the screenshot as an image', async () => {
    await openSession(demo, 'coding-agent');
    const steps = payloadsOf(demo_root, 'coding-agent', 'model_step_finished');
    await stepRow(1).waitFor();
    await expectThinkingFolded(steps);
    const redacted = steps.find((step) => blocksOf(step).some((block) => block.type === 'redacted_reasoning'))!;
    await stepRow(redacted['step_id'] as number).click();
    expect(await page.locator('[data-testid=timeline-detail] [data-testid=redacted-thinking]').innerText()).toMatch(/^redacted thinking.* chars of opaque data$/);

    await page.locator('[data-testid=tab-transcript]').click();
    await page.locator('[data-testid=transcript-message][data-role=tool]', { hasText: 'screenshot' }).click();
    const image = page.locator('[data-testid=transcript-detail] [data-testid=block-image] img');
    expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,iVBOR/);
    // Decoded, so the CSP let the data: image through.
    await expect.poll(() => image.evaluate((element) => (element as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    const html = await page.content();
    for (const signature of steps.flatMap(blocksOf).flatMap((block) => (typeof block.signature === 'string' ? [block.signature] : []))) expect(html).not.toContain(signature.slice(0, 32));
    expect(await seriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'reading-transcript');
  });
});

describe.skipIf(missing !== null)('the six real sessions read like the work their agents did', () => {
  for (const source of REAL_SOURCES) {
    it(`${source.session_id}: the first steps' words and the first calls' commands are in their rows`, async () => {
      await openSession(real!, source.session_id);
      const steps = payloadsOf(real_root!, source.session_id, 'model_step_finished');
      const intents = payloadsOf(real_root!, source.session_id, 'tool_dispatch_intent');
      await page.locator('[data-testid=step-row]').first().waitFor();
      // The rows on the first screen: the first episode's first steps (step ids start again in each episode).
      const first_steps: JsonPayload[] = [];
      for (const step of steps.slice(0, 4)) {
        if (first_steps.length > 0 && (step['step_id'] as number) <= (first_steps.at(-1)!['step_id'] as number)) break;
        first_steps.push(step);
      }
      const worded = first_steps.filter((step) => blocksOf(step).some((block) => block.type === 'text' && String(block.text).trim() !== ''));
      for (const step of worded.slice(0, 2)) await expectWordsShown(step);
      for (const intent of intents.slice(0, 2).filter((entry) => argsGist(entry['args']) !== null)) {
        if ((await callRow(String(intent['tool_call_id'])).count()) > 0) await expectGistShown(intent);
      }
      if (steps.flatMap(blocksOf).some((block) => block.type === 'reasoning')) await expectThinkingFolded(steps);
      expect(await page.locator('body').innerText()).not.toContain('no time recorded');
      // Colour codes in a tool's output are drawn, never shown as text: in the rows, and in the first such call's detail.
      expect(await page.locator('body').innerText()).not.toMatch(ESCAPE_REMAINS);
      const coloured = payloadsOf(real_root!, source.session_id, 'tool_result').find((result) => JSON.stringify(result['output']).includes('\\u001b'));
      if (coloured !== undefined && (await callRow(String(coloured['tool_call_id'])).count()) > 0) {
        await callRow(String(coloured['tool_call_id'])).click();
        await page.locator('[data-testid=call-output]').waitFor();
        expect(await page.locator('[data-testid=timeline-detail]').innerText()).not.toMatch(ESCAPE_REMAINS);
      }
    });
  }
});
