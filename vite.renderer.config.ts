// Builds the renderer alone (src-renderer → out/renderer) for `walscope serve` and the end-to-end tests; the
// Electron build (electron.vite.config.ts) uses the same settings for its renderer.
import react from '@vitejs/plugin-react';
import { defineConfig, type UserConfig } from 'vite';

export const rendererConfig: UserConfig = {
  root: 'src-renderer',
  // Relative asset URLs: the same files load from http://127.0.0.1 and from file:// in Electron.
  base: './',
  plugins: [react()],
  build: {
    outDir: '../out/renderer',
    emptyOutDir: true,
    target: 'es2022',
    // No inline scripts or data: modules: the CSP allows only 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
  },
};

export default defineConfig(rendererConfig);
