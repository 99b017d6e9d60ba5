#!/usr/bin/env node
// Install step (npm postinstall): compile quiver's optional native accelerators for the HNSW vector
// index into native/build/, for this machine's CPU:
//   - hnswlib.node: hnswlib-node's own addon source recompiled with -O3 -march=native, so distance
//     computations use the widest vector instructions the CPU has (AVX2/AVX-512; the stock build is
//     SSE) — the same graph code and file format, about twice as fast per query (bench/ann.ts);
//   - hnsw-build: native/hnsw-build.cc, which inserts on every core (the binding inserts on one).
// Each is smoke-tested in a child process before it is recorded in native/build/manifest.json with
// the CPU model, platform and Node ABI it was built for; src/store/sqlite/hnsw-native.ts uses them
// only on a matching machine and otherwise falls back to the stock binding and the in-process build.
// This script never fails the install: on any problem it says so in one line and leaves the stock
// path in place. Set QUIVER_SKIP_NATIVE_BUILD=1 to skip it; run `node scripts/build-native.mjs`
// again after moving the install to another machine.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'native', 'build');
const require = createRequire(join(root, 'package.json'));
const FLAGS = ['-O3', '-march=native'];

function say(msg) {
  console.log(`quiver native: ${msg}`);
}

/** Run a command, resolving to { code, output } (never rejects). */
function run(cmd, args, options = {}) {
  return new Promise((done) => {
    let output = '';
    let child;
    try {
      child = spawn(cmd, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      done({ code: -1, output: String(e) });
      return;
    }
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (e) => done({ code: -1, output: output + String(e) }));
    child.on('close', (code, signal) => done({ code: code ?? -1, output: output + (signal ?? '') }));
  });
}

function nodeGyp() {
  const fromNpm = process.env.npm_config_node_gyp;
  if (fromNpm !== undefined && existsSync(fromNpm)) return fromNpm;
  const bundled = join(
    dirname(process.execPath),
    '..',
    'lib',
    'node_modules',
    'npm',
    'node_modules',
    'node-gyp',
    'bin',
    'node-gyp.js',
  );
  return existsSync(bundled) ? bundled : null;
}

/** hnswlib-node's addon, recompiled in a copy of its sources (the installed package is not touched). */
async function buildAddon(hnswDir) {
  const gyp = nodeGyp();
  if (gyp === null) return 'node-gyp not found';
  const work = join(out, 'addon-src');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  cpSync(join(hnswDir, 'src'), join(work, 'src'), { recursive: true });
  const napiInclude = dirname(require.resolve('node-addon-api/package.json'));
  const flags = JSON.stringify(FLAGS);
  writeFileSync(
    join(work, 'binding.gyp'),
    `{"targets":[{"target_name":"addon","sources":["src/addon.cc"],"include_dirs":[${JSON.stringify(napiInclude)}],` +
      `"defines":["NAPI_DISABLE_CPP_EXCEPTIONS"],"cflags!":["-fno-exceptions"],"cflags_cc!":["-fno-exceptions"],` +
      `"cflags":${flags},"cflags_cc":${flags}}]}\n`,
  );
  // Node's own headers (npm's nodedir setting, else the ones installed beside this node binary), so
  // node-gyp does not try to download them.
  const prefix = resolve(dirname(process.execPath), '..');
  const nodedir =
    process.env.npm_config_nodedir ??
    (existsSync(join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined);
  const gypArgs = [gyp, 'rebuild', '--release', ...(nodedir === undefined ? [] : [`--nodedir=${nodedir}`])];
  const built = await run(process.execPath, gypArgs, { cwd: work });
  const addon = join(work, 'build', 'Release', 'addon.node');
  if (built.code !== 0 || !existsSync(addon))
    return `addon build failed: ${built.output.trim().split('\n').slice(-3).join(' / ')}`;
  cpSync(addon, join(out, 'hnswlib.node'));
  rmSync(work, { recursive: true, force: true });
  return null;
}

async function buildBuilder(hnswDir) {
  const cxx = process.env.CXX ?? 'c++';
  const args = [
    ...FLAGS,
    '-std=c++17',
    '-pthread',
    '-I',
    join(hnswDir, 'src'),
    join(root, 'native', 'hnsw-build.cc'),
    '-o',
    join(out, 'hnsw-build'),
  ];
  const built = await run(cxx, args);
  return built.code === 0
    ? null
    : `builder build failed: ${built.output.trim().split('\n').slice(-3).join(' / ')}`;
}

/**
 * Child-process check of both pieces together: the builder writes a small index on two threads (with
 * the parent pid and temporary directory quiver passes, so its parent watch runs too), the
 * recompiled addon (or the stock one) reads it and finds each probe vector as its own nearest
 * neighbour, then the addon builds and searches an index of its own. A crash (e.g. an illegal
 * instruction) fails the check without touching this process.
 */
function smokeTest(useAddon, useBuilder) {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-native-smoke-'));
  const file = join(dir, 'index.hnsw');
  const script = `
    const { spawnSync } = require('node:child_process');
    const lib = require(${JSON.stringify(useAddon ? join(out, 'hnswlib.node') : 'hnswlib-node')});
    const dims = 16, n = 600;
    let seed = 7; const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) - 0.5;
    const rows = Array.from({ length: n }, () => { const v = Array.from({ length: dims }, rnd); const s = Math.hypot(...v); return v.map((x) => x / s); });
    const probe = (ix) => { ix.setEf(64); for (let i = 0; i < n; i += 37) { const r = ix.searchKnn(rows[i], 1); if (r.neighbors[0] !== i) throw new Error('probe ' + i); } };
    const own = new lib.HierarchicalNSW('ip', dims); own.initIndex({ maxElements: n, m: 8, efConstruction: 50, randomSeed: 1 });
    rows.forEach((r, i) => own.addPoint(r, i)); probe(own);
    if (${useBuilder}) {
      const buf = Buffer.alloc(n * (4 + dims * 4));
      rows.forEach((r, i) => { const o = i * (4 + dims * 4); buf.writeUInt32LE(i, o); r.forEach((x, j) => buf.writeFloatLE(x, o + 4 + j * 4)); });
      const b = spawnSync(${JSON.stringify(join(out, 'hnsw-build'))}, ['ip', String(dims), String(n), '8', '50', '1', '2', ${JSON.stringify(file)}, String(process.pid), ${JSON.stringify(dir)}], { input: buf });
      if (b.status !== 0) throw new Error('builder exited ' + b.status + ' ' + b.signal + ' ' + b.stderr);
      const read = new lib.HierarchicalNSW('ip', dims); read.readIndexSync(${JSON.stringify(file)}); probe(read);
    }
  `;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  rmSync(dir, { recursive: true, force: true });
  return r.status === 0
    ? null
    : `smoke test failed (${r.signal ?? `exit ${r.status}`}): ${(r.stderr ?? '').trim().split('\n')[0] ?? ''}`;
}

async function main() {
  if (process.env.QUIVER_SKIP_NATIVE_BUILD === '1') {
    say('skipped (QUIVER_SKIP_NATIVE_BUILD=1); the stock hnswlib-node binding is used');
    return;
  }
  let hnswDir;
  try {
    hnswDir = dirname(require.resolve('hnswlib-node/package.json'));
  } catch {
    say('hnswlib-node is not installed; nothing to build');
    return;
  }
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const t = performance.now();
  const [addonError, builderError] = await Promise.all([buildAddon(hnswDir), buildBuilder(hnswDir)]);
  let addon = addonError === null;
  let builder = builderError === null;
  for (const e of [addonError, builderError]) if (e !== null) say(e);
  if (addon && smokeTest(true, false) !== null) {
    say('the recompiled hnswlib addon failed its check; using the stock one');
    addon = false;
  }
  const builderCheck = builder ? smokeTest(addon, true) : null;
  if (builderCheck !== null) {
    say(`the parallel builder ${builderCheck}; building in process instead`);
    builder = false;
  }
  if (!addon) rmSync(join(out, 'hnswlib.node'), { force: true });
  if (!builder) rmSync(join(out, 'hnsw-build'), { force: true });
  const hnswVersion = JSON.parse(readFileSync(join(hnswDir, 'package.json'), 'utf8')).version;
  const manifest = {
    cpu: cpus()[0]?.model ?? 'unknown',
    platform: process.platform,
    arch: process.arch,
    nodeAbi: process.versions.modules,
    hnswlibNode: hnswVersion,
    flags: FLAGS,
    addon: addon ? 'hnswlib.node' : null,
    builder: builder ? 'hnsw-build' : null,
  };
  writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const secs = ((performance.now() - t) / 1000).toFixed(0);
  say(
    `built in ${secs} s for ${manifest.cpu}: accelerated search ${addon ? 'on' : 'off'}, parallel index build ${builder ? 'on' : 'off'}`,
  );
}

main().catch((e) => say(`skipped after an error: ${e instanceof Error ? e.message : String(e)}`));
