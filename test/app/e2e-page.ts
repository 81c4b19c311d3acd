// What the end-to-end tests do on a page of `walscope serve`: open a session from the list, and audit the page with
// axe-core.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** A terminal escape, or what is left of one when its ESC is dropped ("[31m"): never on the page as text. */
// eslint-disable-next-line no-control-regex -- the ESC is what it looks for
export const ESCAPE_REMAINS = /\u001b|\[(?:\d+;)*\d+m/;

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Opens a session from the list, found by its id first: the list is virtualized, and a row out of view is not in
 *  the page. The search is cleared after, so the list is whole again. */
export async function openListedSession(page: Page, key: string): Promise<void> {
  const search = page.locator('[data-testid=session-search]');
  await search.fill(key);
  await page.locator(`[data-testid=session-row][data-session="${key}"]`).click();
  await page.locator(`[data-testid=session-view][data-session="${key}"]`).waitFor();
  await search.fill('');
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's serious and critical violations on the page as it is now (injected past the CSP by the driver). */
export async function seriousViolations(page: Page): Promise<{ id: string; help: string; targets: string[] }[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ id: violation.id, help: violation.help, targets: violation.nodes.slice(0, 5).map((node) => node.target.join(' ')) }));
}
