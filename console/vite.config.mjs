// The store console's build: a static single-page app in console/dist, deployable to any host.
// `npm run build` (console/build.mjs) and `npm start` (when dist is missing or stale) build with this file;
// `npx vite --config console/vite.config.mjs` is a dev server that forwards the API to a running `npm start`.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const API = process.env.CONSOLE_API ?? 'http://127.0.0.1:54321';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // Relative asset URLs: the same files work under /console/ locally and under any path on a static host.
  base: './',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    chunkSizeWarningLimit: 1200,
  },
  server: {
    proxy: {
      '/functions': API,
      '/local': API,
      '/config.json': { target: API, rewrite: () => '/console/config.json' },
    },
  },
  logLevel: 'warn',
});
