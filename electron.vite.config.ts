// The desktop build (electron-vite), run by scripts/build.mjs: main process + session and compare workers →
// out/main, preload (CommonJS: a sandboxed preload cannot load ES modules) → out/preload/index.cjs, renderer →
// out/renderer, the folder `walscope serve` serves too. Every path is absolute, resolved from this file:
// electron-vite resolves a relative outDir against the working folder (not against `root`), which once put the
// renderer beside the clone.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

const REPO = path.dirname(fileURLToPath(import.meta.url));
const inRepo = (relative: string): string => path.join(REPO, relative);

export default defineConfig({
  main: {
    root: REPO,
    build: {
      outDir: inRepo('out/main'),
      rollupOptions: {
        input: { index: inRepo('src-main/electron/main.ts'), 'session-worker': inRepo('src-main/services/session-worker.ts'), 'compare-worker': inRepo('src-main/services/compare-worker.ts') },
        output: { format: 'es', entryFileNames: '[name].js' },
      },
    },
  },
  preload: {
    root: REPO,
    build: {
      outDir: inRepo('out/preload'),
      rollupOptions: {
        input: { index: inRepo('src-main/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: inRepo('src-renderer'),
    // Relative asset URLs: the same files load from http://127.0.0.1 and from file:// in Electron.
    base: './',
    // Nothing is copied verbatim: the favicon is referenced from index.html and bundled like any asset.
    publicDir: false,
    plugins: [react()],
    build: {
      outDir: inRepo('out/renderer'),
      emptyOutDir: true,
      target: 'es2022',
      minify: true,
      // No inline scripts or data: modules: the CSP allows only 'self'.
      assetsInlineLimit: 0,
      modulePreload: { polyfill: false },
      sourcemap: false,
      reportCompressedSize: false,
      rollupOptions: { input: inRepo('src-renderer/index.html') },
    },
  },
});
