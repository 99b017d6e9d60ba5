// The package imported by its own name, through package.json "exports", as a user would.
import { describe, expect, it } from 'vitest';
import { isQuiverError, QuiverError, Vault, CONFIG_KEYS } from 'quiver';

describe('import from "quiver"', () => {
  it('exposes the Vault facade, the error class and the config keys', () => {
    expect(typeof Vault.open).toBe('function');
    expect(isQuiverError(new QuiverError('BAD_INPUT', 'x'), 'BAD_INPUT')).toBe(true);
    expect(CONFIG_KEYS.vault.default).toBe('.quiver/vault.db');
  });

  it('keeps the PostgreSQL store (and its driver) behind "quiver/postgres"', async () => {
    const { PostgresStore } = await import('quiver/postgres');
    expect(typeof PostgresStore.open).toBe('function');
    expect(CONFIG_KEYS.store.default).toBe('');
  });
});
