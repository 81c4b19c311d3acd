// The README's commands, run as a new user runs them, in a copy of the repository that was never built:
// `npm start` prints a URL (no Electron binary and no display here) that shows the demo's session list in
// Chromium, and Ctrl-C stops everything, releasing the live session's lease; `npm run build` then
// `npx walscope serve ROOT` does the same. Neither build writes anything beside the repository.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SESSION_IDS, LIVE_SESSION_ID } from '../../src-main/demo/sessions.js';
import { probeLease } from '../../src-main/engine/lease.js';
import { sessionDir } from '../../src-main/engine/state-root.js';
import { launchChromium, type LaunchedBrowser } from '../app/serve-harness.js';
import { copyRepo, demoRootIn, groupEnds, startJob, userEnv, type RepoCopy } from './repo-copy.js';

const URL_PATTERN = /(http:\/\/127\.0\.0\.1:\d+\/\?open=\S+)/;
const UI_TIMEOUT_MS = 30_000;

let copy: RepoCopy;
let chromium: LaunchedBrowser;

beforeAll(async () => {
  copy = copyRepo();
  chromium = await launchChromium();
}, 60_000);

afterAll(async () => {
  await chromium?.close();
  copy?.remove();
});

/** Opens the URL and waits until the session list shows every demo session; the app icon is the page's
 *  favicon, served under the strict CSP without a complaint. */
async function seesSessionList(url: string): Promise<void> {
  const page = await chromium.context.newPage();
  const complaints: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') complaints.push(message.text());
  });
  try {
    await page.goto(url);
    for (const id of DEMO_SESSION_IDS) {
      await page.locator('[data-testid=session-row]', { hasText: id }).first().waitFor({ timeout: UI_TIMEOUT_MS });
    }
    const icons = await page.locator('link[rel=icon]').evaluateAll((links) => links.map((link) => [(link as HTMLLinkElement).href, (link as HTMLLinkElement).type]));
    expect(icons.map(([, type]) => type)).toEqual(['image/svg+xml', 'image/png']);
    for (const [href, type] of icons) {
      const response = await page.request.get(href!);
      expect(response.status(), href).toBe(200);
      expect(response.headers()['content-type']).toBe(type);
    }
    expect(complaints).toEqual([]);
  } finally {
    await page.close();
  }
}

const onlyTheRepo = () => expect(fs.readdirSync(copy.parent)).toEqual(['walscope']);

describe('the README on a fresh clone', () => {
  it('`npm start` builds into the repository, prints a URL that shows the demo, and stops on Ctrl-C', async () => {
    expect(fs.existsSync(path.join(copy.repo, 'out'))).toBe(false);
    const start = startJob('npm', ['start'], copy.repo, userEnv(copy.scratch));
    const url = await start.waitFor(/serving the same UI in your browser instead: (\S+)$/);
    expect(url).toMatch(URL_PATTERN);
    expect(start.lines).toContainEqual(expect.stringMatching(/^walscope: the desktop window cannot open here: there is no display/));
    const root = demoRootIn(copy.scratch);
    expect(probeLease(sessionDir(root, LIVE_SESSION_ID)).state).toBe('live');
    await seesSessionList(url);

    expect([0, 'SIGINT']).toContain(await start.interrupt());
    expect(await groupEnds(start)).toBe(true);
    expect(probeLease(sessionDir(root, LIVE_SESSION_ID)).state).toBe('free');
    for (const built of ['cli/walscope.js', 'cli/session-worker.js', 'main/index.js', 'main/session-worker.js', 'preload/index.cjs', 'renderer/index.html']) {
      expect(fs.existsSync(path.join(copy.repo, 'out', built)), built).toBe(true);
    }
    onlyTheRepo();
  }, 180_000);

  it('`npm run build` from anywhere, then `npx walscope serve ROOT`, shows the demo and stops on Ctrl-C', async () => {
    fs.rmSync(path.join(copy.repo, 'out'), { recursive: true, force: true });
    // From the parent folder: a path resolved against the working folder would land right here.
    const build = startJob('npm', ['--prefix', 'walscope', 'run', 'build'], copy.parent, userEnv(copy.scratch));
    expect(await build.exited()).toBe(0);
    onlyTheRepo();

    const root = demoRootIn(copy.scratch);
    const serve = startJob('npx', ['walscope', 'serve', root], copy.repo, userEnv(copy.scratch));
    const url = await serve.waitFor(URL_PATTERN);
    await seesSessionList(url);
    expect([0, 'SIGINT']).toContain(await serve.interrupt());
    expect(await groupEnds(serve)).toBe(true);
    onlyTheRepo();
  }, 180_000);
});
