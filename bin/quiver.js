#!/usr/bin/env node
// The quiver command. Runs the TypeScript sources through tsx, so `npx quiver …` works from a checkout.
import { register } from 'tsx/esm/api';

register();
// A closed pipe (`quiver … | head`) ends the command quietly, as for any Unix tool.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}
const { main } = await import('../src/cli/main.ts');
const { processIO } = await import('../src/cli/io.ts');
const code = await main(process.argv.slice(2), processIO());
process.exitCode = code;
