import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * quiver's version, from its own package.json, found by self-reference (`quiver/package.json`) so
 * it resolves the same from `src/`, `dist/` and the bundled CLI in `dist/cli-bundle/`.
 */
export const VERSION: string = (
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve('quiver/package.json'), 'utf8')) as {
    version: string;
  }
).version;
