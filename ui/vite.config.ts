/// <reference types="vitest/config" />
// The window's build, dev server and unit tests. Run from the repo root through the npm scripts
// (`npm run ui:build`, `ui:dev`, `ui:test`); the root here is ui/ and the build lands in ui/dist,
// which the engine serves at `/` and Tauri loads as `frontendDist`.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

// `npm run ui:dev` talks to a running engine (`sentient serve`). Point it elsewhere with
// SENTIENT_ENGINE_URL; open the dev page with the engine's `#token=...` fragment.
const engine = process.env.SENTIENT_ENGINE_URL ?? 'http://127.0.0.1:8765';

export default defineConfig({
  root,
  // One cache beside the top-level node_modules (not ui/node_modules).
  cacheDir: fileURLToPath(new URL('../node_modules/.vite', import.meta.url)),
  // Relative asset paths, so the same build works under Tauri and when the engine serves it.
  base: './',
  // React's automatic JSX runtime through esbuild (no React plugin needed).
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    rollupOptions: {
      onwarn(warning, warn) {
        // react-query marks its modules "use client" (a React Server Components hint that means
        // nothing in a plain bundle); rollup warns about each one.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE' || warning.code === 'SOURCEMAP_ERROR') return;
        warn(warning);
      },
    },
  },
  server: {
    port: 5173,
    strictPort: true,
    proxy: {
      '/api': { target: engine, changeOrigin: true },
      '/ws': { target: engine.replace(/^http/, 'ws'), ws: true },
    },
  },
  clearScreen: false,
  test: {
    root,
    environment: 'jsdom',
    globals: true,
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
    // A test's finds wait up to 5 s (src/test/setup.ts) for pages loaded when first shown; the
    // test itself gets room for a few of those on a busy 2-core CI machine.
    testTimeout: 20000,
  },
});
