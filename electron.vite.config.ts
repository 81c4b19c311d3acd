// The desktop build (electron-vite): main process + session worker → out/main, preload (CommonJS: a sandboxed
// preload cannot load ES modules) → out/preload/index.cjs, renderer → out/renderer, as for `walscope serve`.
import { defineConfig } from 'electron-vite';
import { rendererConfig } from './vite.renderer.config.js';

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: { index: 'src-main/electron/main.ts', 'session-worker': 'src-main/services/session-worker.ts' },
        output: { format: 'es', entryFileNames: '[name].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: 'src-main/preload/index.ts' },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    ...rendererConfig,
    build: { ...rendererConfig.build, minify: true, rollupOptions: { input: 'src-renderer/index.html' } },
  },
});
