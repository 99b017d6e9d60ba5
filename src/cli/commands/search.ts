import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { QuiverError } from '../../errors.js';
import type { SectionHit } from '../../index.js';
import { hasSearchableWord } from '../../retrieve/query-terms.js';
import { num, str, type Command, type CommandContext } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { markdownToPlain, snippetToPlain } from '../../text/plain-text.js';
import { styler } from '../style.js';
import { contextJson, hitJson, searchJson } from '../../wire/hits.js';
import { searchInWorkers } from '../batch-search.js';
import { jsonLine } from '../json-line.js';
import { whereLabel } from './where-label.js';
import { RANKED_LIST_OPTIONS, RETRIEVAL_OPTIONS, searchOptionsFrom } from './retrieval-flags.js';

function query(ctx: CommandContext, name: string): string {
  const q = ctx.positionals.join(' ').trim();
  if (q === '') throw new QuiverError('BAD_INPUT', `quiver ${name}: give a query`);
  return q;
}

/**
 * Hits in the order selection chose. The score is the fused retrieval score, so after selection
 * (Dartboard, MMR) it need not fall monotonically: each line also says the hit's retrieval rank
 * when selection moved it.
 */
function printHits(ctx: CommandContext, hits: SectionHit[], withText: boolean): void {
  if (hits.length === 0) {
    ctx.out('no results\n');
    return;
  }
  const style = styler(ctx.io);
  const moved = hits.some((h, i) => h.retrievalRank !== i);
  for (const [i, h] of hits.entries()) {
    const rank = moved ? `, retrieval #${h.retrievalRank + 1}` : '';
    const head = `${String(i + 1).padStart(2)}. ${style.bold(h.breadcrumb)}  ${style.dim(`(score ${h.score.toFixed(4)}${rank})`)}`;
    const copies = h.nearCopies ?? [];
    const where =
      style.dim(`${whereLabel(h)} · ${h.sectionId}`) +
      (copies.length === 0
        ? ''
        : `\n    ${style.dim(`+${copies.length} near-cop${copies.length === 1 ? 'y' : 'ies'}: ${copies.map((c) => c.source).join(', ')}`)}`);
    if (!withText) {
      const snippet = snippetToPlain(h.snippets[0] ?? '');
      ctx.out(`${head}\n    ${where}\n    ${snippet}\n`);
    } else ctx.out(`${head}\n    ${where}\n\n${markdownToPlain(h.text ?? '')}\n\n`);
  }
}

/** `quiver search --queries FILE.jsonl`: one JSON line per query, one process for many queries. */
async function batchSearch(ctx: CommandContext, file: string): Promise<number> {
  let raw: string;
  try {
    raw = file === '-' ? await ctx.io.readStdin() : await readFile(file, 'utf8');
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
    // Checked before any search, so a bad line does not stop a long run half way.
    if (!hasSearchableWord(text))
      throw new QuiverError('BAD_INPUT', `quiver search: ${file} line ${n} has no word to search for`);
    return { id: o.id ?? o._id ?? n, text };
  });
  // Opened here even when workers answer: a missing vault or a mismatched embedder is reported once.
  const vault = await ctx.openVault({ readonly: true });
  const opts = searchOptionsFrom(ctx.values);
  const jobs = batchJobs(num(ctx.values, 'jobs'), queries.length);
  if (jobs > 1) {
    await searchInWorkers(queries, { open: ctx.openOptions, options: opts }, jobs, ctx.out, ctx.signal);
    return EXIT.OK;
  }
  for (const q of queries) {
    const r = await vault.search(q.text, opts);
    ctx.out(jsonLine({ id: q.id, results: r.hits.map(hitJson) }));
  }
  return EXIT.OK;
}

/**
 * Worker threads for a batch: `--jobs` when given, else one per core (at most `MAX_AUTO_JOBS`)
 * once there are `WORKERS_FROM` queries; a smaller batch stays in this thread, since each worker
 * first opens the vault and loads its indexes (a few hundred ms on a large vault).
 */
export function batchJobs(asked: number | undefined, queries: number): number {
  if (asked !== undefined) return asked;
  return queries >= WORKERS_FROM ? Math.min(availableParallelism(), MAX_AUTO_JOBS) : 1;
}
const WORKERS_FROM = 200;
const MAX_AUTO_JOBS = 4;

export const searchCommand: Command = {
  name: 'search',
  usage:
    'quiver search <query> [--limit K] [--legs lexical|vector|both] [--select topk|mmr|dartboard] | --queries FILE.jsonl --json',
  options: {
    ...RANKED_LIST_OPTIONS,
    queries: {
      type: 'string',
      value: 'FILE',
      help: 'JSONL file of {"id", "text"} (- for standard input): one JSON result line per query',
    },
    ids: { type: 'boolean', help: 'print only the section ids, one per line (for scripts)' },
    jobs: {
      type: 'integer',
      min: 1,
      help: `worker threads for --queries (default: one per core, up to ${MAX_AUTO_JOBS}, from ${WORKERS_FROM} queries)`,
    },
  },
  maxArgs: null,
  async run(ctx) {
    const file = str(ctx.values, 'queries');
    if (file !== undefined) return batchSearch(ctx, file);
    const q = query(ctx, 'search');
    const vault = await ctx.openVault({ readonly: true });
    const r = await vault.search(q, searchOptionsFrom(ctx.values));
    if (ctx.values.ids === true) ctx.out(r.hits.map((h) => `${h.sectionId}\n`).join(''));
    else if (ctx.json) ctx.out(`${JSON.stringify(searchJson(q, r))}\n`);
    else printHits(ctx, r.hits, false);
    return EXIT.OK;
  },
};

export const sectionsCommand: Command = {
  name: 'sections',
  usage: 'quiver sections <query> [--limit K] [--select …]',
  options: RANKED_LIST_OPTIONS,
  maxArgs: null,
  async run(ctx) {
    const q = query(ctx, 'sections');
    const vault = await ctx.openVault({ readonly: true });
    const r = await vault.sections(q, searchOptionsFrom(ctx.values));
    if (ctx.json) ctx.out(`${JSON.stringify(searchJson(q, r))}\n`);
    else printHits(ctx, r.hits, true);
    return EXIT.OK;
  },
};

export const contextCommand: Command = {
  name: 'context',
  usage: 'quiver context <query> [--limit N] [--select …]',
  options: RETRIEVAL_OPTIONS,
  maxArgs: null,
  async run(ctx) {
    const q = query(ctx, 'context');
    const vault = await ctx.openVault({ readonly: true });
    const r = await vault.context(q, searchOptionsFrom(ctx.values));
    if (ctx.json) ctx.out(`${JSON.stringify(contextJson(q, r))}\n`);
    else printHits(ctx, r.sections, true);
    return EXIT.OK;
  },
};
