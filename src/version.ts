import { readFileSync } from 'node:fs';

/** quiver's version, from its package.json (one level above `src/` and `dist/` alike). */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
