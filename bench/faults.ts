// Faults (issue 13): kills and races repeated N times against real CLI processes on real vault
// files; what was lost, left without vectors or locked out afterwards; and the search latency a
// reader in another process sees while a large add runs. `npm run bench -- faults`
// (FAULT_RUNS=N repeats each scenario N times; default 5).
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Vault } from '../src/index.js';
import { quiver, startQuiver, until, vaultCounts, writeNotes } from '../test/faults.js';
import { mdTable, median, OUT_DIR, percentile, writeSection } from './lib.js';

const RUNS = Number(process.env.FAULT_RUNS ?? 5) || 5;
const dir = join(OUT_DIR, 'faults');

interface Outcome {
  expected: number;
  documents: number;
  chunksWithoutVector: number;
  staleVectors: number;
  lockedOut: number;
}

function drop(path: string): void {
  for (const s of ['', '-wal', '-shm', '.lexical']) rmSync(path + s, { force: true });
}

/** Commands a person runs after a fault; each non-zero exit counts as locked out. */
async function lockedOut(vault: string): Promise<number> {
  let n = 0;
  for (const args of [['search', 'coffee bread'], ['batches'], ['docs'], ['doctor']]) {
    const r = await quiver([...args, '--vault', vault, '--quiet']);
    if (r.code !== 0) n++;
  }
  return n;
}

/** After the fault: who is locked out, then re-add everything (the user's repair) and count. */
async function settle(vault: string, folders: readonly string[], expected: number): Promise<Outcome> {
  const locked = await lockedOut(vault);
  for (const f of folders) {
    const r = await quiver(['add', f, '--vault', vault, '--quiet', '--wait', '120']);
    if (r.code !== 0) throw new Error(`re-add failed (${r.code}): ${r.stderr}`);
  }
  const c = vaultCounts(vault);
  return {
    expected,
    documents: c.documents,
    chunksWithoutVector: c.chunksWithoutVector,
    staleVectors: c.staleVectors,
    lockedOut: locked,
  };
}

type Scenario = { name: string; run: (i: number) => Promise<Outcome> };

export async function benchFaults(): Promise<void> {
  const notes = writeNotes(join(dir, 'notes'), 'n', 2000, 1);
  const small = writeNotes(join(dir, 'small'), 's', 50, 2);
  const parts = [0, 1, 2].map((i) => writeNotes(join(dir, `part-${i}`), `p${i}`, 400, 10 + i));
  const fresh = (i: number, name: string): string => {
    const p = join(dir, `${name}-${i}.db`);
    drop(p);
    return p;
  };

  const scenarios: Scenario[] = [
    {
      name: 'kill -9 at a random moment of add',
      run: async (i) => {
        const vault = fresh(i, 'kill');
        const add = startQuiver(['add', notes, '--vault', vault, '--quiet']);
        const target = 100 + ((i * 337) % 1500);
        await until(() => existsSync(vault) && vaultCounts(vault).documents >= target, 60_000, 'documents');
        add.child.kill('SIGKILL');
        await add.done;
        return settle(vault, [notes], 2000);
      },
    },
    ...(['refit.fitted', 'reindex.batch:2', 'ingest.flush:5', 'writer.claimed'] as const).map(
      (point): Scenario => ({
        name: `kill -9 at ${point}`,
        run: async (i) => {
          const vault = fresh(i, point.replace(/[.:]/g, '-'));
          await quiver(['add', notes, '--vault', vault, '--quiet'], { QUIVER_FAILPOINT: point });
          return settle(vault, [notes], 2000);
        },
      }),
    ),
    {
      name: 'undo while add runs',
      run: async (i) => {
        const vault = fresh(i, 'undo');
        await quiver(['add', small, '--vault', vault, '--quiet']);
        const add = startQuiver(['add', notes, '--vault', vault, '--quiet']);
        await new Promise((r) => setTimeout(r, 300 + 400 * (i % 3)));
        await quiver(['undo', '--vault', vault]);
        await add.done;
        // Whatever the order, the vault holds whole batches: the small one, the big one, or both.
        const c = vaultCounts(vault);
        const live = c.batches.filter((b) => b.status !== 'rolled_back').reduce((n, b) => n + b.added, 0);
        return { ...(await settle(vault, [], live)), documents: c.documents };
      },
    },
    {
      name: '3 concurrent adds + an outside write lock',
      run: async (i) => {
        const vault = fresh(i, 'conc');
        await quiver(['init', '--vault', vault]);
        const outside = new Database(vault);
        outside.exec('BEGIN IMMEDIATE');
        const adds = parts.map((p) => startQuiver(['add', p, '--vault', vault, '--quiet', '--wait', '120']));
        await new Promise((r) => setTimeout(r, 1000 + 300 * i));
        outside.exec('COMMIT');
        outside.close();
        await Promise.all(adds.map((a) => a.done));
        const c = vaultCounts(vault);
        const locked = await lockedOut(vault);
        return {
          expected: 1200,
          documents: c.documents,
          chunksWithoutVector: c.chunksWithoutVector,
          staleVectors: c.staleVectors,
          lockedOut: locked,
        };
      },
    },
    {
      name: 'SIGINT during add',
      run: async (i) => {
        const vault = fresh(i, 'sigint');
        const add = startQuiver(['add', notes, '--vault', vault, '--quiet']);
        const target = 100 + ((i * 211) % 1200);
        await until(() => existsSync(vault) && vaultCounts(vault).documents >= target, 60_000, 'documents');
        add.child.kill('SIGINT');
        const r = await add.done;
        if (r.code !== 130) throw new Error(`SIGINT: exit ${r.code}`);
        return settle(vault, [notes], 2000);
      },
    },
  ];

  const rows: (string | number)[][] = [];
  for (const s of scenarios) {
    const outcomes: Outcome[] = [];
    for (let i = 0; i < RUNS; i++) outcomes.push(await s.run(i));
    const sum = (f: (o: Outcome) => number): number => outcomes.reduce((n, o) => n + f(o), 0);
    rows.push([
      s.name,
      RUNS,
      sum((o) => o.expected),
      sum((o) => Math.max(0, o.expected - o.documents)),
      sum((o) => o.chunksWithoutVector),
      sum((o) => o.staleVectors),
      sum((o) => o.lockedOut),
    ]);
    process.stderr.write(`faults: ${s.name} done\n`);
  }

  // A reader in this process searches while another process adds 2,000 notes to a vault that
  // already holds 6,000 (above the lexical index threshold, with HNSW on from 5,000 chunks).
  const vault = fresh(0, 'reader');
  const env = { QUIVER_ANN_THRESHOLD: '5000' };
  const base = writeNotes(join(dir, 'base'), 'b', 6000, 9);
  await quiver(['add', base, '--vault', vault, '--quiet'], env);
  const reader = await Vault.open({ overrides: { vault, 'ann.threshold': 5000 }, readonly: true });
  const queries = ['coffee bread', 'river mountain', 'honey bee swarm', 'climate warming ocean', 'espresso'];
  const times: number[] = [];
  const add = startQuiver(['add', notes, '--vault', vault, '--quiet'], env);
  let running = true;
  void add.done.then(() => (running = false));
  let q = 0;
  while (running) {
    // Searches are synchronous SQLite work: yield so the child's exit event can be seen.
    await new Promise((r) => setImmediate(r));
    const t = performance.now();
    await reader.search(queries[q++ % queries.length]!, { limit: 10 });
    times.push(performance.now() - t);
  }
  await reader.close();
  const latency = mdTable(
    ['searches during the add', 'p50 ms', 'p99 ms', 'max ms'],
    [
      [
        times.length,
        median(times).toFixed(1),
        percentile(times, 99).toFixed(1),
        Math.max(...times).toFixed(0),
      ],
    ],
  );

  writeSection(
    'faults',
    `## Faults: kills and races (\`npm run bench -- faults\`)

Each scenario runs ${RUNS} times against real \`quiver\` processes on a fresh vault file: a SIGKILL at
a random moment of an add or at a named crash point (\`src/_failpoint.ts\`), an \`undo\` racing an
add, three adds at once while an outside connection holds SQLite's write lock, and Ctrl-C
(SIGINT). Afterwards \`search\`, \`batches\`, \`docs\` and \`doctor\` are run (each non-zero exit is
"locked out"), then the folders are added again as a user would, and the vault is counted
directly with SQLite. Goal: 0 in every column after "expected".

${mdTable(
  [
    'scenario',
    'runs',
    'documents expected',
    'documents lost',
    'chunks without vector',
    'stale vectors',
    'commands locked out',
  ],
  rows,
)}

Search latency seen by a reader in another process while an add of 2,000 notes runs on a vault of
6,000 (12,000 sections: the lexical index is on; HNSW above 5,000 chunks). Searches never wait for
an index build: a search reconciles an index only when few rows changed, else answers from FTS5
or the exact scan until the writer has brought the index up to date.

${latency}
`,
  );
}
