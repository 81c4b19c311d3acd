// The e2e run's screenshots of the main views, for docs/screenshots/ (the README shows them). Written only
// when WALSCOPE_SCREENSHOTS=1: ids, relative times and the live session differ on every run, so writing them
// always would leave every test run with changed PNGs in the working tree.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_DIR } from './serve-harness.js';

export const SCREENSHOTS_DIR = path.join(REPO_DIR, 'docs/screenshots');
const ENABLED = process.env['WALSCOPE_SCREENSHOTS'] === '1';

export async function saveScreenshot(page: Page, name: string): Promise<void> {
  if (!ENABLED) return;
  fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  // Pointer hover and the text caret would otherwise land in the picture wherever the last click was.
  await page.mouse.move(0, 0);
  await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `${name}.png`), caret: 'hide', animations: 'disabled' });
}
