// Bundles the CLI (and the benchmark) into plain ESM under out/cli so `node bin/walscope.js` runs right
// after `npm install`. Packages stay external: native addons load from node_modules as usual.
import { build } from 'esbuild';

await build({
  entryPoints: { walscope: 'src-main/cli/main.ts', bench: 'scripts/bench.ts' },
  outdir: 'out/cli',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
