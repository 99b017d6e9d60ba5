/**
 * Which hnswlib code the vector index runs on. `scripts/build-native.mjs` (npm postinstall) compiles,
 * for the installing machine's CPU, hnswlib-node's addon with `-O3 -march=native` (same graph code and
 * file format, wider SIMD for the distance loop) and a parallel index builder (`native/hnsw-build.cc`),
 * and records them in `native/build/manifest.json` with the CPU model, platform, architecture and
 * Node ABI they were built for. They are used only when all four match this process — a binary built
 * for one CPU may use instructions another lacks, which would crash rather than throw — and otherwise
 * the stock hnswlib-node binding and the in-process build are used, which always work.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { lazyZod, type Zod } from '../../_zod.js';

export type HnswBinding = typeof import('hnswlib-node');

let stockBinding: HnswBinding | undefined;
/** hnswlib-node's own build, loaded on first use (a small vault's search never needs it). */
function stockHnswlib(): HnswBinding {
  return (stockBinding ??= createRequire(import.meta.url)('hnswlib-node') as HnswBinding);
}

export interface HnswNative {
  /** The binding every index of this process is created and loaded with. */
  lib: HnswBinding;
  /** 'accelerated': the addon recompiled for this CPU; 'stock': hnswlib-node's own build. */
  search: 'accelerated' | 'stock';
  /** The parallel builder's path, or null (indexes are then built in process, one insert at a time). */
  builder: string | null;
  /** Why the accelerated parts are off, when one is; null when both are on. */
  note: string | null;
}

/** The install step's manifest, checked with a schema built on first use. */
function manifestSchemaOf({ z }: Zod) {
  return z.object({
    cpu: z.string(),
    platform: z.string(),
    arch: z.string(),
    nodeAbi: z.string(),
    addon: z.string().nullable(),
    builder: z.string().nullable(),
  });
}

/** Where the install step puts its output (the package's own `native/build/`). */
// Found from the package root (its own package.json, by self-reference), not from this file's
// place: the CLI runs this code bundled into dist/cli-bundle.
export const NATIVE_BUILD_DIR = join(
  dirname(createRequire(import.meta.url).resolve('quiver/package.json')),
  'native',
  'build',
  '/',
);

const stock = (note: string): HnswNative => ({ lib: stockHnswlib(), search: 'stock', builder: null, note });

/**
 * Read the manifest in `dir` and decide; never throws. `enabled: false` (config `ann.native`) forces
 * the stock path.
 */
export function resolveHnswNative(enabled: boolean, dir: string = NATIVE_BUILD_DIR): HnswNative {
  if (!enabled) return stock('off (ann.native = false)');
  const file = join(dir, 'manifest.json');
  if (!existsSync(file)) return stock('not built (run `node scripts/build-native.mjs`)');
  let m: import('zod').infer<ReturnType<typeof manifestSchemaOf>>;
  try {
    m = manifestSchemaOf(lazyZod()).parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return stock('unreadable manifest (run `node scripts/build-native.mjs`)');
  }
  const here = {
    cpu: cpus()[0]?.model ?? 'unknown',
    platform: process.platform,
    arch: process.arch,
    nodeAbi: process.versions.modules,
  };
  for (const key of ['cpu', 'platform', 'arch', 'nodeAbi'] as const) {
    if (m[key] !== here[key])
      return stock(
        `built for another ${key} (${m[key]} ≠ ${here[key]}); run \`node scripts/build-native.mjs\``,
      );
  }
  let lib: HnswBinding = stockHnswlib();
  let search: HnswNative['search'] = 'stock';
  const notes: string[] = [];
  if (m.addon !== null && existsSync(join(dir, m.addon))) {
    try {
      lib = createRequire(import.meta.url)(join(dir, m.addon)) as HnswBinding;
      search = 'accelerated';
    } catch (e) {
      notes.push(`accelerated addon did not load: ${(e as Error).message}`);
    }
  } else notes.push('no accelerated addon');
  const builder = m.builder !== null && existsSync(join(dir, m.builder)) ? join(dir, m.builder) : null;
  if (builder === null) notes.push('no parallel builder');
  return { lib, search, builder, note: notes.length === 0 ? null : notes.join('; ') };
}

const memo = new Map<boolean, HnswNative>();

/** {@link resolveHnswNative} for the package's own build, decided once per process. */
export function hnswNative(enabled = true): HnswNative {
  let n = memo.get(enabled);
  if (n === undefined) {
    n = resolveHnswNative(enabled);
    memo.set(enabled, n);
  }
  return n;
}
