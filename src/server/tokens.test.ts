import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { tempDir } from '../../test/helpers.js';
import { allows, createToken, listTokens, revokeToken, TOKENS_META_KEY, verifyToken } from './tokens.js';

const { dir, cleanup } = tempDir('quiver-tokens-');
afterAll(cleanup);

describe('tokens on a real vault', () => {
  it('are stored hashed, verified, listed without hashes and revoked', async () => {
    const store = SqliteStore.open(join(dir, 't.db'));
    const { token, record } = await createToken(store, 'read', 'laptop');
    expect(token).toMatch(/^qv_[A-Za-z0-9_-]{43}$/);
    const raw = (await store.getMeta(TOKENS_META_KEY))!;
    expect(raw).not.toContain(token);
    expect(raw).not.toContain(token.slice(3));
    expect(await verifyToken(store, token)).toEqual(record);
    expect(await verifyToken(store, `${token}x`)).toBeNull();
    expect(await verifyToken(store, '')).toBeNull();
    const admin = await createToken(store, 'admin');
    expect((await listTokens(store)).map((t) => t.role)).toEqual(['read', 'admin']);
    expect(JSON.stringify(await listTokens(store))).not.toContain('hash');
    expect(await revokeToken(store, record.id)).toBe(true);
    expect(await revokeToken(store, record.id)).toBe(false);
    expect(await verifyToken(store, token)).toBeNull();
    expect((await verifyToken(store, admin.token))?.role).toBe('admin');
    await store.close();
  });

  it('refuses an unknown role and changes nothing', async () => {
    const store = SqliteStore.open(join(dir, 'r.db'));
    await expect(createToken(store, 'root' as 'admin')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    expect(await listTokens(store)).toEqual([]);
    await store.close();
  });
});

describe('allows', () => {
  it('orders the roles read < write < admin', () => {
    expect(allows('admin', 'write')).toBe(true);
    expect(allows('write', 'read')).toBe(true);
    expect(allows('read', 'write')).toBe(false);
    expect(allows('write', 'admin')).toBe(false);
  });
});
