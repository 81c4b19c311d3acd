// Vitest's global setup: the one build (scripts/build.mjs, as `npm ci`, `npm start` and `npm run build` run it)
// into out/, once before any test file starts, so no two files rebuild out/ under each other's feet. And the
// summary cache of every service a test opens goes to one temporary folder, never the user's cache.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function buildOnce(): () => void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: path.resolve(import.meta.dirname, '..'), stdio: 'inherit' });
  const cache_dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walscope-test-cache-'));
  process.env['WALSCOPE_CACHE_DIR'] = cache_dir;
  return () => fs.rmSync(cache_dir, { recursive: true, force: true });
}
