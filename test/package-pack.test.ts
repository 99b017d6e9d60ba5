// Issue 14: the package as a dependency. `npm pack` the checkout, install the tarball into an empty
// project from the npm cache alone (no access to this checkout's node_modules), then use it from a
// plain Node ESM script and through `npx quiver`, as a user of the published package would.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const tmp = tempDir('quiver-pack-');
afterAll(() => tmp.cleanup());
const project = join(tmp.dir, 'app');
const built = existsSync('dist/index.js');

const run = (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) =>
  spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', ...env },
    timeout: 540_000,
  });

describe.skipIf(!built)('the packed package, installed from its tarball', () => {
  beforeAll(() => {
    // dist/ is built by `npm test` (scripts/test.mjs) before the suite; pack it as is.
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', tmp.dir], { stdio: 'ignore' });
    const tarball = readdirSync(tmp.dir).find((f) => f.endsWith('.tgz'))!;
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'app', private: true, type: 'module' }),
    );
    const r = run('npm', ['install', '--prefer-offline', '--no-save', join(tmp.dir, tarball)], project, {
      QUIVER_SKIP_NATIVE_BUILD: '1',
    });
    if (r.status !== 0) throw new Error(`npm install of the tarball failed:\n${r.stdout}\n${r.stderr}`);
  }, 600_000);

  it('ships compiled JavaScript and declarations, not TypeScript sources or tests', () => {
    const pkg = join(project, 'node_modules', 'quiver');
    expect(existsSync(join(pkg, 'dist', 'index.js'))).toBe(true);
    expect(existsSync(join(pkg, 'dist', 'index.d.ts'))).toBe(true);
    expect(existsSync(join(pkg, 'src'))).toBe(false);
    expect(readdirSync(join(pkg, 'dist', 'store')).some((f) => f.includes('.test.'))).toBe(false);
  });

  it('a plain .mjs script ingests, searches and asks', () => {
    writeFileSync(
      join(project, 'use.mjs'),
      `import { Vault } from 'quiver';
const vault = await Vault.open({ overrides: { vault: 'notes.db' } });
await vault.add([{ text: 'Espresso should extract for 25 to 30 seconds.', title: 'Espresso', source: 'note:espresso' }]);
const { hits } = await vault.search('espresso extraction time', { limit: 3 });
const answer = await vault.ask('How long should espresso extract?');
console.log(JSON.stringify({ top: hits[0]?.source, answer: answer.answer }));
await vault.close();
`,
    );
    const r = run(process.execPath, ['use.mjs'], project);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { top: string; answer: string };
    expect(out.top).toBe('note:espresso');
    expect(out.answer).toMatch(/25 to 30 seconds/);
  });

  it('npx quiver search runs the installed command', () => {
    const r = run('npx', ['--no', 'quiver', 'search', 'espresso', '--vault', 'notes.db', '--json'], project);
    expect(r.status, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { results: { source: string }[] }).results[0]?.source).toBe(
      'note:espresso',
    );
  });

  it.each([
    ['NodeNext', 'NodeNext'],
    ['ESNext', 'bundler'],
  ])('type-checks from TypeScript with module %s, moduleResolution %s', (module, resolution) => {
    const dir = join(project, `ts-${resolution}`);
    execFileSync('mkdir', ['-p', dir]);
    writeFileSync(
      join(dir, 'use.ts'),
      `import { Vault, QuiverError, type SearchOptions } from 'quiver';
import { createTransformersEmbedder } from 'quiver/transformers';
const options: SearchOptions = { limit: 3 };
export async function top(q: string): Promise<string | undefined> {
  const vault = await Vault.open({ overrides: { vault: 'notes.db' } });
  const { hits } = await vault.search(q, options);
  await vault.close();
  return hits[0]?.source;
}
export const err: QuiverError = new QuiverError('BAD_INPUT', 'x');
export const make: typeof createTransformersEmbedder = createTransformersEmbedder;
// @ts-expect-error search.rrfK is typed as a number: a package without real types would accept this
export const wrong: string = (await Vault.open()).config['search.rrfK'];
`,
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module,
          moduleResolution: resolution,
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['use.ts'],
      }),
    );
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    // The checkout's TypeScript compiler; the types come from the installed tarball only.
    const tsc = join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc');
    const r = run(process.execPath, [tsc, '-p', 'tsconfig.json'], dir);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
