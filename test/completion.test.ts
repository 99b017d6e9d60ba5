// The completion scripts, run by real shells: bash completes commands, subcommands, options and
// fixed values; zsh (when installed) parses the script.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { shellQuote, zshDescription } from '../src/cli/completion.js';
import { runCli, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const hasShell = (sh: string): boolean => spawnSync(sh, ['-c', 'exit 0']).status === 0;

async function script(shell: 'bash' | 'zsh'): Promise<string> {
  const r = await runCli(['completion', shell]);
  expect(r.code, r.stderr).toBe(0);
  const file = join(tmp.dir, `quiver.${shell}`);
  writeFileSync(file, r.stdout);
  return file;
}

/** What bash offers for the words typed so far (the last one is being completed). */
function bashComplete(file: string, words: string[]): string[] {
  const arr = words.map(shellQuote).join(' ');
  const r = spawnSync(
    'bash',
    [
      '-c',
      `source ${shellQuote(file)}; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _quiver; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: 'utf8', cwd: tmp.dir },
  );
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe.skipIf(!hasShell('bash'))('quiver completion bash', () => {
  it('completes command names, then a command’s own options and the globals', async () => {
    const f = await script('bash');
    expect(bashComplete(f, ['quiver', 'se'])).toEqual(['search', 'sections', 'serve']);
    const opts = bashComplete(f, ['quiver', 'search', '--li']);
    expect(opts).toEqual(['--limit']);
    expect(bashComplete(f, ['quiver', 'search', '--v'])).toEqual(['--vector-weight', '--vault']);
    expect(bashComplete(f, ['quiver', 'add', '--sy'])).toEqual(['--sync']);
    expect(bashComplete(f, ['quiver', 'search', '--sy'])).toEqual([]);
  });

  it('completes subcommands and each subcommand’s options only', async () => {
    const f = await script('bash');
    expect(bashComplete(f, ['quiver', 'noise', ''])).toEqual(
      expect.arrayContaining(['suggest', 'mark', 'keep', 'accept', 'fit', 'use', 'marks']),
    );
    expect(bashComplete(f, ['quiver', 'noise', 'fit', '--s'])).toEqual(['--save']);
    expect(bashComplete(f, ['quiver', 'noise', 'marks', '--s'])).toEqual([]);
    expect(bashComplete(f, ['quiver', '--vault', 'x.db', 'ranker', 'f'])).toEqual(['fit']);
  });

  it('completes fixed values and paths', async () => {
    const f = await script('bash');
    expect(bashComplete(f, ['quiver', 'search', '--select', ''])).toEqual(['topk', 'mmr', 'dartboard']);
    writeFileSync(join(tmp.dir, 'notes-vault.db'), '');
    expect(bashComplete(f, ['quiver', 'search', '--vault', 'notes-v'])).toEqual(['notes-vault.db']);
  });
});

describe('quiver completion zsh', () => {
  it('describes every command and is valid zsh', async () => {
    const f = await script('zsh');
    const text = (await runCli(['completion', 'zsh'])).stdout;
    expect(text.startsWith('#compdef quiver\n')).toBe(true);
    for (const c of ['search', 'noise', 'ranker', 'completion']) expect(text).toContain(`'${c}:`);
    expect(text).toMatch(/'--select\[[^\]]*\]:select:\(topk mmr dartboard\)'/);
    if (hasShell('zsh')) expect(spawnSync('zsh', ['-n', f]).status).toBe(0);
  });

  it('refuses a shell it does not know', async () => {
    const r = await runCli(['completion', 'fish']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/say bash or zsh, got "fish"/);
  });
});

describe('completion escaping', () => {
  it('property: a single-quoted word reads back as itself in bash', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme-ascii', maxLength: 20 }).filter((s) => !s.includes('\0')),
        (s) => {
          const r = spawnSync('bash', ['-c', `printf '%s' ${shellQuote(s)}`], { encoding: 'utf8' });
          expect(r.stdout).toBe(s);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('zsh descriptions escape brackets, colons and backslashes, and fold whitespace', () => {
    expect(zshDescription('a [b]: c\\d\ne')).toBe('a \\[b\\]\\: c\\\\d e');
    expect(zshDescription('')).toBe('');
  });
});
