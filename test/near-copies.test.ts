// Issue 15: a ranked list shows each passage once. Copies of a demo note (verbatim, and with a
// number changed) fold under the best-ranked one in `search`, in the library and the CLI, while
// `context` (Dartboard) is unaffected, and the folding can be switched off.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vault } from '../src/vault.js';
import { runCli, tempDir } from './helpers.js';

const tmp = tempDir('quiver-copies-');
const corpus = join(tmp.dir, 'corpus');
const db = join(tmp.dir, 'v.db');
const QUERY = 'cold brew concentrate steep hours filtered water';

beforeAll(async () => {
  cpSync('demo/corpus', corpus, { recursive: true });
  const original = readFileSync(join(corpus, 'coffee/cold-brew.txt'), 'utf8');
  writeFileSync(join(corpus, 'coffee/cold-brew-copy.txt'), original);
  writeFileSync(join(corpus, 'coffee/cold-brew-edited.txt'), original.replace('1:8 ratio', '1:7 ratio'));
  const v = await Vault.open({ overrides: { vault: db }, env: {} });
  await v.add([corpus]);
  await v.close();
}, 120_000);
afterAll(() => tmp.cleanup());

const isColdBrew = (source: string): boolean => /cold-brew/.test(source);

describe('near-copies in search', () => {
  it('fold under the best-ranked copy, and the list is still `limit` long', async () => {
    const v = await Vault.open({ overrides: { vault: db }, env: {} });
    const { hits } = await v.search(QUERY, { limit: 5 });
    expect(hits).toHaveLength(5);
    const brews = hits.filter((h) => isColdBrew(h.source));
    const head = brews.find((h) => (h.nearCopies ?? []).length > 0);
    expect(head).toBeDefined();
    // Every copy of the head's section is folded under it, none is shown beside it.
    const shown = new Set(hits.map((h) => h.sectionId));
    for (const c of head!.nearCopies!) {
      expect(isColdBrew(c.source)).toBe(true);
      expect(shown.has(c.sectionId)).toBe(false);
      expect(c.retrievalRank).toBeGreaterThan(head!.retrievalRank);
    }
    expect(new Set(hits.map((h) => `${h.title}|${h.snippets[0]}`)).size).toBe(hits.length);

    const off = await v.search(QUERY, { limit: 5, select: { foldNearCopies: false } });
    expect(off.hits.filter((h) => isColdBrew(h.source)).length).toBeGreaterThan(brews.length);
    expect(off.hits.every((h) => h.nearCopies === undefined)).toBe(true);
    await v.close();
  });

  it('the CLI says "+N near-copies" and --json lists them', async () => {
    const text = await runCli(['search', QUERY, '--limit', '5', '--vault', db], { env: { NO_COLOR: '1' } });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/\+\d near-cop(y|ies): .*cold-brew/);
    const json = await runCli(['search', QUERY, '--limit', '5', '--json', '--vault', db]);
    const out = json.json<{ results: { near_copies?: { source: string }[] }[] }>();
    expect(out.results.some((r) => (r.near_copies ?? []).some((c) => isColdBrew(c.source)))).toBe(true);
    const off = await runCli(['search', QUERY, '--limit', '5', '--json', '--vault', db], {
      env: { QUIVER_SEARCH_NEAR_COPIES: 'false' },
    });
    expect(
      off.json<{ results: { near_copies?: unknown }[] }>().results.every((r) => r.near_copies === undefined),
    ).toBe(true);
  });
});
