import type { Config } from '../config.js';
import type { Embedder } from '../embed/embedder.js';
import { createEmbedder } from '../embed/factory.js';
import { QuiverError } from '../errors.js';
import type { Store } from '../store/store.js';
import { builtinEmbedder } from './builtin-state.js';

/** The configured embedder; the built-in one with the vault's fitted IDF when it has one. */
export async function embedderFor(c: Config, store: Store): Promise<Embedder> {
  const dims = c['embedder.dims'] > 0 ? { dims: c['embedder.dims'] } : {};
  switch (c['embedder.provider']) {
    case 'builtin':
      return builtinEmbedder(store, dims);
    case 'openai':
      if (c['embedder.model'] === '' || c['embedder.baseURL'] === '') {
        throw new QuiverError(
          'CONFIG',
          'quiver: the openai embedder needs embedder.model and embedder.baseURL (QUIVER_EMBEDDER_MODEL, QUIVER_EMBEDDER_URL)',
        );
      }
      return createEmbedder({
        provider: 'openai',
        baseURL: c['embedder.baseURL'],
        model: c['embedder.model'],
        apiKeyEnv: c['embedder.apiKeyEnv'],
        ...dims,
      });
    case 'transformers':
      if (c['embedder.model'] === '')
        throw new QuiverError(
          'CONFIG',
          'quiver: the transformers embedder needs embedder.model (a hub id or a local folder)',
        );
      return createEmbedder({ provider: 'transformers', model: c['embedder.model'] });
  }
}
