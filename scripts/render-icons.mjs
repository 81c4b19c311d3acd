// Renders resources/icon.svg into the PNG sizes Electron and Linux desktops use (resources/icons/NxN.png), in
// Debian's Chromium (the browser the tests use), with a transparent background. The PNGs are committed; run
// this again after changing the SVG: `node scripts/render-icons.mjs`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SIZES_PX = [16, 32, 48, 64, 128, 256, 512];
const svg = fs.readFileSync(path.join(REPO, 'resources/icon.svg'), 'utf8');

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
try {
  const page = await browser.newPage();
  for (const size_px of SIZES_PX) {
    await page.setViewportSize({ width: size_px, height: size_px });
    const sized = svg.replace(/width="512" height="512"/, `width="${size_px}" height="${size_px}"`);
    await page.setContent(`<!doctype html><html><body style="margin:0;background:transparent">${sized}</body></html>`);
    await page.screenshot({ path: path.join(REPO, `resources/icons/${size_px}x${size_px}.png`), omitBackground: true, clip: { x: 0, y: 0, width: size_px, height: size_px } });
  }
} finally {
  await browser.close();
}
