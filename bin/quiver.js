#!/usr/bin/env node
// The quiver command. Runs the compiled CLI, bundled into dist/cli-bundle (built by `npm run build`,
// which `npm ci` and `npm pack` run; see scripts/bundle-cli.mjs). In a checkout whose sources changed since that build, it runs the sources
// through tsx instead, so `npx quiver` never runs stale code.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const dist = here('../dist/cli-bundle/main.js');
const src = here('../src/');

/** Newest modification time of the library sources (tests excluded), in ms. */
function newestSource(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = `${dir}${e.name}`;
    if (e.isDirectory()) newest = Math.max(newest, newestSource(`${p}/`));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
      newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

const compiled = existsSync(dist) && (!existsSync(src) || newestSource(src) <= statSync(dist).mtimeMs);
if (!compiled) (await import('tsx/esm/api')).register();
// A closed pipe (`quiver … | head`) ends the command quietly, as for any Unix tool.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}
const base = compiled ? '../dist/cli-bundle/' : '../src/cli/';
const ext = compiled ? '.js' : '.ts';
const { main } = await import(`${base}main${ext}`);
const { processIO } = await import(`${base}io${ext}`);
process.exitCode = await main(process.argv.slice(2), processIO());
