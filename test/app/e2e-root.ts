// The state root the end-to-end tests open: the real demo root (`buildDemoRoot`, what `walscope demo` and
// `npm start` write), an export copied out of it before any test acts on it, and a session carrying hostile
// markup that a test writes with the engine beside the demo's while the page is open.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { buildDemoRoot } from '../../src-main/demo/build.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { steppedClock } from '../../src-main/runtime/clock.js';
import { resumeSession } from '../../src-main/recovery/actions.js';
import { launchChromium, serve, type LaunchedBrowser, type Served } from './serve-harness.js';
import { writeFinished } from './wal-fixture.js';

/** A fixed clock for the demo's records, so held-since times, tool outputs and screenshots repeat. */
const DEMO_CLOCK_START_MS = 1_750_000_000_000;
export const XSS_SESSION_ID = 'xss-probe';
export const XSS_TEXT = '<img src=x onerror="window.__walscope_xss=1"> see javascript:window.__walscope_xss=2';
/** The demo session whose copy is the read-only export. */
const EXPORTED_SESSION_ID = 'indeterminate';

export interface E2eRoot {
  root: string;
  export_file: string;
}

export function makeE2eRoot(work: string): E2eRoot {
  const root = path.join(work, 'root');
  buildDemoRoot(root, steppedClock(DEMO_CLOCK_START_MS));
  const exports = path.join(work, 'exports');
  fs.mkdirSync(exports);
  const export_file = path.join(exports, `${EXPORTED_SESSION_ID}-export.wal`);
  fs.copyFileSync(walPath(sessionDir(root, EXPORTED_SESSION_ID)), export_file);
  return { root, export_file };
}

/** The demo session a resumed copy is made of, and the copy's id: the crashed original beside its resumed run,
 *  the pair the compare view opens on (the close-out is their first divergence). */
export const CRASHED_SESSION_ID = 'indeterminate';
export const RESUMED_SESSION_ID = 'indeterminate-resumed';

/** A copy of the crashed demo session, in the same root, resumed as an operator resumes it (its close-out written). */
export function addResumedCopy(root: string): void {
  fs.cpSync(sessionDir(root, CRASHED_SESSION_ID), sessionDir(root, RESUMED_SESSION_ID), { recursive: true });
  const outcome = resumeSession(root, RESUMED_SESSION_ID, { audit: { operator: 'e2e', reason: 'resumed to compare with the original', via: 'cli' }, now_ms: () => DEMO_CLOCK_START_MS + 3_600_000 });
  if (outcome.kind !== 'done') throw new Error(`the resumed copy was not resumed: ${outcome.message}`);
}

export function writeXssSession(root: string): void {
  writeFinished(root, XSS_SESSION_ID, XSS_TEXT);
}

/** A copy of a demo session's WAL cut short, as a transfer that stopped early leaves it. */
export function cutCopy(root: string, session: string, into: string, cut_bytes: number): string {
  const file = path.join(into, `${session}-cut.wal`);
  const bytes = fs.readFileSync(walPath(sessionDir(root, session)));
  fs.writeFileSync(file, bytes.subarray(0, bytes.length - cut_bytes));
  return file;
}

/** A copy of a demo session's WAL with one bit flipped in the middle: damage with intact frames after it. */
export function flippedCopy(root: string, session: string, into: string): string {
  const file = path.join(into, `${session}-flipped.wal`);
  const bytes = Buffer.from(fs.readFileSync(walPath(sessionDir(root, session))));
  bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
  fs.writeFileSync(file, bytes);
  return file;
}

export interface ServedDemo {
  root: string;
  server: Served;
  chromium: LaunchedBrowser;
  page: Page;
  close(): Promise<void>;
}

/** The demo root in a fresh folder with a test's own sessions beside it (`add`), served, and a page of a fresh
 *  Chromium; `close` stops both and removes the folder. */
export async function serveDemo(prefix: string, add: (root: string) => void): Promise<ServedDemo> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const { root } = makeE2eRoot(work);
  add(root);
  const [server, chromium] = await Promise.all([serve(root), launchChromium()]);
  return {
    root,
    server,
    chromium,
    page: await chromium.context.newPage(),
    async close() {
      await chromium.close();
      await server.stop();
      fs.rmSync(work, { recursive: true, force: true });
    },
  };
}
