/** What a command may touch: streams, environment and working folder. Tests pass their own. */
export interface CliIO {
  /** Written text, or UTF-8 bytes already encoded (`json-line.ts`). */
  stdout: { write(s: string | Uint8Array): unknown; isTTY?: boolean };
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

/**
 * A stream that is written long strings as UTF-8 bytes: Node's `write(string)` encodes through
 * `Buffer.from`, about ten times slower than `TextEncoder` on a 200 KB line of JSON with non-ASCII
 * text (a batch search at --limit 100 writes one such line per query). Short strings go as they are.
 */
export function encodingWriter(stream: NodeJS.WriteStream): CliIO['stdout'] {
  const encoder = new TextEncoder();
  return {
    write: (s: string | Uint8Array) =>
      stream.write(typeof s === 'string' && s.length >= 16_384 ? encoder.encode(s) : s),
    get isTTY() {
      return stream.isTTY;
    },
  };
}

/** The real process's IO. */
export function processIO(): CliIO {
  return {
    stdout: encodingWriter(process.stdout),
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
