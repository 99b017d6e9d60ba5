// The README's walkthrough runs as written: every ```sh block, in order, as one bash script in a
// fresh folder holding a copy of demo/, with `npx quiver` bound to this checkout's CLI. A block
// right after `<!-- readme-test: skip (reason) -->` is not run; the install block (`npm ci && npm
// run demo`) is replaced by the demo alone, run from the temp folder (demo/run.ts resolves its
// paths against the working directory).
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const SKIP_MARKER = /^<!--\s*readme-test:\s*skip\b.*-->$/;

interface Block {
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string: `sh`, `json`, `ts`, … */
  lang: string;
  lines: string[];
  /** A `<!-- readme-test: skip (reason) -->` line comes right before the fence. */
  skipped: boolean;
}

/** Every fenced block of a Markdown text, in order. */
function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let open: (Block & { fence: string }) | null = null;
  let previous = '';
  for (const [i, raw] of markdown.split('\n').entries()) {
    const line = raw.trim();
    if (open === null) {
      const m = /^(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
      if (m !== null)
        open = { line: i + 1, lang: m[2]!, lines: [], skipped: SKIP_MARKER.test(previous), fence: m[1]! };
      else if (line !== '') previous = line;
    } else if (line.startsWith(open.fence) && /^[`~]+$/.test(line)) {
      const { fence: _fence, ...block } = open;
      blocks.push(block);
      open = null;
      previous = line;
    } else open.lines.push(raw);
  }
  return blocks;
}

interface Cmd {
  /** README line where the command starts. */
  line: number;
  text: string;
}

/** The commands of a block: comment-only and blank lines dropped, `\` continuations joined. */
function commandsOf(block: Block): Cmd[] {
  const out: Cmd[] = [];
  let current: Cmd | null = null;
  for (const [i, raw] of block.lines.entries()) {
    const line = raw.trimEnd();
    if (current === null) {
      if (line.trim() === '' || line.trim().startsWith('#')) continue;
      current = { line: block.line + 1 + i, text: line };
    } else current.text += `\n${line}`;
    if (!line.endsWith('\\')) {
      out.push(current);
      current = null;
    }
  }
  if (current !== null) out.push(current);
  return out;
}

const isInstallBlock = (b: Block): boolean =>
  b.lines.some((l) => /^\s*npm ci\b/.test(l) || /^\s*npm (run )?test\b/.test(l));

/** A single-quoted bash word. */
const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The bash script: `npx quiver` bound to this checkout's bin, then each command in a `{ … }` group
 * with its output in state/out-N and state/err-N. `|| exit $?` after each group makes a failure of
 * any command fatal, also the left side of `a && b`, which `set -e` alone lets pass.
 */
function script(commands: Cmd[], state: string): string {
  const tsx = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;
  const head = [
    'set -euo pipefail',
    `npx() { if [ "\${1-}" = quiver ]; then shift; node ${sq(join(ROOT, 'bin/quiver.js'))} "$@"; else command npx "$@"; fi; }`,
    // `npm run demo`, run here: demo/run.ts reads demo/corpus and writes .quiver/demo.db under the cwd.
    `__readme_demo() { node --import ${sq(tsx)} ${sq(join(ROOT, 'demo/run.ts'))}; }`,
  ];
  const body = commands.map((c, i) =>
    [
      `printf '%s' ${i} > ${sq(join(state, 'current'))}`,
      '{',
      c.text,
      `} >${sq(join(state, `out-${i}`))} 2>${sq(join(state, `err-${i}`))} || exit $?`,
    ].join('\n'),
  );
  return `${[...head, ...body, `printf '%s' done > ${sq(join(state, 'current'))}`].join('\n')}\n`;
}

/** Run `bash file` in `cwd`; past `timeoutMs` the whole process group is killed. */
function runBash(
  file: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn('bash', [file], { cwd, env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.on('error', fail);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stderr });
    });
  });
}

/** A clean environment: the machine's PATH and locale, a fresh HOME, no QUIVER_* settings. */
function cleanEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of ['PATH', 'LANG', 'LC_ALL', 'TERM']) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return {
    ...env,
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local/share'),
    npm_config_cache: join(home, '.npm'),
    NO_COLOR: '1',
  };
}

const TIMEOUT_MS = 540_000;
const tmp = tempDir('quiver-readme-');
let passed = false;
// A failed run keeps its folder (named in the failure) to look at; a passing one is removed.
afterAll(() => {
  if (passed) tmp.cleanup();
});

describe('README walkthrough', () => {
  it(
    'runs every ```sh block in order, as written',
    async () => {
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      const blocks = fencedBlocks(readme).filter((b) => b.lang === 'sh');
      expect(blocks.length).toBeGreaterThan(2);

      const commands: Cmd[] = [];
      for (const [i, b] of blocks.entries()) {
        if (b.skipped) continue;
        if (i === 0 && isInstallBlock(b)) {
          commands.push({ line: b.line + 1, text: '__readme_demo   # npm run demo (install block)' });
          continue;
        }
        commands.push(...commandsOf(b));
      }
      expect(commands.length).toBeGreaterThan(20);

      const work = join(tmp.dir, 'work');
      const home = join(tmp.dir, 'home');
      const state = join(tmp.dir, 'state');
      for (const d of [work, home, state]) mkdirSync(d, { recursive: true });
      cpSync(join(ROOT, 'demo'), join(work, 'demo'), { recursive: true });
      const file = join(state, 'readme.sh');
      writeFileSync(file, script(commands, state));

      const r = await runBash(file, work, cleanEnv(home), TIMEOUT_MS);
      const read = (f: string): string =>
        existsSync(join(state, f)) ? readFileSync(join(state, f), 'utf8') : '';
      const current = read('current');
      if (r.code !== 0 || current !== 'done') {
        const n = Number(current);
        const cmd = current === '' ? undefined : commands[n];
        const message = [
          r.signal === null
            ? `README command failed with exit code ${r.code}`
            : `README walkthrough killed (${r.signal}) after ${TIMEOUT_MS / 1000} s`,
          cmd === undefined ? '(before the first command)' : `README.md:${cmd.line}: ${cmd.text}`,
          `--- stderr ---\n${read(`err-${n}`)}${r.stderr}`,
          `--- stdout (last 2000 characters) ---\n${read(`out-${n}`).slice(-2000)}`,
          `(script, outputs and vault kept in ${tmp.dir})`,
        ].join('\n');
        expect.fail(message);
      }
      passed = true;
    },
    TIMEOUT_MS + 30_000,
  );
});
