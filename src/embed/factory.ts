/**
 * One entry point from configuration to an Embedder. The provider is a discriminated union, so
 * each provider's options are checked by the type system.
 */
import { QuiverError } from '../errors.js';
import type { Embedder } from './embedder.js';
import { createHashingEmbedder } from './hashing.js';
import type { HashingEmbedderOptions } from './hashing.js';
import { createOpenAIEmbedder } from './openai-compatible.js';
import type { OpenAIEmbedderOptions } from './openai-compatible.js';
import { createTransformersEmbedder } from './transformers.js';
import type { TransformersEmbedderOptions } from './transformers.js';

/** Embedder configuration; `builtin` needs nothing else and is the offline default. */
export type EmbedderConfig =
  | ({ provider: 'builtin' } & HashingEmbedderOptions)
  | ({ provider: 'openai' } & OpenAIEmbedderOptions)
  | ({ provider: 'transformers' } & TransformersEmbedderOptions);

/**
 * Creates the configured embedder. `openai` may call the server once (to learn `dims`);
 * `transformers` loads the optional `@huggingface/transformers` package and the model (CONFIG when
 * either is missing) and runs one probe text to learn `dims`.
 *
 * @example
 * const e = await createEmbedder({ provider: 'builtin' });
 */
export async function createEmbedder(config: EmbedderConfig): Promise<Embedder> {
  switch (config.provider) {
    case 'builtin': {
      const { provider: _provider, ...options } = config;
      return createHashingEmbedder(options);
    }
    case 'openai': {
      const { provider: _provider, ...options } = config;
      return createOpenAIEmbedder(options);
    }
    case 'transformers': {
      const { provider: _provider, ...options } = config;
      return createTransformersEmbedder(options);
    }
    default: {
      const provider: unknown = (config as { provider?: unknown }).provider;
      throw new QuiverError(
        'CONFIG',
        `quiver: embedder provider must be "builtin", "openai" or "transformers", got ${JSON.stringify(provider)}`,
      );
    }
  }
}
