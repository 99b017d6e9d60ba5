/** What a command may touch: streams, environment and working folder. Tests pass their own. */
export interface CliIO {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  /** Reads all of standard input (for `quiver add -`). */
  readStdin: () => Promise<string>;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted when the user asks the command to stop (SIGINT, SIGTERM). */
  signal?: AbortSignal;
}

/**
 * An AbortSignal for the real process: the first SIGINT or SIGTERM aborts it (a running add
 * writes the document in hand, marks its batch interrupted and exits 130); a second one ends the
 * process at once with 130 (whole documents only are ever written, so that is safe too).
 */
export function stopSignal(stderr: { write(s: string): unknown }): AbortSignal {
  const controller = new AbortController();
  const stop = (): void => {
    if (controller.signal.aborted) process.exit(130);
    stderr.write('\nquiver: stopping after the current document (press Ctrl-C again to stop now)\n');
    controller.abort();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return controller.signal;
}

/** The real process's IO. */
export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    readStdin: async () => {
      const parts: Buffer[] = [];
      for await (const c of process.stdin) parts.push(c as Buffer);
      return Buffer.concat(parts).toString('utf8');
    },
    env: process.env,
    cwd: process.cwd(),
    signal: stopSignal(process.stderr),
  };
}
