// LanceDB 0.31's native full-text search on a local table: an FTS index (BM25) with English
// stemming, stop-word removal, lower-casing and ASCII folding, no positions (no phrase queries are
// asked). Two layouts are tried: one FTS index per column (title, text) searched together with a
// MultiMatchQuery and a title boost, or title and text concatenated into one indexed column.
// LanceDB exposes no BM25 parameters.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { dirBytes } from './sizes.js';
import { TITLE_BOOSTS } from './grid.js';
import type { BuildContext, Built, Doc, Peer } from './types.js';

const FTS: Partial<lancedb.FtsOptions> = {
  withPosition: false,
  stem: true,
  removeStopWords: true,
  lowercase: true,
  asciiFolding: true,
  language: 'English',
};
const FTS_LABEL = 'English stem + stop words, lowercase, ASCII folding';

type Layout = 'columns' | 'concatenated';
const LAYOUTS: readonly Layout[] = ['columns', 'concatenated'];

async function ids(query: lancedb.Query, k: number): Promise<string[]> {
  const rows = (await query.select(['id', '_score']).limit(k).toArray()) as { id: string }[];
  return rows.map((r) => r.id);
}

export const lanceDb: Peer = {
  name: 'LanceDB 0.31 native FTS',
  size: 'disk',
  builds: LAYOUTS.length,
  async build(docs: readonly Doc[], i: number, ctx: BuildContext): Promise<Built> {
    const layout = LAYOUTS[i]!;
    const dir = mkdtempSync(join(ctx.workDir, 'lancedb-'));
    const db = await lancedb.connect(dir);
    const rows =
      layout === 'columns'
        ? docs.map((d) => ({ id: d.id, title: d.title, text: d.text }))
        : docs.map((d) => ({ id: d.id, body: `${d.title}\n${d.text}` }));
    const table = await db.createTable('docs', rows);
    for (const column of layout === 'columns' ? ['title', 'text'] : ['body'])
      await table.createIndex(column, { config: lancedb.Index.fts(FTS) });
    const variants =
      layout === 'columns'
        ? TITLE_BOOSTS.map((title) => ({
            config: `FTS index per column, MultiMatchQuery title boost ${title}, ${FTS_LABEL}`,
            search: (q: string, k: number) =>
              ids(
                table
                  .query()
                  .fullTextSearch(new lancedb.MultiMatchQuery(q, ['title', 'text'], { boosts: [title, 1] })),
                k,
              ),
          }))
        : [
            {
              config: `one FTS index on title+text concatenated, ${FTS_LABEL}`,
              search: (q: string, k: number) =>
                ids(table.query().fullTextSearch(new lancedb.MatchQuery(q, 'body')), k),
            },
          ];
    return {
      variants,
      sizeBytes: () => Promise.resolve(dirBytes(dir)),
      close: () => {
        table.close();
        db.close();
        return Promise.resolve();
      },
    };
  },
};
