// Cold start of the CLI (issue 14): `quiver --help`, `search`, `ask` and `add` of one file on the
// demo vault, median of 10 runs each, beside the floor of starting any Node process (`node -e 0`)
// and a native CLI (`sqlite3 :memory: .quit`, when installed), all in the same run.
// `npm run bench -- cli-start`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mdTable, median, OUT_DIR, writeSection } from './lib.js';

const RUNS = 10;

/** Wall milliseconds of each of `RUNS` runs of a command (after one untimed run). */
function time(cmd: string, args: readonly string[]): number[] {
  const once = (): number => {
    const t = performance.now();
    const r = spawnSync(cmd, args, { stdio: 'ignore', env: { ...process.env, QUIVER_PROGRESS: 'false' } });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`);
    return performance.now() - t;
  };
  once();
  return Array.from({ length: RUNS }, once);
}

export async function benchCliStart(): Promise<void> {
  const dir = join(OUT_DIR, 'cli-start');
  mkdirSync(dir, { recursive: true });
  const vault = join(dir, 'demo.db');
  for (const s of ['', '-wal', '-shm']) rmSync(vault + s, { force: true });
  const quiver = (...args: string[]): [string, string[]] => [process.execPath, ['bin/quiver.js', ...args]];
  const setup = spawnSync(...quiver('add', 'demo/corpus', '--vault', vault, '--quiet'), { stdio: 'ignore' });
  if (setup.status !== 0) throw new Error('cli-start: demo ingest failed');
  const note = join(dir, 'note.md');
  writeFileSync(
    note,
    '# A note\n\nThe bench adds this one file again and again (unchanged after the first).\n',
  );

  const rows: [string, number[]][] = [
    ['node -e 0 (floor: any Node process)', time(process.execPath, ['-e', '0'])],
  ];
  if (existsSync('/usr/bin/sqlite3'))
    rows.push(['sqlite3 :memory: .quit', time('/usr/bin/sqlite3', [':memory:', '.quit'])]);
  rows.push(
    ['quiver --help', time(...quiver('--help'))],
    ['quiver search (demo vault)', time(...quiver('search', 'espresso extraction time', '--vault', vault))],
    [
      'quiver ask (demo vault, extractive)',
      time(...quiver('ask', 'How long should espresso extract?', '--vault', vault)),
    ],
    ['quiver add one file', time(...quiver('add', note, '--vault', vault, '--quiet'))],
  );
  const goals: Record<string, string> = { 'quiver --help': '≤ 150', 'quiver search (demo vault)': '≤ 300' };
  writeSection(
    'cli-start',
    `## CLI cold start (\`npm run bench -- cli-start\`)

Wall time of a whole process, median of ${RUNS} runs after one untimed run, all in one run of the
bench. \`bin/quiver.js\` runs the CLI bundled by esbuild (\`dist/cli-bundle\`: a few modules instead
of about 120), and loads only what a command needs: zod, marked, hnswlib, jsdom, pdf.js and the
openai SDK on first use, the readers only for \`add\`. The floor is the first row: a search spends
about two thirds of its time starting Node and loading code, the rest opening the vault and
searching. Medians move by ±20 ms with the machine's load.

${mdTable(
  ['command', 'median ms', 'min ms', 'goal ms'],
  rows.map(([name, ms]) => [name, median(ms).toFixed(0), Math.min(...ms).toFixed(0), goals[name] ?? '']),
)}
`,
  );
}
