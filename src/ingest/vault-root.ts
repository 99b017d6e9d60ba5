import { basename, dirname, resolve } from 'node:path';
import type { StoreLocation } from '../store/location.js';

/** The project root of a vault file: the folder holding `.quiver/`, or the file's own folder. */
export function vaultRoot(vaultPath: string): string {
  const dir = dirname(resolve(vaultPath));
  return basename(dir) === '.quiver' ? dirname(dir) : dir;
}

/**
 * The folder ingested sources are named relative to: a SQLite vault's project root
 * ({@link vaultRoot}), or, for a store on a server (PostgreSQL), the folder of the config file in
 * use, else `cwd`.
 *
 * @example ingestRoot({ backend: 'postgres', url }, '/srv/notes/quiver.config.json', cwd) // '/srv/notes'
 */
export function ingestRoot(store: StoreLocation, configFile: string | null, cwd: string): string {
  if (store.backend === 'sqlite') return vaultRoot(store.path);
  return configFile === null ? resolve(cwd) : dirname(configFile);
}
