// The web page's cost (issue 18): what `npm run build` ships in dist/web (gzipped, as a browser
// downloads it), and how long an answer takes on the demo vault through the route the page uses:
// `POST /v1/ask` as Server-Sent Events on a real server on 127.0.0.1, from the request sent to
// the first `token` event and to the `done` event (which carries the grounding measurements).
// `npm run bench -- web` (after `npm run build`).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Vault } from '../src/index.js';
import { startServer } from '../src/server/serve.js';
import { machine, mdTable, median, percentile, writeSection } from './lib.js';

const DIST = 'dist/web';
const ROUNDS = 5;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

/** Gzipped bytes per kind of file the page ships (level 9, as a server or CDN would serve them). */
function shipped(): { kind: string; files: number; raw: number; gzip: number }[] {
  const kinds = new Map<string, { files: number; raw: number; gzip: number }>();
  for (const f of files(DIST)) {
    const kind = f.endsWith('.js')
      ? 'JavaScript'
      : f.endsWith('.css')
        ? 'CSS'
        : f.endsWith('.html')
          ? 'HTML'
          : 'other';
    const bytes = readFileSync(f);
    const k = kinds.get(kind) ?? { files: 0, raw: 0, gzip: 0 };
    k.files += 1;
    k.raw += bytes.length;
    k.gzip += gzipSync(bytes, { level: 9 }).length;
    kinds.set(kind, k);
  }
  return [...kinds].map(([kind, k]) => ({ kind, ...k }));
}

/** One streamed ask: ms to the first `token` event and to `done`. */
async function streamedAsk(
  url: string,
  token: string,
  question: string,
): Promise<{ first: number; done: number }> {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/ask`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: JSON.stringify({ question }),
  });
  if (res.status !== 200 || res.body === null) throw new Error(`web bench: ask answered ${res.status}`);
  const decoder = new TextDecoder();
  let buffer = '';
  let first = NaN;
  const reader = res.body.getReader();
  for (;;) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    buffer += decoder.decode(value, { stream: true });
    for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
      const event = /^event: (.*)$/m.exec(buffer.slice(0, at))?.[1];
      buffer = buffer.slice(at + 2);
      if (event === 'token' && Number.isNaN(first)) first = performance.now() - t0;
      if (event === 'error') throw new Error('web bench: the ask stream sent an error');
      if (event === 'done') return { first, done: performance.now() - t0 };
    }
  }
  throw new Error('web bench: the ask stream ended without done');
}

export async function benchWeb(): Promise<void> {
  if (!existsSync(join(DIST, 'index.html')))
    throw new Error('web bench: run `npm run build` first (no dist/web)');
  const sizes = shipped();
  const dir = mkdtempSync(join(tmpdir(), 'quiver-bench-web-'));
  try {
    const vault = join(dir, 'demo.db');
    // Rate limits out of reach: the bench measures answers, not the limiter.
    const writer = await Vault.open({
      overrides: { vault, 'server.ratePerSecond': 1e9, 'server.burst': 1e9 },
      env: {},
    });
    await writer.add(['demo/corpus']);
    const reader = await Vault.open({ overrides: { vault }, readonly: true, env: {} });
    const served = await startServer({ reader, writer }, { host: '127.0.0.1', port: 0 });
    const questions = readFileSync('demo/questions.jsonl', 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => (JSON.parse(l) as { question: string }).question);
    const first: number[] = [];
    const done: number[] = [];
    try {
      for (const q of questions) await streamedAsk(served.url, served.firstToken!, q); // warm-up
      for (let r = 0; r < ROUNDS; r++)
        for (const q of questions) {
          const t = await streamedAsk(served.url, served.firstToken!, q);
          if (!Number.isNaN(t.first)) first.push(t.first);
          done.push(t.done);
        }
    } finally {
      await served.close();
      await reader.close();
      await writer.close();
    }
    const total = sizes.reduce((s, k) => s + (k.kind === 'JavaScript' || k.kind === 'CSS' ? k.gzip : 0), 0);
    const kb = (n: number): string => (n / 1024).toFixed(1);
    writeSection(
      'web',
      `## Web page (\`npm run bench -- web\`)

Machine: ${machine()}. What \`npm run build\` puts in \`${relative('.', DIST)}\` (gzip level 9, as
downloaded), and a streamed \`POST /v1/ask\` (the page's route) on a real server on 127.0.0.1 over the
demo vault with the extractive generator: ${questions.length} demo questions after one warm-up pass,
${ROUNDS} rounds; time from the request to the first \`token\` event and to \`done\` (the whole answer
with its grounding measurements).

${mdTable(
  ['shipped', 'files', 'KiB', 'KiB gzipped'],
  sizes.map((k) => [k.kind, k.files, kb(k.raw), kb(k.gzip)]),
)}

JavaScript and CSS gzipped: **${kb(total)} KiB** (goal under 150 KB).

${mdTable(
  ['streamed ask', 'answers', 'p50 ms', 'p95 ms'],
  [
    ['request → first token', first.length, median(first).toFixed(1), percentile(first, 95).toFixed(1)],
    ['request → done', done.length, median(done).toFixed(1), percentile(done, 95).toFixed(1)],
  ],
)}

The extractive generator sends its answer as one \`token\` event just before \`done\`, so the two
times coincide here; with a streaming model the first token comes as soon as the model sends it.
Not measured yet: a Lighthouse run (the issue's performance and accessibility scores).
`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
