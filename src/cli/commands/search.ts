import { readFile } from 'node:fs/promises';
import { QuiverError, type SectionHit } from '../../index.js';
import { str, type Command, type CommandContext } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { hitJson } from './hit-json.js';
import { RETRIEVAL_OPTIONS, searchOptionsFrom } from './retrieval-flags.js';

function query(ctx: CommandContext, name: string): string {
  const q = ctx.positionals.join(' ').trim();
  if (q === '') throw new QuiverError('BAD_INPUT', `quiver ${name}: give a query`);
  return q;
}

function printHits(ctx: CommandContext, hits: SectionHit[], withText: boolean): void {
  if (hits.length === 0) {
    ctx.out('no results\n');
    return;
  }
  if (!withText) {
    for (const [i, h] of hits.entries()) {
      const where = `${h.source}${h.pages ? `, p. ${h.pages[0]}` : ''}`;
      ctx.out(
        `${String(i + 1).padStart(2)}. ${h.breadcrumb}  (${h.score.toFixed(4)})\n    ${where} · ${h.sectionId}\n    ${h.snippets[0] ?? ''}\n`,
      );
    }
    return;
  }
  for (const [i, h] of hits.entries()) {
    ctx.out(
      `[${i + 1}] ${h.breadcrumb}  (${h.source}${h.pages ? `, pages ${h.pages[0]}–${h.pages[1]}` : ''}; ${h.sectionId}; score ${h.score.toFixed(4)})\n\n${(h.text ?? '').trim()}\n\n`,
    );
  }
}

/** `quiver search --queries FILE.jsonl`: one JSON line per query, one process for many queries. */
async function batchSearch(ctx: CommandContext, file: string): Promise<number> {
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch (e) {
    throw new QuiverError(
      'UNREADABLE',
      `quiver search: cannot read --queries ${file}: ${(e as Error).message}`,
    );
  }
  const lines = raw
    .split('\n')
    .map((l, i) => ({ l: l.trim(), n: i + 1 }))
    .filter((x) => x.l !== '');
  const queries = lines.map(({ l, n }) => {
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(l) as Record<string, unknown>;
    } catch {
      throw new QuiverError('BAD_INPUT', `quiver search: ${file} line ${n} is not JSON`);
    }
    const text = o.text ?? o.query ?? o.question;
    if (typeof text !== 'string')
      throw new QuiverError('BAD_INPUT', `quiver search: ${file} line ${n} has no "text"`);
    return { id: o.id ?? o._id ?? n, text };
  });
  const vault = await ctx.openVault({ readonly: true });
  const opts = searchOptionsFrom(ctx.values);
  for (const q of queries) {
    const r = await vault.search(q.text, opts);
    ctx.out(`${JSON.stringify({ id: q.id, results: r.hits.map(hitJson) })}\n`);
  }
  return EXIT.OK;
}

export const searchCommand: Command = {
  name: 'search',
  usage:
    'quiver search <query> [--limit K] [--legs lexical|vector|both] [--select topk|mmr|dartboard] | --queries FILE.jsonl --json',
  options: {
    ...RETRIEVAL_OPTIONS,
    queries: { type: 'string', help: 'JSONL file of {"id", "text"}: one JSON result line per query' },
  },
  async run(ctx) {
    const file = str(ctx.values, 'queries');
    if (file !== undefined) return batchSearch(ctx, file);
    const q = query(ctx, 'search');
    const vault = await ctx.openVault({ readonly: true });
    const r = await vault.search(q, searchOptionsFrom(ctx.values));
    if (ctx.json)
      ctx.out(
        `${JSON.stringify({ query: q, pool: r.pool, results: r.hits.map(hitJson), timings_ms: r.timings })}\n`,
      );
    else printHits(ctx, r.hits, false);
    return EXIT.OK;
  },
};

export const sectionsCommand: Command = {
  name: 'sections',
  usage: 'quiver sections <query> [--limit K] [--select …]',
  options: RETRIEVAL_OPTIONS,
  async run(ctx) {
    const q = query(ctx, 'sections');
    const vault = await ctx.openVault({ readonly: true });
    const r = await vault.sections(q, searchOptionsFrom(ctx.values));
    if (ctx.json)
      ctx.out(
        `${JSON.stringify({ query: q, pool: r.pool, results: r.hits.map(hitJson), timings_ms: r.timings })}\n`,
      );
    else printHits(ctx, r.hits, true);
    return EXIT.OK;
  },
};

export const contextCommand: Command = {
  name: 'context',
  usage: 'quiver context <query> [--limit N] [--select …]',
  options: RETRIEVAL_OPTIONS,
  async run(ctx) {
    const q = query(ctx, 'context');
    const vault = await ctx.openVault({ readonly: true });
    const r = await vault.context(q, searchOptionsFrom(ctx.values));
    if (ctx.json)
      ctx.out(
        `${JSON.stringify({ query: q, sections: r.sections.map((s) => ({ n: s.n, ...hitJson(s) })), timings_ms: r.timings })}\n`,
      );
    else printHits(ctx, r.sections, true);
    return EXIT.OK;
  },
};
