import { createRequire } from 'node:module';

/** zod's module type. */
export type Zod = typeof import('zod');

const require = createRequire(import.meta.url);
let zod: Zod | undefined;

/**
 * zod, loaded on first use. It takes about 75 ms to load, more than a whole search on a small
 * vault, so the modules on the search path (index sidecars, the native build manifest) build
 * their schemas only when they first read such a file.
 */
export function lazyZod(): Zod {
  return (zod ??= require('zod') as Zod);
}
