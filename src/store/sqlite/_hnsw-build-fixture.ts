/**
 * Child process for `hnsw-parallel-build.test.ts`, run as
 * `node --import tsx _hnsw-build-fixture.ts <rows> <dims>`: starts a native parallel build of that
 * many random unit rows with the default graph parameters on two threads and, once the builder has
 * inserted its first batch (so it is busy inserting, not waiting for input), prints
 * `{"pid":<builder pid>,"dir":"<its temporary directory>"}` on one line of stdout. The test then
 * kills this process. Exits 3 when the native builder is not installed, 2 on bad arguments.
 */
import { DEFAULT_HNSW_EF_CONSTRUCTION, DEFAULT_HNSW_M, DEFAULT_HNSW_SEED } from './hnsw-index.js';
import { hnswNative } from './hnsw-native.js';
import { runParallelBuild } from './hnsw-parallel-build.js';
import { mulberry32 } from '../../math/mulberry32.js';

const [rows, dims] = process.argv.slice(2).map(Number);
const builder = hnswNative().builder;
if (rows === undefined || dims === undefined || !(rows > 0) || !(dims > 0)) {
  console.error('usage: _hnsw-build-fixture.ts <rows> <dims>');
  process.exit(2);
}
if (builder === null) {
  console.error(`no native builder: ${hnswNative().note ?? ''}`);
  process.exit(3);
}

const rnd = mulberry32(1);
const data = new Float32Array(rows * dims);
for (let i = 0; i < rows; i++) {
  let sq = 0;
  for (let j = 0; j < dims; j++) sq += (data[i * dims + j] = rnd() - 0.5) ** 2;
  for (let j = 0; j < dims; j++) data[i * dims + j]! /= Math.sqrt(sq);
}
const labels = Array.from({ length: rows }, (_, i) => i);
let started: { pid: number; dir: string } | null = null;
await runParallelBuild({
  builder,
  space: 'ip',
  dims,
  m: DEFAULT_HNSW_M,
  efConstruction: DEFAULT_HNSW_EF_CONSTRUCTION,
  seed: DEFAULT_HNSW_SEED,
  threads: 2,
  labels,
  rows: labels,
  data,
  onStart: (b) => (started = b),
  onProgress: () => {
    if (started === null) return;
    process.stdout.write(`${JSON.stringify(started)}\n`);
    started = null;
  },
});
