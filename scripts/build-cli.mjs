// Bundles the CLI into plain ESM under out/cli so `node bin/walscope.js` runs right
// after `npm install`. Packages stay external: native addons load from node_modules as usual.
import { build } from 'esbuild';

await build({
  // The session worker is its own entry: the app's service runs it in a worker thread beside the CLI bundle.
  entryPoints: { walscope: 'src-main/cli/main.ts', 'session-worker': 'src-main/services/session-worker.ts' },
  outdir: 'out/cli',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
