// A bundle opened from file:// in Chromium with every request routed and refused: what the page asked for, the
// dialogs it opened, the CSP violations it caused, and what it shows.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { walPath } from '../../src-main/engine/state-root.js';

const REPO = path.resolve(import.meta.dirname, '../..');

/** `walscope bundle ARGS…` through the built CLI, as a user runs it. */
export const bundleCli = (...args: string[]) => spawnSync(process.execPath, ['bin/walscope.js', 'bundle', ...args], { cwd: REPO, encoding: 'utf8' });

/** The bundle of the session at `folder` written to `out`, quietly and with status 0; its WAL's bytes the same
 *  after. Returns the page. */
export function bundleTo(folder: string, out: string, ...flags: string[]): string {
  const wal = walPath(folder);
  const before = fs.readFileSync(wal);
  const made = bundleCli(folder, '--out', out, ...flags);
  expect(made.stderr).toBe('');
  expect(made.status).toBe(0);
  expect(fs.readFileSync(wal).equals(before)).toBe(true);
  return fs.readFileSync(out, 'utf8');
}

export interface OpenedBundle {
  page: Page;
  /** Every request the page made besides loading its own file. */
  requests: string[];
  dialogs: string[];
  violations(): Promise<string[]>;
}

export async function openBundle(context: BrowserContext, file: string): Promise<OpenedBundle> {
  const url = pathToFileURL(file).href;
  const requests: string[] = [];
  const dialogs: string[] = [];
  // Anything but the page's own file is refused (and counted below): no network, no other file.
  const page = await context.newPage();
  await page.route((target) => target.href !== url, (route) => route.abort());
  page.on('request', (request) => {
    if (request.url() !== url) requests.push(request.url());
  });
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  // Injected by the driver (past the page's CSP): a record of what the CSP refused.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  await page.goto(url);
  return { page, requests, dialogs, violations: () => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations) };
}

/** Shows step `index`'s request (by its button) and returns the request view's messages. */
export async function showStep(page: Page, index: number): Promise<number> {
  await page.locator(`button[data-step-index="${index}"]`).click();
  await page.locator(`#request-view[data-step-index="${index}"]`).waitFor();
  return page.locator('#request-view li').count();
}

/** The step whose request holds the most messages (by the page's own numbers), or null when there is no step. */
export async function longestRequest(page: Page): Promise<number | null> {
  return page.evaluate(() => {
    const data = JSON.parse(document.getElementById('walscope-requests')!.textContent!) as { steps: { runs: [number, number][] }[] };
    let best: number | null = null;
    let most = -1;
    data.steps.forEach((step, index) => {
      const count = step.runs.reduce((sum, [from, to]) => sum + to - from, 0);
      if (count > most) [best, most] = [index, count];
    });
    return best;
  });
}
