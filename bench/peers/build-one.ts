// `node --import tsx bench/peers/build-one.ts <system> <build> <corpus.jsonl>`: build one system's
// index in a process of its own and print one JSON line: build time, peak RSS, size. The corpus is
// read before the clock starts; peak RSS is read before the size is measured (serialising an
// in-memory index allocates). `<system>` `baseline` only reads the corpus, for the floor.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCorpus } from './corpus.js';
import { SYSTEMS } from './registry.js';

export interface BuildMeasure {
  buildMs: number;
  peakRssKiB: number;
  sizeBytes: number | null;
}

export const BASELINE = 'baseline';

/**
 * Peak resident set of this process in KiB. On Linux, `VmHWM` of /proc/self/status: it belongs to
 * this program's own address space, whereas `process.resourceUsage().maxRSS` of a spawned child
 * starts at its parent's resident size at the fork (the kernel keeps the high-water mark of the
 * forked copy across exec), which here would hide every build under the benchmark's own size.
 * Elsewhere, `maxRSS`.
 */
export function peakRssKiB(): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m !== null) return Number(m[1]);
  } catch {
    /* not Linux */
  }
  return process.resourceUsage().maxRSS;
}

async function main(system: string, build: number, corpusPath: string): Promise<BuildMeasure> {
  const docs = loadCorpus(corpusPath);
  if (system === BASELINE) return { buildMs: 0, peakRssKiB: peakRssKiB(), sizeBytes: null };
  const load = SYSTEMS[system];
  if (load === undefined) throw new Error(`unknown system ${system}`);
  const peer = await load();
  const workDir = mkdtempSync(join(tmpdir(), 'quiver-peer-build-'));
  try {
    const t = performance.now();
    const built = await peer.build(docs, build, { corpusPath, workDir });
    const buildMs = performance.now() - t;
    const peakRss = peakRssKiB();
    // A database's files are measured after close (quiver checkpoints its log), a serialised
    // index before.
    let sizeBytes: number | null = null;
    if (peer.size !== 'disk') sizeBytes = await built.sizeBytes();
    await built.close();
    if (peer.size === 'disk') sizeBytes = await built.sizeBytes();
    return { buildMs, peakRssKiB: peakRss, sizeBytes };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** Run `main` in a child process and parse its report. */
export function measureBuild(system: string, build: number, corpusPath: string): BuildMeasure {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), system, String(build), corpusPath],
    { encoding: 'utf8', maxBuffer: 1 << 26, env: { ...process.env, QUIVER_PROGRESS: 'false' } },
  );
  const last = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !last.startsWith('{'))
    throw new Error(`build of ${system} failed (${r.status}): ${r.stderr.trim().slice(-500)}`);
  return JSON.parse(last) as BuildMeasure;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [system, build, corpusPath] = process.argv.slice(2);
  if (system === undefined || build === undefined || corpusPath === undefined)
    throw new Error('usage: build-one.ts <system> <build> <corpus.jsonl>');
  process.stdout.write(`${JSON.stringify(await main(system, Number(build), corpusPath))}\n`);
}
