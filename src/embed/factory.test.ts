import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { startFakeEmbeddingsServer } from './_fake-embeddings-server.js';
import { writeTinyOnnxModel } from './_tiny-onnx-model.js';
import type { FakeEmbeddingsServer } from './_fake-embeddings-server.js';
import { createEmbedder } from './factory.js';
import type { EmbedderConfig } from './factory.js';

let server: FakeEmbeddingsServer;
beforeAll(async () => {
  server = await startFakeEmbeddingsServer(16);
});
afterAll(async () => {
  await server.close();
});

describe('createEmbedder', () => {
  it('builds the built-in hashing embedder with its options', async () => {
    expect((await createEmbedder({ provider: 'builtin' })).id).toBe('hashing:u1b0c1g3-5:512:v1');
    expect((await createEmbedder({ provider: 'builtin', dims: 256 })).dims).toBe(256);
  });

  it('builds the OpenAI-compatible embedder against a server', async () => {
    const e = await createEmbedder({ provider: 'openai', baseURL: server.url, model: 'm', env: {} });
    expect(e.id).toBe('openai:m:16:v1');
    expect(await e.embed(['hello'])).toHaveLength(1);
  });

  it('builds the transformers.js embedder from a local model folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quiver-factory-'));
    try {
      writeTinyOnnxModel(join(dir, 'tiny'), { dims: 8 });
      const e = await createEmbedder({ provider: 'transformers', model: join(dir, 'tiny'), pooling: 'cls' });
      expect(e.id).toMatch(/^transformers:tiny@[0-9a-f]{8}:8:v1:cls$/);
      expect((await e.embed(['hello']))[0]).toHaveLength(8);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a transformers config without a model (BAD_INPUT)', async () => {
    const config = { provider: 'transformers', model: '' } as const;
    const err: unknown = await createEmbedder(config).catch((x: unknown) => x);
    expect(isQuiverError(err, 'BAD_INPUT')).toBe(true);
    expect((err as Error).message).toContain('model');
  });

  it('rejects an unknown provider with CONFIG naming it', async () => {
    const err: unknown = await createEmbedder({ provider: 'word2vec' } as unknown as EmbedderConfig).catch(
      (x: unknown) => x,
    );
    expect(isQuiverError(err, 'CONFIG')).toBe(true);
    expect((err as Error).message).toContain('"word2vec"');
  });
});
