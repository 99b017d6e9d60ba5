// Every system of the peer benchmark, by name, loaded on demand (a `--build-one` child loads only
// the library it measures).
import type { Peer } from './types.js';

export const SYSTEMS: Record<string, () => Promise<Peer>> = {
  'quiver-default': async () => (await import('./quiver.js')).quiverDefault,
  'quiver-lexical': async () => (await import('./quiver.js')).quiverLexical,
  minisearch: async () => (await import('./minisearch.js')).miniSearch,
  orama: async () => (await import('./orama.js')).orama,
  wink: async () => (await import('./wink.js')).wink,
  lancedb: async () => (await import('./lancedb.js')).lanceDb,
  'bm25-reference': async () => (await import('./bm25-reference.js')).bm25Reference,
};
