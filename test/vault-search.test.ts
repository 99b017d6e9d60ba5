// Search input, the vector floor, heading-only snippets and PDF page ranges, end to end through the
// real Vault on a real SQLite file with the built-in embedder (and a "semantic" wrapper of it).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHashingEmbedder, isQuiverError, Vault, type Embedder } from '../src/index.js';
import { tempDir } from './helpers.js';

const DOCS: Record<string, string> = {
  'coffee.md': `# Brewing Coffee

Grind the beans just before brewing. A burr grinder gives an even grind and a sweeter cup.

## Water

Use water just off the boil, around 93 °C, and weigh it: 16 g of water for each gram of coffee.
`,
  'garden.md': `# Garden Notes

Tomatoes want full sun, deep watering twice a week, and a stake before the first truss sets.

## Compost

Turn the heap every fortnight; a warm heap breaks kitchen scraps down in about three months.
`,
  // A title straight into a sub-heading, and a chain of three headings before any text.
  'headings.md': `# Hive Handbook

## Inspection

Open the hive on a calm warm day and look for eggs, larvae and a laying pattern.

# Winter Stores

## Feeding

### Fondant

Put a block of fondant over the crown board once the colony stops taking syrup.
`,
  'tokyo.md': `# 東京

東京。タワー。展望台から富士山が見える。
`,
};

async function makePdf(pages: string[][]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([400, 600]);
    let y = 560;
    for (const line of lines) {
      page.drawText(line, { x: 40, y, size: 12, font });
      y -= 15;
    }
  }
  return doc.save();
}

const tmp = tempDir('quiver-vault-search-');
const corpus = join(tmp.dir, 'corpus');
let vault: Vault;

beforeAll(async () => {
  mkdirSync(corpus, { recursive: true });
  for (const [name, text] of Object.entries(DOCS)) writeFileSync(join(corpus, name), text);
  writeFileSync(
    join(corpus, 'turbine.pdf'),
    await makePdf([
      ['Turbine blade inspection report.', 'Blades were cleaned and weighed.'],
      ['Two blades showed erosion on the leading edge.'],
      ['The turbine returned to service after balancing.'],
    ]),
  );
  writeFileSync(
    join(corpus, 'late.pdf'),
    await makePdf([[], ['Rotor torque was measured on the second page.'], ['And the rotor cooled.']]),
  );
  vault = await Vault.open({ overrides: { vault: join(tmp.dir, 'vault.db') }, env: {} });
  const report = await vault.add([corpus]);
  expect(report.batch.failed).toBe(0);
  expect(report.batch.added).toBe(6);
});

afterAll(async () => {
  await vault.close();
  tmp.cleanup();
});

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

describe('a query with no searchable word is BAD_INPUT', () => {
  for (const q of ['', '   ', '*', '?!', '"', '\t\n', '-- ++ ()', '\u0301']) {
    it(`search/sections/context/ask reject ${JSON.stringify(q)}`, async () => {
      for (const call of [
        () => vault.search(q),
        () => vault.sections(q),
        () => vault.context(q),
        () => vault.ask(q, { record: false }),
      ]) {
        const e = await rejection(call());
        expect(isQuiverError(e, 'BAD_INPUT'), String(e)).toBe(true);
        expect((e as Error).message).toMatch(/^quiver: /);
      }
    });
  }

  it('names the field and the value', async () => {
    const e = await rejection(vault.search('?!'));
    expect((e as Error).message).toBe(
      'quiver: query must contain a word to search for (letters or digits), got "?!"',
    );
    const a = await rejection(vault.ask('*', { record: false }));
    expect((a as Error).message).toMatch(/^quiver: question must contain a word/);
  });

  it('a CJK-only query has words: it is searched, and finds its document', async () => {
    const r = await vault.search('東京');
    expect(r.hits.map((h) => h.source)).toContain('corpus/tokyo.md');
  });

  it('a word among punctuation is enough', async () => {
    const r = await vault.search('"coffee"*?');
    expect(r.hits[0]?.source).toBe('corpus/coffee.md');
  });
});

describe('the vector floor (built-in embedder: surface similarity)', () => {
  it('the raw vector leg returns chunks for a made-up word: top-k always fills', async () => {
    const [v] = await vault.embedder.embed(['zzqxv'], { purpose: 'query' });
    const raw = await vault.store.vectorSearch({ vector: v!, fingerprint: vault.embedder.id, limit: 5 });
    expect(raw.length).toBeGreaterThan(0);
    expect(raw[0]!.score).toBeGreaterThan(0);
  });

  for (const q of ['zzqxv', 'qwxjz blorptang', 'snorfleplax']) {
    it(`no word of ${JSON.stringify(q)} occurs: no hits, in every leg and selection`, async () => {
      for (const legs of ['both', 'vector', 'lexical'] as const) {
        expect((await vault.search(q, { legs })).hits).toEqual([]);
        expect((await vault.search(q, { legs, select: { method: 'topk' } })).hits).toEqual([]);
      }
      expect((await vault.context(q)).sections).toEqual([]);
    });
  }

  it('ask about nothing in the vault answers that the sources do not answer, citing nothing', async () => {
    const r = await vault.ask('zzqxv', { record: false });
    expect(r.cited).toEqual([]);
    expect(r.answer).toMatch(/do not answer/);
  });

  it('a real word keeps its vector hits, also beside a made-up word', async () => {
    for (const q of ['coffee', 'coffee zzqxv']) {
      const r = await vault.search(q, { select: { method: 'topk' } });
      expect(r.hits[0]?.source).toBe('corpus/coffee.md');
      expect(r.hits.some((h) => h.ranks.vector !== null)).toBe(true);
    }
  });

  it('vector-only search (no lexical leg) still answers a query with a known word', async () => {
    const r = await vault.search('tomatoes', { legs: 'vector', select: { method: 'topk' } });
    expect(r.hits.length).toBeGreaterThan(0);
    expect(r.hits[0]?.source).toBe('corpus/garden.md');
  });

  it('a filter decides too: a known word outside the filtered documents gives no hits', async () => {
    const filter = { sourcePrefix: 'corpus/coffee' };
    expect((await vault.search('water', { filter, legs: 'vector' })).hits.length).toBeGreaterThan(0);
    for (const legs of ['both', 'vector'] as const)
      expect((await vault.search('tomatoes', { filter, legs })).hits).toEqual([]);
  });

  it('the all and phrase modes keep vector hits when some word occurs', async () => {
    for (const mode of ['all', 'phrase'] as const) {
      const r = await vault.search('tomatoes zzqxv', { mode, select: { method: 'topk' } });
      expect(r.hits.length).toBeGreaterThan(0);
      expect(r.hits.every((h) => h.ranks.lexical === null)).toBe(true); // lexically nothing has both
      expect(r.hits[0]?.source).toBe('corpus/garden.md');
    }
  });
});

describe('the vector floor with a semantic embedder (no surface declaration)', () => {
  const dir = tempDir('quiver-vault-semantic-');
  const hashing = createHashingEmbedder();
  const semantic: Embedder = {
    id: 'test-semantic:hashing:512:v1',
    dims: hashing.dims,
    embed: (texts, options) => hashing.embed(texts, options),
  };
  let v: Vault;

  beforeAll(async () => {
    v = await Vault.open({ overrides: { vault: join(dir.dir, 'v.db') }, env: {}, embedder: semantic });
    await v.add([corpus]);
  });
  afterAll(async () => {
    await v.close();
    dir.cleanup();
  });

  it('keeps positive-cosine vector hits for a query no word of which occurs', async () => {
    const r = await v.search('zzqxv', { legs: 'vector', select: { method: 'topk' } });
    expect(r.hits.length).toBeGreaterThan(0);
  });

  it('search.minSimilarity (or the minSimilarity option) drops hits below it', async () => {
    const all = await v.search('zzqxv', { legs: 'vector', select: { method: 'topk' } });
    const none = await v.search('zzqxv', { legs: 'vector', minSimilarity: 0.99 });
    expect(none.hits).toEqual([]);
    const w = await Vault.open({
      overrides: { vault: join(dir.dir, 'v.db'), 'search.minSimilarity': 0.99 },
      env: {},
      embedder: semantic,
    });
    try {
      expect((await w.search('zzqxv', { legs: 'vector' })).hits).toEqual([]);
      // A real match clears a moderate floor.
      expect(
        (await w.search('tomatoes', { legs: 'vector', minSimilarity: 0.05 })).hits.length,
      ).toBeGreaterThan(0);
    } finally {
      await w.close();
    }
    expect(all.hits.length).toBeGreaterThan(0);
  });

  it('an out-of-range minSimilarity is BAD_INPUT', async () => {
    const e = await rejection(v.search('tomatoes', { minSimilarity: 2 }));
    expect(isQuiverError(e, 'BAD_INPUT')).toBe(true);
  });
});

describe('heading-only sections get a snippet from their subtree', () => {
  it('a title straight into a sub-heading shows the sub-heading text', async () => {
    const r = await vault.search('hive handbook', { legs: 'lexical', select: { method: 'topk' } });
    const root = r.hits.find((h) => h.breadcrumb === 'Hive Handbook');
    expect(root).toBeDefined();
    expect(root!.snippets).toEqual([
      'Open the hive on a calm warm day and look for eggs, larvae and a laying pattern.',
    ]);
  });

  it('two empty levels deep: the first text below, not the sibling subtree before it', async () => {
    const r = await vault.search('winter stores feeding', { legs: 'lexical', select: { method: 'topk' } });
    const winter = r.hits.find((h) => h.title === 'Winter Stores');
    const feeding = r.hits.find((h) => h.title === 'Feeding');
    const want = ['Put a block of fondant over the crown board once the colony stops taking syrup.'];
    expect(winter?.snippets).toEqual(want);
    expect(feeding?.snippets).toEqual(want);
  });

  it('no hit has an empty snippet list or an empty snippet', async () => {
    for (const q of ['hive', 'winter', 'coffee', 'turbine', 'fondant feeding stores']) {
      for (const h of (await vault.search(q, { limit: 20 })).hits) {
        expect(h.snippets.length, h.breadcrumb).toBeGreaterThan(0);
        expect(h.snippets).not.toContain('');
      }
    }
  });
});

describe('SectionHit.pages of a PDF', () => {
  it('is [first, last] for a section over pages 1–3', async () => {
    const r = await vault.search('turbine erosion balancing', { select: { method: 'topk' } });
    const hit = r.hits.find((h) => h.source === 'corpus/turbine.pdf');
    expect(hit?.kind).toBe('pdf');
    expect(hit?.pages).toEqual([1, 3]);
    const chunks = await vault.store.chunksOfSections([hit!.sectionId]);
    expect(new Set(chunks.map((c) => c.page))).toContain(1);
  });

  it('starts at the first page with text (a blank page 1)', async () => {
    const r = await vault.search('rotor torque', { select: { method: 'topk' } });
    expect(r.hits.find((h) => h.source === 'corpus/late.pdf')?.pages).toEqual([2, 3]);
  });

  it('is null for a source without pages', async () => {
    const r = await vault.search('coffee', { select: { method: 'topk' } });
    expect(r.hits[0]?.pages).toBeNull();
  });
});

describe('per-call retrieval settings', () => {
  it('takes rrfK per call: fused scores follow 1/(k + rank), and the vault default is untouched', async () => {
    const near = await vault.search('burr grinder coffee', { rrfK: 1, limit: 3, select: { method: 'topk' } });
    const far = await vault.search('burr grinder coffee', {
      rrfK: 1000,
      limit: 3,
      select: { method: 'topk' },
    });
    const dflt = await vault.search('burr grinder coffee', { limit: 3, select: { method: 'topk' } });
    expect(near.hits[0]!.sectionId).toBe(far.hits[0]!.sectionId);
    // A small k gives the top rank far more weight than a large one.
    expect(near.hits[0]!.score).toBeGreaterThan(far.hits[0]!.score * 10);
    expect(dflt.hits[0]!.score).toBeLessThan(near.hits[0]!.score);
    expect(dflt.hits[0]!.score).toBeGreaterThan(far.hits[0]!.score);
  });

  it('refuses a negative or non-finite rrfK before searching', async () => {
    for (const rrfK of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const e = await vault.search('coffee', { rrfK }).catch((x: unknown) => x);
      expect(isQuiverError(e, 'BAD_INPUT')).toBe(true);
    }
  });
});
