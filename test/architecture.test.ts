// The folders are the architecture: faces (cli/, and the server, MCP and page to come) sit on the
// public API and share one wire format (wire/); stages never import faces or the wire format; storage knows no ranking, answers or ingest; embedders are
// text in, vectors out. Every import of every library file is checked against these arrows.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve('src');
const FACES = ['cli', 'server', 'mcp', 'web'];

/** Library files (tests, contract suites and fixtures excluded), relative to src/. */
function files(dir = SRC): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return /\.ts$/.test(name) && !/\.(test|contract)\.ts$/.test(name) && !name.startsWith('_')
      ? [relative(SRC, p)]
      : [];
  });
}

/** The src/-relative targets of a file's relative imports (static and dynamic). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
  return specs.map((s) => relative(SRC, resolve(SRC, dirname(file), s)).replace(/\.js$/, '.ts'));
}

const top = (p: string): string => (p.includes('/') ? p.split('/')[0]! : p);

/** Why an import breaks an arrow, or null. */
function broken(from: string, to: string): string | null {
  const a = top(from);
  const b = top(to);
  if (!FACES.includes(a) && FACES.includes(b)) return 'a stage imports a face';
  // The wire format (wire/) is the faces' shared JSON: only faces use it.
  if (b === 'wire' && a !== 'wire' && !FACES.includes(a)) return 'a stage imports the wire format';
  if (
    a === 'store' &&
    ['retrieve', 'answer', 'ingest', 'evaluate', 'quality', 'vault.ts', 'index.ts'].includes(b)
  )
    return 'storage imports ranking, answers, ingest or the facade';
  if (a === 'embed' && ['store', 'retrieve', 'answer', 'ingest', 'vault.ts'].includes(b))
    return 'an embedder reaches past text in, vectors out';
  if (
    ['math', 'text', 'types.ts', 'errors.ts'].includes(a) &&
    !['math', 'text', 'types.ts', 'errors.ts'].includes(b)
  )
    return 'a shared utility imports a stage';
  return null;
}

describe('import arrows', () => {
  it('every library import follows the architecture', () => {
    const violations = files().flatMap((f) =>
      importsOf(f).flatMap((to) => {
        const why = broken(f, to);
        return why === null ? [] : [`${f} → ${to}: ${why}`];
      }),
    );
    expect(violations).toEqual([]);
  });

  it('the rule catches a wrong arrow', () => {
    expect(broken('store/sqlite/x.ts', 'retrieve/top-k.ts')).not.toBeNull();
    expect(broken('retrieve/sections.ts', 'cli/io.ts')).not.toBeNull();
    expect(broken('embed/reindex.ts', 'store/store.ts')).not.toBeNull();
    expect(broken('retrieve/sections.ts', 'store/store.ts')).toBeNull();
    expect(broken('math/prng.ts', 'errors.ts')).toBeNull();
    expect(broken('answer/ask.ts', 'wire/answers.ts')).not.toBeNull();
    expect(broken('cli/commands/ask.ts', 'wire/answers.ts')).toBeNull();
  });
});
