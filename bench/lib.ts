// Shared helpers for the benchmarks: data location, statistics, tables, and RESULTS.md sections.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import type { SearchOptions, Vault } from '../src/index.js';

/** Where the public data sets live: `$QUIVER_DATA`, else `../shared/data`. */
export const DATA_DIR = resolve(process.env.QUIVER_DATA ?? '../shared/data');
export const OUT_DIR = resolve('bench/out');
export const SECTIONS_DIR = join(OUT_DIR, 'sections');

export function dataPath(...parts: string[]): string | null {
  const p = join(DATA_DIR, ...parts);
  return existsSync(p) ? p : null;
}

export function median(xs: readonly number[]): number {
  return percentile(xs, 50);
}

/** Nearest-rank percentile on a sorted copy (p in 0..100). Empty → NaN. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i]!;
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** A Markdown table. */
export function mdTable(headers: string[], rows: (string | number)[][]): string {
  const fmt = (v: string | number): string =>
    typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : v;
  return [
    `| ${headers.join(' | ')} |`,
    `| ${headers.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(fmt).join(' | ')} |`),
  ].join('\n');
}

/** Save one benchmark's Markdown section (RESULTS.md is assembled from all sections). */
export function writeSection(name: string, markdown: string): void {
  mkdirSync(SECTIONS_DIR, { recursive: true });
  writeFileSync(join(SECTIONS_DIR, `${name}.md`), markdown.trimEnd() + '\n');
  process.stdout.write(`\n${markdown.trimEnd()}\n`);
}

export function readSection(name: string): string | null {
  const p = join(SECTIONS_DIR, `${name}.md`);
  return existsSync(p) ? readFileSync(p, 'utf8') : null;
}

export function machine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  let sqlite = '?';
  try {
    sqlite = execFileSync(
      process.execPath,
      [
        '-e',
        "const D=require('better-sqlite3');console.log(new D(':memory:').prepare('select sqlite_version() v').get().v)",
      ],
      { encoding: 'utf8' },
    ).trim();
  } catch {
    /* reported as ? */
  }
  return `${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, SQLite ${sqlite}`;
}

/** Run the quiver CLI as a child process (as other tools would) and return stdout. */
export function quiver(args: string[], input?: string): string {
  const r = spawnSync(process.execPath, ['bin/quiver.js', ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    input,
    env: { ...process.env, QUIVER_PROGRESS: 'false' },
  });
  if (r.status !== 0 && r.status !== 4)
    throw new Error(`quiver ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

export function timeIt<T>(fn: () => T): { ms: number; value: T } {
  const t = performance.now();
  const value = fn();
  return { ms: performance.now() - t, value };
}

/**
 * Run `quiver …` under GNU time (`/usr/bin/time -v`) and return its peak resident set size in MiB
 * and wall seconds; null when GNU time is not installed.
 */
export function quiverPeakMemory(args: string[]): { peakMiB: number; seconds: number } | null {
  if (!existsSync('/usr/bin/time')) return null;
  const t = performance.now();
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, 'bin/quiver.js', ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, QUIVER_PROGRESS: 'false' },
  });
  const seconds = (performance.now() - t) / 1000;
  if (r.status !== 0 && r.status !== 4)
    throw new Error(`quiver ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  return m === null ? null : { peakMiB: Number(m[1]) / 1024, seconds };
}

/** Median and 95th percentile (ms) of `vault.search` over `timed`, after one pass over `warmup`. */
export async function timeSearches(
  vault: Vault,
  warmup: readonly string[],
  timed: readonly string[],
  options: SearchOptions,
): Promise<{ p50: number; p95: number }> {
  for (const q of warmup) await vault.search(q, options);
  const times: number[] = [];
  for (const q of timed) {
    const t = performance.now();
    await vault.search(q, options);
    times.push(performance.now() - t);
  }
  return { p50: median(times), p95: percentile(times, 95) };
}
