#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli, from tsc) into a few ES modules in dist/cli-bundle, so a cold
// `quiver search` loads a handful of files instead of about 120 (module loading was most of its start
// time). Commands stay separate chunks, loaded when run; every package stays external, so the
// library's lazy loads (jsdom, pdf.js, openai, zod, hnswlib) still happen only when needed.
import { build } from 'esbuild';

await build({
  // The batch-search worker is its own entry: a worker thread is started from a file.
  entryPoints: ['dist/cli/main.js', 'dist/cli/io.js', 'dist/cli/batch-search-worker.js'],
  outdir: 'dist/cli-bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // Less to parse at start; names are kept, so stack traces (QUIVER_DEBUG=1) stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: true,
  logLevel: 'warning',
});
