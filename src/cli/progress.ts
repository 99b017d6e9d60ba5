import cliProgress from 'cli-progress';
import type { CliIO } from './io.js';

export interface Progress {
  update(done: number, total: number, label: string): void;
  stop(): void;
}

/**
 * A progress bar on stderr, only when stderr is a terminal and not `--quiet` (so pipes and CI logs
 * stay clean).
 */
export function progressBar(io: CliIO, quiet: boolean, what: string): Progress {
  if (quiet || io.stderr.isTTY !== true || io.env.TERM === 'dumb' || io.env.QUIVER_PROGRESS === 'false')
    return { update: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    {
      stream: io.stderr as NodeJS.WritableStream,
      format: `${what} [{bar}] {value}/{total} {label}`,
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total, label) {
      if (!started) {
        bar.start(total, 0, { label: '' });
        started = true;
      }
      bar.setTotal(total);
      bar.update(done, { label: label.length > 40 ? `…${label.slice(-39)}` : label });
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}

/**
 * A bar for a command's main work and one each for the vector and lexical index updates that may
 * follow it (`add`, `reindex`): each bar stops when the next one starts.
 */
export function progressWithIndex(
  io: CliIO,
  quiet: boolean,
  what: string,
): {
  bar: Progress;
  onIndexProgress: (done: number, total: number) => void;
  onLexicalIndexProgress: (done: number, total: number) => void;
  stop: () => void;
} {
  const bars = [
    progressBar(io, quiet, what),
    progressBar(io, quiet, 'vector index'),
    progressBar(io, quiet, 'lexical index'),
  ];
  const step = (i: number) => (done: number, total: number) => {
    bars.slice(0, i).forEach((b) => b.stop());
    bars[i]!.update(done, total, '');
  };
  return {
    bar: bars[0]!,
    onIndexProgress: step(1),
    onLexicalIndexProgress: step(2),
    stop: () => bars.forEach((b) => b.stop()),
  };
}
