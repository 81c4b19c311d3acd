// The Context view end to end: the real `walscope serve` on the real demo state root, in Debian's Chromium.
// For every step of every episode of the demo's compaction session it opens the step's Context view and
// checks it against the replay library reading the same files: the view's replacement stands where the
// covered steps were (right after the inputs, no covered turn left), every message's origin, the view's
// marks, the ceiling decision, the refused step reported and nothing rendered for it. Timeline labels of
// compaction records are whole words, never cut; a view's hostile text renders as text.
// WALSCOPE_SCREENSHOTS=1 saves the Context view to docs/screenshots/.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageText, noteLabel, originLabel } from '../../src-shared/compaction.js';
import type { Payload } from '../../src-shared/wal.js';
import { resolveTargets } from '../../src-main/engine/inspect.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { walPayloadReader } from '../../src-main/recovery/payloads.js';
import { replayTarget } from '../../src-main/recovery/replay-target.js';
import { renderStepRequest } from '../../src-main/replay/transcript.js';
import { replacementDigest } from '../../src-main/replay/views.js';
import { serveDemo, XSS_TEXT, type ServedDemo } from './e2e-root.js';
import { saveScreenshot } from './screenshots.js';
import type { Served } from './serve-harness.js';
import { withSession } from './wal-fixture.js';

const SESSION = 'compaction-ceiling';
const HOSTILE_SESSION = 'hostile-view';

let demo: ServedDemo;
let root: string;
let server: Served;
let page: Page;

beforeAll(async () => {
  demo = await serveDemo('walscope-context-e2e-', writeHostileView);
  ({ root, server, page } = demo);
}, 120_000);

afterAll(() => demo?.close());

/** A session whose compaction view carries markup: the Context view must show it as text. */
function writeHostileView(state_root: string): void {
  const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
  withSession(state_root, HOSTILE_SESSION, (append) => {
    append('run_started', { run_id: 'r1', session: HOSTILE_SESSION, config: { model: 'm' }, input: [user('go')] });
    append('model_step_finished', { step_id: 1, assistant_message: { role: 'assistant', content: [{ type: 'text', text: 'first' }] }, usage: {} });
    const replacement = [user(XSS_TEXT)] as Payload[];
    append('compaction_view_applied', { step_id: 2, view: { view_id: '<b>v</b>', version: 1, through_step: 1, replacement, replacement_sha256: replacementDigest(replacement) }, applied: 'as_published' });
  });
}

function replayOf(session: string) {
  return replayTarget(resolveTargets(sessionDir(root, session))[0]!);
}

async function openSession(key: string): Promise<void> {
  await page.locator(`[data-testid=session-row][data-session="${key}"]`).click();
  await page.locator(`[data-testid=session-view][data-session="${key}"]`).waitFor();
}

async function openStep(episode: number, step_id: number): Promise<void> {
  await page.locator('[data-testid=context-episode]').selectOption(String(episode));
  await page.locator(`[data-testid=context-view][data-episode="${episode}"]`).waitFor();
  await page.locator('[data-testid=context-step]', { hasText: new RegExp(`^${step_id}$`) }).click();
  await page.locator(`[data-testid=context-view][data-episode="${episode}"][data-step="${step_id}"]`).waitFor();
}

describe('the Context view of the demo compaction session, in Chromium', () => {
  it('labels every compaction and ceiling record in the timeline with its whole name', async () => {
    await page.goto(await server.link());
    await openSession(SESSION);
    const notes = page.locator('[data-testid=note-row]');
    await notes.first().waitFor();
    const shown = await notes.evaluateAll((rows) =>
      rows.map((row) => {
        const label = row.querySelector('.badge') as HTMLElement;
        return { type: row.getAttribute('data-type'), label: label.textContent, whole: label.scrollWidth <= label.clientWidth };
      }),
    );
    expect(shown.length).toBeGreaterThan(3);
    for (const entry of shown) expect(entry).toEqual({ type: entry.type, label: noteLabel(entry.type!), whole: true });
    expect(shown.map((entry) => entry.type)).toContain('compaction_view_applied');
    await saveScreenshot(page, 'timeline-compaction');
    // From a compaction record in the timeline to its step's Context view in one click.
    await page.locator('[data-testid=note-row][data-type=compaction_view_applied]').first().click();
    await page.locator('[data-testid=open-context]').click();
    await page.locator('[data-testid=context-view][data-episode="1"][data-step="2"]').waitFor();
    expect(await page.locator('[data-testid=compacted-span]').textContent()).toContain('Summary of step 1');
    await page.locator('[data-testid=tab-timeline]').click();
  });

  it('shows every step\'s request as the model saw it, the view\'s replacement where the covered steps were', async () => {
    const { fold } = replayOf(SESSION);
    await page.locator('[data-testid=tab-context]').click();
    await page.locator('[data-testid=context-view]').waitFor();
    let views_seen = 0;
    for (const episode of fold.episodes) {
      for (const step of episode.steps) {
        const at = `${episode.episode}/${step.step_id}`;
        const request = renderStepRequest(fold, episode.episode, step.step_id, walPayloadReader(walPath(sessionDir(root, SESSION))));
        await openStep(episode.episode, step.step_id);
        const top = page.locator('[data-testid=context-messages] > li');
        if (request.problems.length > 0) {
          await page.locator('[data-testid=context-problem]').first().waitFor();
          expect({ at, problem: await page.locator('[data-testid=context-problem]').first().textContent() }).toEqual({ at, problem: expect.stringContaining(request.problems[0]!.message) });
          expect({ at, messages: await top.count() }).toEqual({ at, messages: 0 });
          continue;
        }
        // Every message, with its origin, in order (the replacement's messages inside the compacted block).
        const labels = await page.locator('[data-testid=context-message]').evaluateAll((items) => items.map((item) => item.getAttribute('data-origin')));
        expect({ at, labels }).toEqual({ at, labels: request.messages.map((rendered) => originLabel(rendered.origin, episode.episode)) });
        const view = request.view;
        if (view === null) {
          expect({ at, compacted: await page.locator('[data-testid=compacted-span]').count() }).toEqual({ at, compacted: 0 });
          continue;
        }
        views_seen += 1;
        // The replacement stands right after the inputs, where steps 1…through_step were, and none of them is left.
        const ofView = (rendered: (typeof request.messages)[number]) => rendered.origin.kind === 'view' && rendered.origin.seq === view.seq;
        const before_view = request.messages.findIndex(ofView);
        const kinds = await top.evaluateAll((items) => items.map((item) => item.getAttribute('data-testid')));
        expect({ at, position: kinds.indexOf('compacted-span') }).toEqual({ at, position: before_view });
        const span = page.locator('[data-testid=compacted-span]');
        expect(await span.getAttribute('data-through-step')).toBe(String(view.through_step));
        const replacement = request.messages.filter(ofView).map((rendered) => messageText(rendered.message));
        for (const text of replacement) expect(await span.textContent()).toContain(text);
        expect(await span.locator('.compacted-head').textContent()).toContain(`steps 1–${view.through_step}`);
        // Labels of this episode's turns are "step N" (another episode's say which episode).
        const covered = labels.filter((label) => /^step (\d+)$/.test(label ?? '') && Number(label!.slice(5)) <= view.through_step);
        expect({ at, covered }).toEqual({ at, covered: [] });
        const info = await page.locator('[data-testid=context-view-info]').textContent();
        expect(info).toContain(`${view.view_id} v${view.version}`);
        expect(info).toContain(`replaces steps 1–${view.through_step}`);
        if (at === '1/3') await saveScreenshot(page, 'context-view');
      }
    }
    expect(views_seen).toBeGreaterThanOrEqual(3);
  });

  it('shows the ceiling decisions and the refused view at their steps, in words', async () => {
    await openStep(1, 2);
    expect(await page.locator('[data-testid=context-ceiling-decision]').getAttribute('data-outcome')).toBe('permitted');
    expect(await page.locator('[data-testid=context-notice]').first().textContent()).toContain('compaction notice #2');
    await openStep(2, 2);
    const refused = page.locator('[data-testid=context-ceiling-decision]');
    expect(await refused.getAttribute('data-outcome')).toBe('refused');
    expect(await refused.textContent()).toMatch(/refused: size \d+ tokens over the window of 150 \(over_window\)/);
    await saveScreenshot(page, 'context-ceiling-refused');
    await openStep(3, 4);
    expect(await page.locator('[data-testid=context-problem]').textContent()).toContain('no longer assembles');
    const lane = await page.locator('[data-testid=lane-step]').evaluateAll((steps) => steps.map((step) => [step.getAttribute('data-step'), step.getAttribute('data-view-applied'), step.getAttribute('data-size')]));
    expect(lane).toEqual([['1', 'no', expect.stringMatching(/^\d+$/)], ['2', 'no', expect.stringMatching(/^\d+$/)], ['3', 'yes', expect.stringMatching(/^\d+$/)], ['4', 'yes', '']]);
    await saveScreenshot(page, 'context-view-refused');
    // The session's next request cannot be rendered either: the transcript says so instead of looking empty.
    await page.locator('[data-testid=tab-transcript]').click();
    await expect.poll(() => page.locator('.session-main').textContent()).toContain('NOT provider-valid');
    await page.locator('[data-testid=tab-context]').click();
  });

  it('renders a view\'s hostile text as text', async () => {
    await openSession(HOSTILE_SESSION);
    await page.locator('[data-testid=tab-context]').click();
    await openStep(1, 2);
    expect(await page.locator('[data-testid=compacted-span]').textContent()).toContain(XSS_TEXT);
    expect(await page.locator('[data-testid=context-view-info]').textContent()).toContain('<b>v</b> v1');
    expect(await page.evaluate(() => (window as unknown as { __walscope_xss?: number }).__walscope_xss)).toBeUndefined();
    expect(await page.locator('[data-testid=context-view] img').count()).toBe(0);
  });
});
