// Vitest's global setup: the one build (scripts/build.mjs, as `npm ci`, `npm start` and `npm run build` run it)
// into out/, once before any test file starts, so no two files rebuild out/ under each other's feet.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export default function buildOnce(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: path.resolve(import.meta.dirname, '..'), stdio: 'inherit' });
}
