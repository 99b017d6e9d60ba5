#!/usr/bin/env node
// The quiver command. Runs the TypeScript sources through tsx, so `npx quiver …` works from a checkout.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const { processIO } = await import('../src/cli/io.ts');
const code = await main(process.argv.slice(2), processIO());
process.exitCode = code;
