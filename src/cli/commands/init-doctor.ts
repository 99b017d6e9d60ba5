import { CONFIG_KEYS, type ConfigKey, shownValue } from '../../config.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { mb, table } from '../table.js';

export const initCommand: Command = {
  name: 'init',
  usage: 'quiver init [--vault FILE]',
  options: {},
  maxArgs: 0,
  async run(ctx) {
    const vault = await ctx.openVault();
    const s = await vault.stats();
    if (ctx.json) ctx.out(`${JSON.stringify({ vault: vault.store.location, ...s })}\n`);
    else ctx.out(`vault ready: ${vault.store.location} (${s.documents} documents)\n`);
    return EXIT.OK;
  },
};

export const doctorCommand: Command = {
  name: 'doctor',
  usage: 'quiver doctor [--fix]',
  maxArgs: 0,
  options: {
    fix: {
      type: 'boolean',
      help: 'repair what needs no re-embedding: interrupted work, indexes, stale vectors, free space',
    },
  },
  async run(ctx) {
    const fix = ctx.values.fix === true;
    const vault = await ctx.openVault({ allowEmbedderMismatch: true, readonly: !fix });
    const repaired = fix ? await vault.repair() : null;
    const health = await vault.health();
    const s = await vault.stats();
    const recorded = await vault.store.getMeta('embedder');
    const keys = Object.keys(CONFIG_KEYS) as ConfigKey[];
    const secrets = [vault.config['embedder.apiKeyEnv'], vault.config['generator.apiKeyEnv']];
    // The indexes a backend keeps of its own, when it declares that capability (SQLite does).
    const indexes = (await vault.store.indexes?.inspect(vault.embedder.id)) ?? {
      vector: null,
      lexical: null,
    };
    const ann = indexes.vector;
    const lexical = indexes.lexical;
    const report = {
      store: { kind: vault.store.kind, location: vault.store.location, ...s },
      health,
      repaired,
      ann,
      lexical,
      embedder: {
        configured: vault.embedder.id,
        dims: vault.embedder.dims,
        vault: recorded,
        ok: recorded === null || recorded === vault.embedder.id,
      },
      config_file: vault.loaded.file,
      config: Object.fromEntries(
        keys.map((k) => [
          k,
          { value: shownValue(vault.config[k]), from: vault.loaded.sources[k], env: CONFIG_KEYS[k].env },
        ]),
      ),
      secrets: Object.fromEntries(
        secrets.map((n) => [n, ctx.io.env[n] === undefined || ctx.io.env[n] === '' ? 'missing' : 'set']),
      ),
    };
    if (ctx.json) {
      ctx.out(`${JSON.stringify(report)}\n`);
    } else {
      const engine =
        s.engine === undefined
          ? ''
          : `; ${s.engine.name} ${s.engine.version}, other programs reading it need ≥ ${s.engine.readersNeed}`;
      ctx.out(
        `store     ${report.store.kind} ${report.store.location} (schema v${s.schemaVersion}${engine})\n`,
      );
      ctx.out(
        `contents  ${s.documents} documents, ${s.sections} sections, ${s.chunks} chunks, ${s.batches} batches\n`,
      );
      ctx.out(
        `vectors   ${
          Object.entries(s.vectors)
            .map(([f, n]) => `${f}: ${n}`)
            .join(', ') || 'none'
        }\n`,
      );
      if (ann !== null)
        ctx.out(
          `ann       ${
            ann.mode === 'exact'
              ? `exact scan (${ann.chunks} chunks ≤ threshold ${ann.threshold})`
              : `hnsw (${ann.chunks} chunks > threshold ${ann.threshold}), index ${ann.index}${ann.file === null ? '' : `: ${ann.file}`}`
          }${ann.native === undefined ? '' : `; hnswlib ${ann.native.search}, ${ann.native.parallelBuild ? 'parallel' : 'in-process'} build${ann.native.note === null ? '' : ` (${ann.native.note})`}`}\n`,
        );
      if (lexical !== null)
        ctx.out(
          `lexical   ${
            lexical.mode === 'fts5'
              ? `fts5 bm25 (${lexical.sections} sections ≤ threshold ${lexical.threshold})`
              : `own index (${lexical.sections} sections > threshold ${lexical.threshold}), index ${lexical.index}${lexical.file === null ? '' : `: ${lexical.file}`}`
          }\n`,
        );
      ctx.out(
        `embedder  ${vault.embedder.id} (${vault.embedder.dims} dims)${report.embedder.ok ? '' : `  MISMATCH: vault has ${recorded}; run quiver reindex`}\n`,
      );
      if (repaired !== null)
        ctx.out(
          `repaired  ${repaired.interrupted.length} interrupted batches recorded, refit ${repaired.refitRolledBack ? 'rolled back' : 'fine'}, ${repaired.compact.vectorsRemoved} stale vectors and ${repaired.compact.removedFiles.length} orphaned files removed, ${mb(repaired.compact.bytesBefore)} → ${mb(repaired.compact.bytesAfter)}\n`,
        );
      ctx.out(
        `writer    ${health.writer === null ? 'none' : `process ${health.writer.pid} on ${health.writer.host}: ${health.writer.command}${health.writer.alive ? '' : ' (gone)'}`}\n`,
      );
      ctx.out(
        `space     ${health.totalBytes === null ? 'n/a' : `${mb(health.totalBytes)} on disk, ${mb(health.reclaimableBytes ?? 0)} free`}\n`,
      );
      if (health.problems.length === 0) ctx.out('health    ok\n');
      for (const p of health.problems) ctx.out(`problem   ${p.problem}  → ${p.repair}\n`);
      ctx.out(`config    ${vault.loaded.file ?? '(no config file)'}\n`);
      ctx.out(
        table(
          ['key', 'value', 'from', 'environment variable'],
          keys.map((k) => [
            k,
            JSON.stringify(shownValue(vault.config[k])),
            vault.loaded.sources[k],
            `${CONFIG_KEYS[k].env}${ctx.io.env[CONFIG_KEYS[k].env] === undefined ? '' : ' (set)'}`,
          ]),
        ),
      );
      ctx.out(
        `secrets   ${Object.entries(report.secrets)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ')}\n`,
      );
    }
    return report.embedder.ok ? EXIT.OK : EXIT.INCOMPATIBLE;
  },
};
