#!/usr/bin/env node
// Launcher: the CLI is built into out/ by `npm install` (the prepare script runs scripts/build.mjs).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../out/cli/walscope.js', import.meta.url));
if (!existsSync(bundle)) {
  console.error('walscope: the CLI is not built; run `npm install` (or `npm run build`) in the walscope folder');
  process.exit(2);
}
await import(bundle);
