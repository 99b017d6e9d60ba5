// A crash mid-batch leaves no half-written document: a child process is SIGKILLed while ingesting.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDocument } from '../src/ingest/build.js';
import type { ParsedDocument } from '../src/ingest/parsed.js';
import { readPath } from '../src/ingest/read-source.js';
import { Vault } from '../src/index.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('quiver-crash-');
afterAll(() => tmp.cleanup());

function paragraph(i: number, j: number): string {
  return `Paragraph ${j} of note ${i} describes experiment ${i * 31 + j}: the sample was heated, cooled and measured again. `.repeat(
    6,
  );
}

describe('crash safety', () => {
  it('a SIGKILL mid-ingest leaves only whole documents, and undo removes the interrupted batch', async () => {
    const folder = join(tmp.dir, 'notes');
    mkdirSync(folder);
    for (let i = 0; i < 400; i++) {
      const body = Array.from({ length: 6 }, (_, j) => `## Part ${j}\n\n${paragraph(i, j)}`).join('\n\n');
      writeFileSync(join(folder, `note-${String(i).padStart(3, '0')}.md`), `# Note ${i}\n\n${body}\n`);
    }
    const vaultPath = join(tmp.dir, 'crash.db');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/fixtures/ingest-child.ts', vaultPath, folder],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let seen = 0;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const killedAt = await new Promise<number>((resolveKill, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        seen += d
          .toString()
          .split('\n')
          .filter((l) => l.startsWith('added')).length;
        if (seen >= 40 && !child.killed) {
          child.kill('SIGKILL');
          resolveKill(seen);
        }
      });
      child.on('exit', (code) => {
        if (seen < 40) reject(new Error(`child exited early (${code}): ${stderr}`));
      });
    });
    await new Promise((r) => child.on('exit', r));
    expect(killedAt).toBeGreaterThanOrEqual(40);

    const db = new Database(vaultPath);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const docs = db.prepare('SELECT id, source FROM documents WHERE superseded_by IS NULL').all() as {
      id: string;
      source: string;
    }[];
    expect(docs.length).toBeGreaterThanOrEqual(40);
    expect(docs.length).toBeLessThan(400);
    // Every document present is whole: the sections and chunks a fresh build would write.
    for (const d of docs) {
      const parsed = await readPath(join(tmp.dir, d.source), d.source);
      const [first] = [...(parsed.docs as Iterable<ParsedDocument>)];
      const built = buildDocument(first!);
      const sections = db
        .prepare('SELECT COUNT(*) AS n FROM sections WHERE doc_id = ? AND live = 1')
        .get(d.id) as { n: number };
      const chunks = db
        .prepare('SELECT COUNT(*) AS n FROM chunks WHERE doc_id = ? AND live = 1')
        .get(d.id) as { n: number };
      const vectors = db
        .prepare('SELECT COUNT(*) AS n FROM vectors v JOIN chunks c ON c.id = v.chunk_id WHERE c.doc_id = ?')
        .get(d.id) as { n: number };
      expect([sections.n, chunks.n, vectors.n]).toEqual([
        built.sections.length,
        built.chunks.length,
        built.chunks.length,
      ]);
    }
    const live = (db.prepare('SELECT COUNT(*) AS n FROM sections WHERE live = 1').get() as { n: number }).n;
    const fts = (db.prepare('SELECT COUNT(*) AS n FROM sections_fts').get() as { n: number }).n;
    expect(fts).toBe(live);
    const batch = db.prepare('SELECT status FROM batches').get() as { status: string };
    expect(batch.status).toBe('running');
    db.close();

    const vault = await Vault.open({ overrides: { vault: vaultPath } });
    const r = await vault.undo();
    expect(r.removed).toBe(docs.length);
    expect((await vault.stats()).documents).toBe(0);
    await vault.close();
  });
});
