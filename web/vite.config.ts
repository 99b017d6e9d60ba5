// Builds the web page of `quiver serve` into dist/web (run from the repository root by `npm run build`).
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'web',
  base: '/',
  plugins: [preact()],
  // Nothing is fetched at build or run time: no CDN, no web fonts, every file under dist/web.
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    target: 'es2022',
    // The page's CSP allows no inline script, so the preload polyfill (inline-free anyway) is left out.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
