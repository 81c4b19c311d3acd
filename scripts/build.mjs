// The one build: everything a user runs, into out/ inside this repository, whatever the working folder.
//   out/cli       the `walscope` CLI bundle and its session worker (esbuild; packages stay external, so native
//                 addons load from node_modules as usual)
//   out/main      the Electron main process and its session worker   ┐
//   out/preload   the preload (CommonJS)                              ├ electron-vite (electron.vite.config.ts)
//   out/renderer  the UI, served by `walscope serve` and the window   ┘
// Run by `npm ci` (prepare), `npm start`, `npm run build`, `npm run build:app` and the tests.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as bundle } from 'esbuild';
import { build as buildElectron } from 'electron-vite';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

await buildElectron({ root: REPO, configFile: path.join(REPO, 'electron.vite.config.ts'), logLevel: 'warn' });
await bundle({
  // The session worker is its own entry: the CLI's service runs it in a worker thread beside the CLI bundle. So is
  // the compare worker, which `serve --fleet` compares two hosts' sessions on.
  entryPoints: {
    walscope: path.join(REPO, 'src-main/cli/main.ts'),
    'session-worker': path.join(REPO, 'src-main/services/session-worker.ts'),
    'compare-worker': path.join(REPO, 'src-main/services/compare-worker.ts'),
  },
  outdir: path.join(REPO, 'out/cli'),
  absWorkingDir: REPO,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
