import { availableParallelism } from 'node:os';
import { QuiverError } from '../errors.js';
import type { CliIO } from './io.js';

/** Fewest queries a process is given: below this, starting one costs more than it saves. */
export const MIN_QUERIES_PER_PROCESS = 100;
/** Most processes a batch starts by default. */
export const MAX_BATCH_PROCESSES = 4;

/**
 * How many processes a batch of `queries` runs in: `--jobs` when given (an integer ≥ 1), else one
 * per core up to `MAX_BATCH_PROCESSES`, each with at least `MIN_QUERIES_PER_PROCESS` queries (so a
 * short batch stays in this process). Bad input → BAD_INPUT.
 */
export function batchProcesses(
  queries: number,
  jobs: string | undefined,
  cores = availableParallelism(),
): number {
  if (jobs !== undefined) {
    const n = Number(jobs);
    if (!Number.isInteger(n) || n < 1)
      throw new QuiverError('BAD_INPUT', `quiver search: --jobs must be an integer ≥ 1, got ${jobs}`);
    return Math.min(n, Math.max(1, queries));
  }
  return Math.max(1, Math.min(cores, MAX_BATCH_PROCESSES, Math.floor(queries / MIN_QUERIES_PER_PROCESS)));
}

/** `argv` with its `--queries` value replaced by `-` (standard input) and `--jobs 1` added. */
export function childArgs(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--queries') {
      out.push('--queries', '-');
      i++;
    } else if (a.startsWith('--queries=')) out.push('--queries', '-');
    else if (a === '--jobs') i++;
    else if (!a.startsWith('--jobs=')) out.push(a);
  }
  return [...out, '--jobs', '1'];
}

/**
 * Run `lines` (JSON query lines) in `n` child processes of this CLI, each given a contiguous share
 * on its standard input, and write their output in input order: the first child's as it comes,
 * each later one's once those before it are done. Standard error passes through. Resolves to the
 * first non-zero exit code, else 0.
 */
export async function runInProcesses(
  io: CliIO,
  self: { script: string; argv: readonly string[] },
  lines: readonly string[],
  n: number,
): Promise<number> {
  const { spawn } = await import('node:child_process');
  const size = Math.ceil(lines.length / n);
  const parts = Array.from({ length: n }, (_, i) => lines.slice(i * size, (i + 1) * size)).filter(
    (p) => p.length > 0,
  );
  const held: Buffer[][] = parts.map(() => []);
  let writing = 0;
  const done: boolean[] = parts.map(() => false);
  const flush = (): void => {
    while (writing < parts.length) {
      for (const b of held[writing]!) io.stdout.write(b);
      held[writing] = [];
      if (!done[writing]) return;
      writing++;
    }
  };
  const codes = await Promise.all(
    parts.map(
      (part, i) =>
        new Promise<number>((resolve, reject) => {
          const child = spawn(process.execPath, [self.script, ...childArgs(self.argv)], {
            stdio: ['pipe', 'pipe', 'inherit'],
            env: io.env,
            cwd: io.cwd,
          });
          child.on('error', (e) =>
            reject(new QuiverError('INTERNAL', `quiver search: a batch process did not start: ${e.message}`)),
          );
          child.stdout.on('data', (b: Buffer) => {
            held[i]!.push(b);
            if (i === writing) flush();
          });
          child.on('close', (code) => {
            done[i] = true;
            flush();
            resolve(code ?? 1);
          });
          child.stdin.on('error', () => undefined); // the exit code reports a child that died
          child.stdin.end(part.join('\n') + '\n');
        }),
    ),
  );
  flush();
  return codes.find((c) => c !== 0) ?? 0;
}
