import { styleText } from 'node:util';
import type { CliIO } from './io.js';

export interface Styler {
  bold(s: string): string;
  dim(s: string): string;
}

/**
 * Whether stdout gets ANSI styles, as https://no-color.org and common tools decide: never when
 * `NO_COLOR` is set to anything non-empty or `TERM=dumb`; always when `FORCE_COLOR` is set to
 * anything but `0`; otherwise only on a terminal. Pipes and files get plain text.
 */
export function useColor(env: NodeJS.ProcessEnv, isTTY: boolean | undefined): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0';
  if (env.TERM === 'dumb') return false;
  return isTTY === true;
}

const plain: Styler = { bold: (s) => s, dim: (s) => s };

/** Bold and dim for stdout, or identity functions when colour is off (see `useColor`). */
export function styler(io: Pick<CliIO, 'env' | 'stdout'>): Styler {
  if (!useColor(io.env, io.stdout.isTTY)) return plain;
  return {
    bold: (s) => styleText('bold', s, { validateStream: false }),
    dim: (s) => styleText('dim', s, { validateStream: false }),
  };
}
