import { cpSync, createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize as normalizePath } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { normalize } from '../math/vector.js';
import { tinyRow, tinyWordIds, writeTinyOnnxModel } from './_tiny-onnx-model.js';
import type { TinyModel } from './_tiny-onnx-model.js';
import { runEmbedderContract } from './embedder.contract.js';
import {
  TRANSFORMERS_INSTALL_HINT,
  createTransformersEmbedder,
  isLocalModelPath,
  knownModelFamily,
  loadTransformers,
  poolingFromSentenceTransformers,
  transformersEmbedderId,
} from './transformers.js';

interface HubEnv {
  fetch: typeof fetch;
  remoteHost: string;
}

const root = mkdtempSync(join(tmpdir(), 'quiver-transformers-'));
const tiny: TinyModel = writeTinyOnnxModel(join(root, 'tiny'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Mean of the rows of `ids`, L2-normalised: mean pooling done by hand. */
function meanOf(model: TinyModel, ids: readonly number[]): number[] {
  const acc = new Float64Array(model.dims);
  for (const id of ids) tinyRow(model, id).forEach((x, d) => (acc[d]! += x / ids.length));
  return Array.from(normalize(acc));
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(actual[i]!).toBeCloseTo(expected[i]!, 5);
}

async function errorOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

runEmbedderContract('transformers (tiny ONNX folder)', () => createTransformersEmbedder({ model: tiny.dir }));

describe('createTransformersEmbedder on a tiny local model', () => {
  it('mean-pools over real tokens (padding excluded) and L2-normalises, as computed by hand', async () => {
    const e = await createTransformersEmbedder({ model: tiny.dir, batchSize: 8 });
    const [short, long] = await e.embed(['The cat', 'the cat sat on the mat']);
    expectClose(short!, meanOf(tiny, tinyWordIds(tiny, 'the cat')));
    expectClose(long!, meanOf(tiny, tinyWordIds(tiny, 'the cat sat on the mat')));
    const [alone] = await e.embed(['The cat']);
    expect(Array.from(alone!)).toEqual(Array.from(short!));
  });

  it('cls pooling takes the first token ([CLS]) only', async () => {
    const e = await createTransformersEmbedder({ model: tiny.dir, pooling: 'cls' });
    const cls = Array.from(normalize(tinyRow(tiny, tiny.vocab.get('[CLS]')!)));
    for (const v of await e.embed(['the cat', 'hello world'])) expectClose(v, cls);
    expect(e.id).toMatch(/:v1:cls$/);
  });

  it('has the fingerprint transformers:<folder>@<hash of model file>:<dims>:v1:<pooling>', async () => {
    const e = await createTransformersEmbedder({ model: tiny.dir });
    expect(e.dims).toBe(16);
    expect(e.id).toMatch(/^transformers:tiny@[0-9a-f]{8}:16:v1:mean$/);
    const other = writeTinyOnnxModel(join(root, 'reseeded', 'tiny'), { seed: 7 });
    const f = await createTransformersEmbedder({ model: other.dir });
    expect(f.id).not.toBe(e.id);
    expect(f.id.replace(/@\w+/, '')).toBe(e.id.replace(/@\w+/, ''));
  });

  it('uses the pooling from the folder’s sentence-transformers config, overridable by options', async () => {
    const m = writeTinyOnnxModel(join(root, 'st-cls'), { pooling: 'cls' });
    const e = await createTransformersEmbedder({ model: m.dir });
    expect(e.id).toMatch(/:cls$/);
    expectClose((await e.embed(['the dog']))[0]!, normalize(tinyRow(m, m.vocab.get('[CLS]')!)));
    const mean = await createTransformersEmbedder({ model: m.dir, pooling: 'mean' });
    expectClose((await mean.embed(['the dog']))[0]!, meanOf(m, tinyWordIds(m, 'the dog')));
    const max = writeTinyOnnxModel(join(root, 'st-max'), { pooling: 'max' });
    const err = await errorOf(createTransformersEmbedder({ model: max.dir }));
    expect(isQuiverError(err, 'CONFIG')).toBe(true);
    expect((err as Error).message).toContain('"max_tokens"');
  });

  it('applies the query or document prefix by purpose', async () => {
    const e = await createTransformersEmbedder({ model: tiny.dir, queryPrefix: 'query: ' });
    const [q] = await e.embed(['the cat'], { purpose: 'query' });
    const [d] = await e.embed(['the cat'], { purpose: 'document' });
    const v = tiny.vocab;
    const queryIds = ['[CLS]', 'q', '##u', '##e', '##r', '##y', ':', 'the', 'cat', '[SEP]'].map((t) =>
      v.get(t)!,
    );
    expectClose(q!, meanOf(tiny, queryIds));
    expectClose(d!, meanOf(tiny, tinyWordIds(tiny, 'the cat')));
    expect(e.id).toMatch(/:v1:mean:p-[0-9a-f]{8}$/);
    const plain = await createTransformersEmbedder({ model: tiny.dir });
    const [pq, pd] = [
      ...(await plain.embed(['the cat'], { purpose: 'query' })),
      ...(await plain.embed(['the cat'])),
    ];
    expect(Array.from(pq!)).toEqual(Array.from(pd!));
  });

  it('takes pooling and prefixes from a known family (e5) by folder name, and options override them', async () => {
    const dir = join(root, 'e5-small-v2');
    cpSync(tiny.dir, dir, { recursive: true });
    const e = await createTransformersEmbedder({ model: dir });
    const [q] = await e.embed(['the cat'], { purpose: 'query' });
    const [d] = await e.embed(['the cat'], { purpose: 'document' });
    expect(Array.from(q!)).not.toEqual(Array.from(d!));
    expect(e.id).toContain(':p-');
    const bare = await createTransformersEmbedder({ model: dir, queryPrefix: '', documentPrefix: '' });
    expect(bare.id).toMatch(/^transformers:e5-small-v2@[0-9a-f]{8}:16:v1:mean$/);
    const [bq] = await bare.embed(['the cat'], { purpose: 'query' });
    expectClose(bq!, meanOf(tiny, tinyWordIds(tiny, 'the cat')));
  });

  it('batches, reports progress per batch and skips blank texts', async () => {
    const e = await createTransformersEmbedder({ model: tiny.dir, batchSize: 2 });
    const seen: [number, number][] = [];
    const vs = await e.embed(['the cat', '', 'the dog', 'hello', 'world'], {
      onProgress: (done, total) => seen.push([done, total]),
    });
    expect(seen).toEqual([
      [3, 5],
      [5, 5],
    ]);
    expect(vs[1]!.every((x) => x === 0)).toBe(true);
    expectClose(vs[4]!, meanOf(tiny, tinyWordIds(tiny, 'world')));
  });

  it('stops between batches when the signal is aborted (ABORTED)', async () => {
    const e = await createTransformersEmbedder({ model: tiny.dir, batchSize: 1 });
    const ac = new AbortController();
    const seen: number[] = [];
    const err = await errorOf(
      e.embed(['the cat', 'the dog', 'hello'], {
        signal: ac.signal,
        onProgress: (done) => {
          seen.push(done);
          ac.abort(new Error('stop'));
        },
      }),
    );
    expect(isQuiverError(err, 'ABORTED')).toBe(true);
    expect(seen).toEqual([1]);
  });

  it('rejects bad options with BAD_INPUT', async () => {
    for (const bad of [
      { model: '' },
      { model: tiny.dir, batchSize: 0 },
      { model: tiny.dir, pooling: 'max' },
      { model: tiny.dir, dtype: 'fp8' },
    ]) {
      const err = await errorOf(createTransformersEmbedder(bad as never));
      expect(isQuiverError(err, 'BAD_INPUT')).toBe(true);
    }
  });

  it('says clearly when the folder is missing or has no model file (CONFIG)', async () => {
    const missing = join(root, 'no-such-model');
    const err = await errorOf(createTransformersEmbedder({ model: missing }));
    expect(isQuiverError(err, 'CONFIG')).toBe(true);
    expect((err as Error).message).toContain(`${missing} does not exist`);
    const q8 = await errorOf(createTransformersEmbedder({ model: tiny.dir, dtype: 'q8' }));
    expect(isQuiverError(q8, 'CONFIG')).toBe(true);
    expect((q8 as Error).message).toContain('onnx/model_quantized.onnx');
  });

  it('says how to install the package when it is missing (CONFIG)', async () => {
    const err = await errorOf(loadTransformers('quiver-no-such-package-0'));
    expect(isQuiverError(err, 'CONFIG')).toBe(true);
    expect((err as Error).message).toContain(TRANSFORMERS_INSTALL_HINT);
    expect((err as Error).message).toContain('is not installed');
  });
});

describe('hub ids', () => {
  const hubRoot = join(root, 'hub');
  const published = writeTinyOnnxModel(join(hubRoot, 'quiver-test', 'tiny-hub'), { seed: 3 });
  let env: HubEnv;
  let savedHost = '';
  let realFetch: typeof fetch;
  const fetched: string[] = [];
  let server: Server;
  let serverHost = '';

  beforeAll(async () => {
    env = (await import('@huggingface/transformers')).env as unknown as HubEnv;
    savedHost = env.remoteHost;
    realFetch = env.fetch;
    env.fetch = (input, init) => {
      fetched.push(String(input instanceof Request ? input.url : input));
      return realFetch(input, init);
    };
    // Serves <org>/<name>/resolve/main/<file> from hubRoot, like the hub does.
    server = createServer((req, res) => {
      const m = /^\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(decodeURIComponent(req.url ?? ''));
      const file = m === null ? '' : normalizePath(join(hubRoot, m[1]!, m[2]!));
      if (m === null || !file.startsWith(hubRoot) || !existsSync(file) || !statSync(file).isFile()) {
        res.writeHead(404).end('not found');
        return;
      }
      res.writeHead(200, {
        'content-length': statSync(file).size,
        'content-type': 'application/octet-stream',
      });
      createReadStream(file).pipe(res);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    serverHost = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    env.fetch = realFetch;
    env.remoteHost = savedHost;
    await new Promise((done) => server.close(done));
  });

  it('never touches the network for a folder', async () => {
    fetched.length = 0;
    const m = writeTinyOnnxModel(join(root, 'offline-check'), { seed: 11 });
    await (await createTransformersEmbedder({ model: m.dir })).embed(['the cat']);
    expect(fetched).toEqual([]);
  });

  it('downloads a hub id into cacheDir, then loads it from the cache with localOnly and no network', async () => {
    env.remoteHost = serverHost;
    const cacheDir = join(root, 'cache');
    fetched.length = 0;
    const online = await createTransformersEmbedder({ model: 'quiver-test/tiny-hub', cacheDir });
    expect(online.id).toBe('transformers:quiver-test/tiny-hub:16:v1:mean');
    expect(fetched.some((u) => u.endsWith('/onnx/model.onnx'))).toBe(true);
    const [v] = await online.embed(['hello world']);
    expectClose(v!, meanOf(published, tinyWordIds(published, 'hello world')));

    env.remoteHost = 'http://127.0.0.1:9/';
    fetched.length = 0;
    const cached = await createTransformersEmbedder({
      model: 'quiver-test/tiny-hub',
      cacheDir,
      localOnly: true,
    });
    expect(fetched).toEqual([]);
    expect(cached.id).toBe(online.id);
    expect(Array.from((await cached.embed(['hello world']))[0]!)).toEqual(Array.from(v!));
  });

  it('fails with CONFIG for a hub id that is not cached under localOnly, without any request', async () => {
    fetched.length = 0;
    const err = await errorOf(
      createTransformersEmbedder({
        model: 'quiver-test/absent',
        cacheDir: join(root, 'cache'),
        localOnly: true,
      }),
    );
    expect(isQuiverError(err, 'CONFIG')).toBe(true);
    expect((err as Error).message).toContain('localOnly');
    expect(fetched).toEqual([]);
  });

  it('fails with CONFIG for a hub id the hub does not have', async () => {
    env.remoteHost = serverHost;
    const err = await errorOf(
      createTransformersEmbedder({ model: 'quiver-test/absent', cacheDir: join(root, 'c2') }),
    );
    expect(isQuiverError(err, 'CONFIG')).toBe(true);
    expect((err as Error).message).toContain('not found on the Hugging Face hub');
  });

  it('fails fast with REMOTE when the hub cannot be reached', async () => {
    env.remoteHost = 'http://127.0.0.1:9/';
    const t0 = Date.now();
    const err = await errorOf(
      createTransformersEmbedder({ model: 'quiver-test/unreachable', cacheDir: join(root, 'c3') }),
    );
    expect(isQuiverError(err, 'REMOTE')).toBe(true);
    expect((err as Error).message).toContain('local model folder');
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});

describe('knownModelFamily', () => {
  it('knows e5 (query:/passage:, mean) but not e5-instruct', () => {
    expect(knownModelFamily('intfloat/e5-small-v2')).toMatchObject({
      family: 'e5',
      pooling: 'mean',
      queryPrefix: 'query: ',
      documentPrefix: 'passage: ',
    });
    expect(knownModelFamily('Xenova/multilingual-e5-base')?.family).toBe('e5');
    expect(knownModelFamily('intfloat/multilingual-e5-large-instruct')).toBeUndefined();
  });

  it('knows bge (cls, instruction on queries only) and bge-m3 (no prefix)', () => {
    expect(knownModelFamily('Xenova/bge-small-en-v1.5')).toMatchObject({
      pooling: 'cls',
      queryPrefix: 'Represent this sentence for searching relevant passages: ',
      documentPrefix: '',
    });
    expect(knownModelFamily('BAAI/bge-m3')).toMatchObject({ pooling: 'cls', queryPrefix: '' });
  });

  it('matches on the last path segment, case-insensitively; unknown models give undefined', () => {
    expect(knownModelFamily('/models/All-MiniLM-L6-v2/')).toMatchObject({ pooling: 'mean', queryPrefix: '' });
    expect(knownModelFamily('C:\\models\\nomic-embed-text-v1.5')?.queryPrefix).toBe('search_query: ');
    expect(knownModelFamily('someone/my-model')).toBeUndefined();
    expect(knownModelFamily('')).toBeUndefined();
  });
});

describe('poolingFromSentenceTransformers', () => {
  it('reads cls and mean, and gives undefined when no mode is set or the value is not an object', () => {
    expect(
      poolingFromSentenceTransformers({ pooling_mode_cls_token: true, pooling_mode_mean_tokens: false }),
    ).toBe('cls');
    expect(poolingFromSentenceTransformers({ pooling_mode_mean_tokens: true })).toBe('mean');
    expect(poolingFromSentenceTransformers({ pooling_mode_cls_token: false })).toBeUndefined();
    expect(poolingFromSentenceTransformers(undefined)).toBeUndefined();
    expect(poolingFromSentenceTransformers('mean')).toBeUndefined();
  });

  it('refuses modes it cannot reproduce (CONFIG)', () => {
    let err: unknown;
    try {
      poolingFromSentenceTransformers({ pooling_mode_lasttoken: true });
    } catch (e) {
      err = e;
    }
    expect(isQuiverError(err, 'CONFIG')).toBe(true);
    expect((err as Error).message).toContain('"lasttoken"');
  });
});

describe('transformersEmbedderId', () => {
  it('is transformers:<model>:<dims>:v1:<pooling>, with dtype and prefix markers when they apply', () => {
    expect(transformersEmbedderId({ model: 'Xenova/all-MiniLM-L6-v2', dims: 384, pooling: 'mean' })).toBe(
      'transformers:Xenova/all-MiniLM-L6-v2:384:v1:mean',
    );
    expect(transformersEmbedderId({ model: 'm', dims: 8, pooling: 'cls', dtype: 'fp32' })).toBe(
      'transformers:m:8:v1:cls',
    );
    expect(transformersEmbedderId({ model: 'm', dims: 8, pooling: 'cls', dtype: 'q8' })).toBe(
      'transformers:m:8:v1:cls:q8',
    );
    const a = transformersEmbedderId({ model: 'm', dims: 8, pooling: 'mean', queryPrefix: 'query: ' });
    const b = transformersEmbedderId({ model: 'm', dims: 8, pooling: 'mean', documentPrefix: 'query: ' });
    expect(a).toMatch(/^transformers:m:8:v1:mean:p-[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
  });

  it('keeps ":" out of the model part so the fields stay split-able', () => {
    const id = transformersEmbedderId({ model: 'a:b@1234abcd', dims: 4, pooling: 'mean' });
    expect(id.split(':')).toEqual(['transformers', 'a_b@1234abcd', '4', 'v1', 'mean']);
  });
});

describe('isLocalModelPath', () => {
  it('treats absolute, ./ and ~ paths and existing folders as local, other names as hub ids', () => {
    expect(isLocalModelPath('/opt/models/x')).toBe(true);
    expect(isLocalModelPath('./models/x')).toBe(true);
    expect(isLocalModelPath('~/models/x')).toBe(true);
    expect(isLocalModelPath('src')).toBe(true);
    expect(isLocalModelPath('Xenova/all-MiniLM-L6-v2')).toBe(false);
  });
});
