// Vault size (issue 15): SciFact and Cranfield ingested with the default configuration, the file's
// bytes per table (SQLite's dbstat), bytes per chunk and free pages after `add`; beside it, the same
// vault with its vectors rewritten as the previous release stored them (float32 rows in a WITHOUT
// ROWID table) and vacuumed, measured in the same run. `npm run bench -- vault-size`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { blobToVector } from '../src/store/sqlite/vector-blob.js';
import { cranfieldAsBeir } from './datasets/cranfield.js';
import { DATA_DIR, dataPath, mdTable, OUT_DIR, writeSection } from './lib.js';

interface Size {
  file: number;
  free: number;
  chunks: number;
  tables: Record<string, number>;
}

function measure(path: string): Size {
  const db = new Database(path, { readonly: true });
  const page = db.pragma('page_size', { simple: true }) as number;
  const free = (db.pragma('freelist_count', { simple: true }) as number) * page;
  const chunks = (db.prepare('SELECT COUNT(*) AS n FROM chunks WHERE live = 1').get() as { n: number }).n;
  const rows = db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name').all() as {
    name: string;
    bytes: number;
  }[];
  db.close();
  const group = (name: string): string =>
    name.startsWith('sections_fts') ? 'full-text index' : name.startsWith('vectors') ? 'vectors' : name;
  const tables: Record<string, number> = {};
  for (const r of rows) tables[group(r.name)] = (tables[group(r.name)] ?? 0) + r.bytes;
  return { file: statSync(path).size, free, chunks, tables };
}

/** A copy of `path` with its vectors stored as the previous release did, vacuumed. */
function previousLayout(path: string, out: string): void {
  rmSync(out, { force: true });
  const db = new Database(path, { readonly: true });
  db.exec(`VACUUM INTO '${out.replace(/'/g, "''")}'`);
  db.close();
  const old = new Database(out);
  old.exec(`CREATE TABLE vectors_f32 (fingerprint TEXT NOT NULL, chunk_id INTEGER NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (fingerprint, chunk_id)) WITHOUT ROWID`);
  const ins = old.prepare('INSERT INTO vectors_f32 VALUES (?, ?, ?)');
  old.transaction(() => {
    for (const r of old.prepare('SELECT fingerprint, chunk_id, vector FROM vectors').all() as {
      fingerprint: string;
      chunk_id: number;
      vector: Buffer;
    }[]) {
      const v = blobToVector(r.vector);
      ins.run(r.fingerprint, r.chunk_id, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
    }
    old.exec('DROP TABLE vectors');
  })();
  old.exec('VACUUM');
  old.close();
}

const mb = (b: number): string => (b / 1e6).toFixed(1);

export async function benchVaultSize(): Promise<void> {
  const dir = join(OUT_DIR, 'vault-size');
  mkdirSync(dir, { recursive: true });
  const sets: [string, string | null][] = [
    ['SciFact', dataPath('scifact', 'corpus.jsonl')],
    [
      'Cranfield',
      cranfieldAsBeir(DATA_DIR, join(dir, 'cranfield')) === null
        ? null
        : join(dir, 'cranfield', 'corpus.jsonl'),
    ],
  ];
  const rows: (string | number)[][] = [];
  for (const [name, corpus] of sets) {
    if (corpus === null) continue;
    const vault = join(dir, `${name}.db`);
    for (const s of ['', '-wal', '-shm']) rmSync(vault + s, { force: true });
    const r = spawnSync(process.execPath, ['bin/quiver.js', 'add', corpus, '--vault', vault, '--quiet'], {
      stdio: 'ignore',
    });
    if (r.status !== 0 && r.status !== 4)
      throw new Error(`vault-size: ingesting ${name} failed (${r.status})`);
    const now = measure(vault);
    const prevPath = join(dir, `${name}-previous.db`);
    previousLayout(vault, prevPath);
    const prev = measure(prevPath);
    for (const [label, s] of [
      ['this release', now],
      ['previous layout (float32, WITHOUT ROWID)', prev],
    ] as const)
      rows.push([
        name,
        label,
        s.chunks,
        mb(s.file),
        Math.round(s.file / s.chunks),
        mb(s.free),
        mb(s.tables['vectors'] ?? 0),
        mb(s.tables['full-text index'] ?? 0),
        mb((s.tables['sections'] ?? 0) + (s.tables['chunks'] ?? 0) + (s.tables['documents'] ?? 0)),
      ]);
  }
  writeSection(
    'vault-size',
    `## Vault size (\`npm run bench -- vault-size\`)

Each corpus ingested by \`quiver add\` with the default configuration (built-in embedder, 512
dimensions; its IDF refit re-embeds every chunk once, and the vault then gives the freed pages back),
then measured with SQLite's \`dbstat\`. The second row of each set is the same vault rewritten as the
previous release stored vectors (float32, in a WITHOUT ROWID table where a 2 KiB row spills to an
overflow page) and vacuumed. Retrieval quality is the same with half-precision vectors: \`quiver
eval\` gives identical nDCG@10 and recall@100 (4 decimals) on SciFact train and Cranfield at
\`--limit\` 10 and 100 (README, "Vector storage"). MB = 10⁶ bytes.

${mdTable(
  [
    'corpus',
    'layout',
    'chunks',
    'file MB',
    'bytes/chunk',
    'free MB',
    'vectors MB',
    'full-text MB',
    'text tables MB',
  ],
  rows,
)}
`,
  );
}
