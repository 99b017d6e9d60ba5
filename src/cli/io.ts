/** What a command may touch: streams, environment and working folder. Tests pass their own. */
export interface CliIO {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  /** Reads all of standard input (for `quiver add -`). */
  readStdin: () => Promise<string>;
  env: NodeJS.ProcessEnv;
  cwd: string;
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
  };
}
