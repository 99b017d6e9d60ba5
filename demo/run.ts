// `npm run demo`: build a vault from the bundled demo corpus and show what quiver does, offline.
// Runs the real CLI (`main`) so every step printed is a command you can type yourself.
import { rmSync } from 'node:fs';
import { main } from '../src/cli/main.js';
import { processIO } from '../src/cli/io.js';

const VAULT = '.quiver/demo.db';
const io = processIO();

async function step(args: string[]): Promise<void> {
  process.stdout.write(`\n$ quiver ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}\n`);
  const code = await main([...args, '--vault', VAULT], io);
  if (code !== 0 && code !== 4) {
    process.stderr.write(`demo: step failed with exit code ${code}\n`);
    process.exit(code);
  }
}

if (process.argv.includes('--fresh')) rmSync('.quiver/demo.db', { force: true });

await step(['add', 'demo/corpus']);
await step(['search', 'What causes global warming besides greenhouse gases?', '--limit', '5']);
await step(['search', 'How long should an espresso shot take?', '--limit', '3']);
await step(['search', 'What temperature kills a sourdough starter?', '--limit', '3']);
await step(['ask', 'What causes global warming besides greenhouse gases?']);
await step(['ask', 'How long should an espresso shot take?']);
process.stdout.write(
  '\nThe vault is in .quiver/demo.db; try: npx quiver search "your question" --vault .quiver/demo.db\n',
);
