import { QuiverError } from '../../errors.js';
import { num, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { table } from '../table.js';

export const readCommand: Command = {
  name: 'read',
  usage: 'quiver read <section-id|doc-id>',
  options: {},
  maxArgs: 1,
  async run(ctx) {
    const id = ctx.positionals[0];
    if (id === undefined)
      throw new QuiverError('BAD_INPUT', 'quiver read: give a section id (doc#seq) or a document id');
    const vault = await ctx.openVault({ readonly: true });
    const sectionId = id.includes('#') ? id : `${id}#0`;
    const r = await vault.read(sectionId);
    if (ctx.json) {
      ctx.out(
        `${JSON.stringify({ id: r.section.id, doc_id: r.document.id, source: r.document.source, title: r.section.title, breadcrumb: r.section.breadcrumb, pages: r.section.pageStart === null ? null : [r.section.pageStart, r.section.pageEnd], children: r.children, text: r.text })}\n`,
      );
    } else {
      ctx.out(`${r.section.breadcrumb}\n(${r.document.source}; ${r.section.id})\n\n${r.text.trim()}\n`);
      if (!id.includes('#')) {
        const outline = await vault.store.listSections(r.document.id);
        ctx.out(
          `\n${table(
            ['section', 'level', 'title'],
            outline.map((s) => [s.id, s.level, s.title]),
          )}`,
        );
      }
    }
    return EXIT.OK;
  },
};

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
