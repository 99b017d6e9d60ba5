import type { DocumentRecord } from '../../index.js';
import { QuiverError } from '../../errors.js';
import { num, type Command, type CommandContext } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { table } from '../table.js';
import { readJson } from '../../wire/ingest.js';

export const readCommand: Command = {
  name: 'read',
  usage: 'quiver read <section-id|doc-id> [--removed]',
  options: {
    removed: {
      type: 'boolean',
      help: "print what the reader removed from the document (an HTML page's boilerplate) and why",
    },
  },
  maxArgs: 1,
  async run(ctx) {
    const id = ctx.positionals[0];
    if (id === undefined)
      throw new QuiverError('BAD_INPUT', 'quiver read: give a section id (doc#seq) or a document id');
    const vault = await ctx.openVault({ readonly: true });
    const sectionId = id.includes('#') ? id : `${id}#0`;
    const r = await vault.read(sectionId);
    if (ctx.values.removed === true) {
      printRemoved(ctx, r.document);
      return EXIT.OK;
    }
    if (ctx.json) {
      ctx.out(`${JSON.stringify(readJson(r))}\n`);
    } else {
      ctx.out(`${r.section.breadcrumb}\n(${r.document.source}; ${r.section.id})\n\n${r.text.trim()}\n`);
      if (!id.includes('#')) {
        const { sections } = await vault.outline(r.document.id);
        ctx.out(
          `\n${table(
            ['section', 'level', 'title'],
            sections.map((s) => [s.id, s.level, s.title]),
          )}`,
        );
      }
    }
    return EXIT.OK;
  },
};

/** One piece of a page the reader did not index: why (the kind of boilerplate), and its text. */
interface RemovedPiece {
  /**
   * The kind of boilerplate (`byline`, `share`, `related`, `links`, `navigation`, `footer`, …),
   * `outside` for page text around the article, null when not recorded.
   */
  reason: string | null;
  text: string;
}

const REMOVED_ENTRY = /^([a-z][a-z -]*): ([\s\S]*)$/;

/**
 * The pieces of a document's `meta.removed` (entries written as `"<reason>: <text>"` by the HTML
 * reader); an entry in another shape keeps its whole text with reason null. No `meta.removed`, or
 * one that is not an array → []. `['byline: By Jane Doe']` → `[{ reason: 'byline', text: 'By Jane Doe' }]`.
 */
function removedPieces(meta: Record<string, unknown>): RemovedPiece[] {
  const removed = meta['removed'];
  if (!Array.isArray(removed)) return [];
  return removed
    .filter((e): e is string => typeof e === 'string')
    .map((e) => {
      const m = REMOVED_ENTRY.exec(e);
      return m === null ? { reason: null, text: e } : { reason: m[1]!, text: m[2]! };
    });
}

/** `read --removed`: the document's removed pieces, one a line with its reason, or that there are none. */
function printRemoved(ctx: CommandContext, doc: DocumentRecord): void {
  const pieces = removedPieces(doc.meta);
  if (ctx.json) {
    ctx.out(
      `${JSON.stringify({ doc_id: doc.id, source: doc.source, title: doc.title, kind: doc.kind, removed: pieces })}\n`,
    );
    return;
  }
  if (pieces.length === 0) {
    ctx.out(`Nothing was removed from ${doc.source} (${doc.kind}).\n`);
    return;
  }
  const width = Math.max(...pieces.map((p) => (p.reason ?? '').length));
  const count = `${pieces.length} ${pieces.length === 1 ? 'piece' : 'pieces'}`;
  ctx.out(`Removed from ${doc.source} (${count}, long ones clipped):\n\n`);
  for (const p of pieces) ctx.out(`${(p.reason ?? '').padEnd(width)}  ${p.text}\n`);
  if (pieces.some((p) => p.reason === 'outside'))
    ctx.out('\noutside: text of the page around the article (menus, footers, sidebars)\n');
}

export const docsCommand: Command = {
  name: 'docs',
  usage: 'quiver docs [--limit N]',
  options: { limit: { type: 'integer', min: 1, help: 'at most this many' } },
  maxArgs: 0,
  async run(ctx) {
    const vault = await ctx.openVault({ readonly: true });
    const limit = num(ctx.values, 'limit');
    const docs = await vault.docs(limit === undefined ? {} : { limit });
    if (ctx.json)
      ctx.out(
        `${JSON.stringify(docs.map((d) => ({ id: d.id, source: d.source, title: d.title, kind: d.kind, pages: d.pages, added_at: d.addedAt, updated_at: d.updatedAt, batch: d.batchId, content_hash: d.contentHash })))}\n`,
      );
    else
      ctx.out(
        table(
          ['id', 'kind', 'source', 'title'],
          docs.map((d) => [d.id, d.kind, d.source, d.title]),
        ),
      );
    return EXIT.OK;
  },
};
