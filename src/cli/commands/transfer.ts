import { existsSync } from 'node:fs';
import { QuiverError } from '../../errors.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { progressBar } from '../progress.js';

/** `quiver export FILE|-`: the whole vault as JSON Lines (src/transfer/format.ts); `.gz` gzips. */
export const exportCommand: Command = {
  name: 'export',
  usage: 'quiver export FILE|-',
  options: { force: { type: 'boolean', help: 'overwrite FILE if it exists' } },
  maxArgs: 1,
  async run(ctx) {
    const target = ctx.positionals[0];
    if (target === undefined)
      throw new QuiverError(
        'BAD_INPUT',
        'quiver export: give the file to write (FILE.jsonl, FILE.jsonl.gz, or - for stdout)',
      );
    if (target !== '-' && existsSync(target) && ctx.values.force !== true)
      throw new QuiverError('CONFLICT', `quiver export: ${target} exists; use --force to overwrite`);
    // A missing vault is exit 3 (never created by an export); then open it to hold the writer slot.
    await (await ctx.openVault({ allowEmbedderMismatch: true, readonly: true })).close();
    const vault = await ctx.openVault({ allowEmbedderMismatch: true });
    const bar = progressBar(ctx.io, ctx.quiet, 'export');
    let r;
    try {
      r = await vault.export(target === '-' ? process.stdout : target, {
        onProgress: (done, total) => bar.update(done, total, 'documents'),
        signal: ctx.signal,
      });
    } finally {
      bar.stop();
    }
    const summary = `exported ${r.documents} documents (${r.records.document ?? 0} versions), ${r.records.batch ?? 0} batches, ${r.records.feedback ?? 0} feedback rows, ${r.records.mark ?? 0} marks, ${r.records.transcript ?? 0} transcripts from ${vault.store.location}`;
    if (target === '-') ctx.err(`${summary}\n`);
    else if (ctx.json) ctx.out(`${JSON.stringify({ export: target, ...r })}\n`);
    else ctx.out(`${summary} to ${target}\n`);
    return EXIT.OK;
  },
};

/** `quiver import FILE|-`: fill an empty vault from an export; a malformed file changes nothing. */
export const importCommand: Command = {
  name: 'import',
  usage: 'quiver import FILE|-',
  options: {},
  maxArgs: 1,
  async run(ctx) {
    const source = ctx.positionals[0];
    if (source === undefined)
      throw new QuiverError(
        'BAD_INPUT',
        'quiver import: give the export to read (FILE.jsonl, FILE.jsonl.gz, or - for stdin)',
      );
    if (source !== '-' && !existsSync(source))
      throw new QuiverError('NOT_FOUND', `quiver import: no file ${source}`);
    const vault = await ctx.openVault({ allowEmbedderMismatch: true });
    const bar = progressBar(ctx.io, ctx.quiet, 'import');
    let r;
    try {
      r = await vault.import(source === '-' ? process.stdin : source, {
        onProgress: (done, total) => bar.update(done, total, 'document versions'),
        signal: ctx.signal,
      });
    } finally {
      bar.stop();
    }
    // Build the indexes now rather than in the first search, when the configured embedder is the export's.
    let note = '';
    try {
      await vault.prepareIndexes({ signal: ctx.signal });
    } catch (e) {
      if (!(e instanceof QuiverError && e.code === 'EMBEDDER_MISMATCH')) throw e;
      note = `note: ${e.message}\n`;
    }
    if (ctx.json) ctx.out(`${JSON.stringify({ import: source, ...r })}\n`);
    else
      ctx.out(
        `imported ${r.documents} documents (${r.records.document ?? 0} versions), ${r.records.batch ?? 0} batches, ${r.records.feedback ?? 0} feedback rows, ${r.records.mark ?? 0} marks, ${r.records.transcript ?? 0} transcripts into ${vault.store.location} (exported from ${r.header.schema.store} at ${r.header.exportedAt})\n`,
      );
    if (note !== '') ctx.err(note);
    return EXIT.OK;
  },
};
