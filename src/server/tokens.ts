import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { QuiverError } from '../errors.js';
import type { SharedState } from '../store/shared-state.js';

/**
 * Bearer tokens for the served vault (operations.md, "Server security"). A token is 32 random
 * bytes, base64url, prefixed `qv_` (so a leaked one is recognisable in a scan); only its SHA-256 is
 * stored (a token has 256 bits of entropy, so a fast hash is enough: nothing to guess), under the
 * vault's `meta` key `server.tokens`, with its role, label and creation time. Verifying compares
 * the presented token's hash with every stored hash in constant time, without stopping at a match,
 * so the time taken says nothing about which token or how much of one matched.
 *
 * Several servers on one store: every request reads the records from the store (nothing is cached
 * in a process), so a token revoked through any server or `quiver token revoke` is refused by every
 * server from its next request on (the bound is zero; a reader on a replica would lag by the
 * replica's delay). Creating and revoking change the list with a compare-and-set where the store
 * offers one (`Store.shared`), so two servers changing it at once lose neither change.
 */

/** What a token may do: `read` searches and asks, `write` also changes the vault, `admin` also manages tokens and server-side paths. */
export type Role = 'read' | 'write' | 'admin';
export const ROLES: readonly Role[] = ['read', 'write', 'admin'];

/** A stored token: never the token itself. */
export interface TokenRecord {
  id: string;
  role: Role;
  label: string;
  createdAt: string;
  /** SHA-256 of the token, hex. */
  hash: string;
}

/** Where the records live: a store's meta table (any Store has one). */
export interface TokenMeta {
  getMeta(key: string): Promise<string | null>;
  setMeta(key: string, value: string): Promise<void>;
  /** Compare-and-set, when several processes share the store (`Store.shared`). */
  readonly shared?: Pick<SharedState, 'swapMeta'>;
}

export const TOKENS_META_KEY = 'server.tokens';
const PREFIX = 'qv_';

/** True when a token of `role` may do what `needed` requires (read < write < admin). */
export function allows(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

function hashOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

async function load(meta: TokenMeta): Promise<TokenRecord[]> {
  return parse(await meta.getMeta(TOKENS_META_KEY));
}

function parse(raw: string | null): TokenRecord[] {
  if (raw === null) return [];
  try {
    const list = JSON.parse(raw) as unknown;
    return Array.isArray(list) ? (list as TokenRecord[]) : [];
  } catch {
    throw new QuiverError('STORE', `quiver: the vault's ${TOKENS_META_KEY} entry is not JSON`);
  }
}

/** How often a change of the list is tried again when another process changed it meanwhile. */
const SWAP_ATTEMPTS = 20;

/**
 * Replace the list by `change(list)`: with a compare-and-set when the store has one (tried again
 * on the list another process wrote meanwhile), else read then write. `change` returning null
 * leaves the list as it is.
 */
async function updateList(
  meta: TokenMeta,
  change: (list: TokenRecord[]) => TokenRecord[] | null,
): Promise<boolean> {
  for (let attempt = 0; attempt < SWAP_ATTEMPTS; attempt++) {
    const raw = await meta.getMeta(TOKENS_META_KEY);
    const next = change(parse(raw));
    if (next === null) return false;
    if (meta.shared === undefined) {
      await meta.setMeta(TOKENS_META_KEY, JSON.stringify(next));
      return true;
    }
    if (await meta.shared.swapMeta(TOKENS_META_KEY, raw, JSON.stringify(next))) return true;
  }
  throw new QuiverError(
    'CONFLICT',
    `quiver: the vault's ${TOKENS_META_KEY} kept changing under ${SWAP_ATTEMPTS} attempts; try again`,
  );
}

/** Create a token of `role`; the token is returned once and never stored. */
export async function createToken(
  meta: TokenMeta,
  role: Role,
  label = '',
  now: Date = new Date(),
): Promise<{ record: Omit<TokenRecord, 'hash'>; token: string }> {
  if (!ROLES.includes(role))
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: a token's role is read, write or admin, got ${JSON.stringify(role)}`,
    );
  const token = `${PREFIX}${randomBytes(32).toString('base64url')}`;
  const record: TokenRecord = {
    id: randomBytes(6).toString('hex'),
    role,
    label,
    createdAt: now.toISOString(),
    hash: hashOf(token).toString('hex'),
  };
  await updateList(meta, (list) => [...list, record]);
  const { hash: _hash, ...shown } = record;
  return { record: shown, token };
}

/** The tokens, without their hashes. */
export async function listTokens(meta: TokenMeta): Promise<Omit<TokenRecord, 'hash'>[]> {
  return (await load(meta)).map(({ hash: _hash, ...shown }) => shown);
}

/** Revoke a token by id; false when there is none. */
export async function revokeToken(meta: TokenMeta, id: string): Promise<boolean> {
  return updateList(meta, (list) => {
    const kept = list.filter((t) => t.id !== id);
    return kept.length === list.length ? null : kept;
  });
}

/**
 * The record a presented token belongs to, or null. Every stored hash is compared (constant-time
 * each, no early exit), so timing does not tell which one matched or how close a guess came.
 */
export async function verifyToken(meta: TokenMeta, token: string): Promise<Omit<TokenRecord, 'hash'> | null> {
  const presented = hashOf(token);
  let found: TokenRecord | null = null;
  for (const t of await load(meta)) {
    const stored = Buffer.from(t.hash, 'hex');
    if (stored.length === presented.length && timingSafeEqual(stored, presented) && found === null) found = t;
  }
  if (found === null) return null;
  const { hash: _hash, ...shown } = found;
  return shown;
}
