// The web page's cost (issue 18): what `npm run build` ships in dist/web (gzipped, as a browser
// downloads it), and how long an answer takes on the demo vault through the route the page uses:
// `POST /v1/ask` as Server-Sent Events on a real server on 127.0.0.1, from the request sent to
// the first `token` event and to the `done` event (which carries the grounding measurements).
// Then Lighthouse (the `lighthouse` that @lhci/cli 0.14.0 brings, driving Debian's Chromium) scores
// the page's performance and accessibility, with its default mobile settings (simulated slow 4G and
// a 4× slower CPU) and with its desktop preset, on the Ask view opened by the link `quiver serve`
// prints. `npm run bench -- web` (after `npm run build`).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Vault } from '../src/index.js';
import { startServer } from '../src/server/serve.js';
import { machine, mdTable, median, percentile, writeSection } from './lib.js';

const DIST = 'dist/web';
const ROUNDS = 5;
const CHROMIUM = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const LIGHTHOUSE_VERSION = `Lighthouse ${
  (JSON.parse(readFileSync('node_modules/lighthouse/package.json', 'utf8')) as { version: string }).version
}`;

interface LighthouseRun {
  setting: string;
  performance: number;
  accessibility: number;
  metrics: Record<string, string>;
}

/** The metrics shown beside the scores, by Lighthouse's audit ids. */
const METRICS: readonly [string, string][] = [
  ['first-contentful-paint', 'FCP'],
  ['largest-contentful-paint', 'LCP'],
  ['total-blocking-time', 'TBT'],
  ['cumulative-layout-shift', 'CLS'],
  ['speed-index', 'Speed Index'],
];

/**
 * One Lighthouse run of `url` (mobile defaults, or `--preset=desktop`), from its JSON report. Run
 * asynchronously: the server it measures answers from this process.
 */
async function lighthouse(url: string, setting: 'mobile' | 'desktop', dir: string): Promise<LighthouseRun> {
  const out = join(dir, `lighthouse-${setting}.json`);
  await promisify(execFile)(
    'node_modules/.bin/lighthouse',
    [
      url,
      '--only-categories=performance,accessibility',
      '--chrome-flags=--headless=new --no-sandbox',
      '--output=json',
      `--output-path=${out}`,
      '--quiet',
      ...(setting === 'desktop' ? ['--preset=desktop'] : []),
    ],
    { env: { ...process.env, CHROME_PATH: CHROMIUM }, timeout: 180_000 },
  );
  const report = JSON.parse(readFileSync(out, 'utf8')) as {
    categories: Record<string, { score: number }>;
    audits: Record<string, { displayValue?: string }>;
  };
  return {
    setting,
    performance: Math.round((report.categories.performance?.score ?? NaN) * 100),
    accessibility: Math.round((report.categories.accessibility?.score ?? NaN) * 100),
    metrics: Object.fromEntries(METRICS.map(([id, name]) => [name, report.audits[id]?.displayValue ?? '—'])),
  };
}

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
    const scores: LighthouseRun[] = [];
    try {
      // The page as a person opens it first: the link with the admin token, the Ask view.
      const link = `${served.url}/?token=${served.firstToken!}#/ask`;
      if (existsSync(CHROMIUM))
        for (const setting of ['mobile', 'desktop'] as const)
          scores.push(await lighthouse(link, setting, dir));
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

${
  scores.length === 0
    ? `Lighthouse: not run (no Chromium at ${CHROMIUM}).`
    : `Lighthouse (${LIGHTHOUSE_VERSION}, through @lhci/cli 0.14.0) on the Ask view opened by the link \`quiver serve\`
prints; mobile is its default (simulated slow 4G, 4× CPU slowdown), desktop its \`--preset=desktop\`:

${mdTable(
  ['setting', 'performance', 'accessibility', ...METRICS.map(([, name]) => name)],
  scores.map((s) => [
    s.setting,
    s.performance,
    s.accessibility,
    ...METRICS.map(([, name]) => s.metrics[name] ?? '—'),
  ]),
)}

Goals: performance ≥ 90, accessibility ≥ 95.`
}
`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
