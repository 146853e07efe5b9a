// Builds the web console into dist/console, served by `tidings serve` at /console (src/api/console/static-files.ts).
// JSX goes through Vite's own transform with Preact's runtime; no plugin. Nothing is inlined: the server's CSP
// (src/api/console/headers.ts) allows no inline script or style, so every asset is a file of this origin.
import { defineConfig } from 'vite'
import { fileURLToPath } from 'node:url'

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    // The modulepreload polyfill would be a script in index.html; every browser the console supports has modulepreload.
    modulePreload: { polyfill: false },
    target: 'es2022',
    reportCompressedSize: false,
  },
})
