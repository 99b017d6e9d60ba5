// quiver through its public API, as shipped: `Vault.search` with the configuration defaults (no
// selection or other knobs passed), and the same with `legs: 'lexical'`. Nothing is tuned here.
import { join } from 'node:path';
import { Vault, type SearchOptions } from '../../src/index.js';
import { parseJsonlSource } from '../../src/ingest/jsonl-id.js';
import { fileWithSidecarsBytes } from './sizes.js';
import type { BuildContext, Built, Peer } from './types.js';

/** Open `ctx.vault`, or ingest the corpus into a new vault in the scratch folder. */
async function openVault(ctx: BuildContext): Promise<{ vault: Vault; path: string }> {
  if (ctx.vault !== undefined)
    return { vault: await Vault.open({ overrides: { vault: ctx.vault } }), path: ctx.vault };
  const path = join(ctx.workDir, 'quiver.db');
  const vault = await Vault.open({ overrides: { vault: path } });
  await vault.add([ctx.corpusPath]);
  return { vault, path };
}

function quiverPeer(name: string, config: string, options: SearchOptions, sharesBuildWith?: string): Peer {
  return {
    name,
    ...(sharesBuildWith === undefined ? {} : { sharesBuildWith }),
    size: 'disk',
    builds: 1,
    async build(_docs, _i, ctx): Promise<Built> {
      const { vault, path } = await openVault(ctx);
      return {
        variants: [
          {
            config,
            search: async (q: string, k: number) =>
              // A JSON Lines record's source is `<corpus file>#<id>`; the qrels name the id.
              (await vault.search(q, { ...options, limit: k })).hits.map((h) =>
                String(parseJsonlSource(h.source)?.id ?? h.source),
              ),
          },
        ],
        sizeBytes: () => Promise.resolve(fileWithSidecarsBytes(path)),
        close: () => vault.close(),
      };
    },
  };
}

export const quiverDefault = quiverPeer('quiver default search', 'defaults (fused lexical + vector)', {});
export const quiverLexical = quiverPeer(
  'quiver lexical leg',
  "defaults, legs: 'lexical'",
  { legs: 'lexical' },
  'quiver-default',
);
