// Issue 20, a backend-neutral Store: the `store` key and QUIVER_STORE, backup as a capability a
// backend declares (refused with UNSUPPORTED otherwise), and URLs shown with passwords redacted.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backupCommand } from '../src/cli/commands/backup.js';
import type { CommandContext } from '../src/cli/command.js';
import { exitCodeFor } from '../src/cli/exit-codes.js';
import { isQuiverError } from '../src/errors.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import { Vault } from '../src/vault.js';
import { runCli, tempDir } from './helpers.js';

const t = tempDir('quiver-issue-20-');
afterAll(() => t.cleanup());

describe('the store key', () => {
  it('QUIVER_STORE=sqlite:PATH opens that file, and its project folder is the ingest root', async () => {
    const project = join(t.dir, 'project');
    mkdirSync(join(project, '.quiver'), { recursive: true });
    writeFileSync(join(project, 'kale.md'), '# Kale\n\nKale is a leafy green.\n');
    const path = join(project, '.quiver', 'vault.db');
    const env = { QUIVER_STORE: `sqlite:${path}`, QUIVER_VAULT: join(t.dir, 'ignored.db') };
    const v = await Vault.open({ env });
    try {
      expect(v.store.location).toBe(path);
      expect(v.root).toBe(project);
      await v.add([join(project, 'kale.md')]);
      expect((await v.store.listDocuments()).map((d) => d.source)).toEqual(['kale.md']);
    } finally {
      await v.close();
    }
    expect(existsSync(join(t.dir, 'ignored.db'))).toBe(false);
    const r = await runCli(['doctor', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const d = r.json<{
      store: { location: string };
      config: Record<string, { value: unknown; from: string }>;
    }>();
    expect(d.store.location).toBe(path);
    expect(d.config.store).toMatchObject({ value: `sqlite:${path}`, from: 'env' });
  });

  it('an unknown scheme in QUIVER_STORE is a configuration error (exit 2) with the password redacted', async () => {
    const r = await runCli(['init'], { env: { QUIVER_STORE: 'mysql://quiver:s3cret@db/notes' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/mysql:\/\/quiver:\*\*\*@db\/notes.*unknown scheme/);
    expect(r.stderr).not.toContain('s3cret');
  });

  it('doctor shows a URL in the configuration with its password redacted', async () => {
    const vault = join(t.dir, 'doctor.db');
    expect((await runCli(['init', '--vault', vault])).code).toBe(0);
    const env = { QUIVER_EMBEDDER_URL: 'https://quiver:s3cret@embed.example/v1' };
    const text = await runCli(['doctor', '--vault', vault], { env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('https://quiver:***@embed.example/v1');
    const json = await runCli(['doctor', '--vault', vault, '--json'], { env });
    expect(json.stdout).toContain('https://quiver:***@embed.example/v1');
    for (const r of [text, json]) expect(r.stdout).not.toContain('s3cret');
  });
});

describe('backup is a capability', () => {
  /** A SQLite store that does not declare backup, as a server database would not. */
  function withoutBackup(store: SqliteStore): Store {
    return new Proxy(store, {
      get: (target, p) => (p === 'backup' ? undefined : (Reflect.get(target, p, target) as unknown)),
    });
  }

  it('quiver backup on a store without it is UNSUPPORTED (exit 2), and nothing is written', async () => {
    const path = join(t.dir, 'nobackup.db');
    const dest = join(t.dir, 'copy.db');
    let vault: Vault | undefined;
    const ctx = {
      positionals: [dest],
      values: {},
      json: false,
      out: () => undefined,
      openVault: async () => (vault = await Vault.open({ store: withoutBackup(SqliteStore.open(path)) })),
    } as unknown as CommandContext;
    try {
      await backupCommand.run(ctx);
      expect.unreachable('backup should be refused');
    } catch (e) {
      expect(isQuiverError(e, 'UNSUPPORTED')).toBe(true);
      expect((e as Error).message).toMatch(
        /sqlite store at .*nobackup\.db cannot be copied to a file.*pg_dump/,
      );
      expect(exitCodeFor('UNSUPPORTED')).toBe(2);
    } finally {
      await vault?.close();
    }
    expect(existsSync(dest)).toBe(false);
  });

  it('a store that declares it backs up as before', async () => {
    const vault = join(t.dir, 'withbackup.db');
    expect((await runCli(['init', '--vault', vault])).code).toBe(0);
    const r = await runCli(['backup', join(t.dir, 'copy2.db'), '--vault', vault]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(t.dir, 'copy2.db'))).toBe(true);
  });
});
