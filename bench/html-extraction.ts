// HTML extraction quality and speed: quiver's HTML reader (readBytes, as `quiver add` reads a file)
// on the 181 pages of the article-extraction benchmark, scored against their human-written bodies
// with the benchmark's word 4-gram shingle precision / recall / F1, plus time per page (the slowest
// named), and a scaling table: pages of about 1, 4 and 20 MB (a real benchmark page repeated, and a
// dense synthetic article), each read in a child process of its own for its time, MB/s and peak RSS
// growth (reading must be linear in page size, in bounded memory).
//
// node --import tsx bench/html-extraction.ts [--dump]   (--dump: per-page scores and texts in bench/out)
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse, type DefaultTreeAdapterTypes } from 'parse5';
import { isQuiverError } from '../src/errors.js';
import {
  extractionScore,
  pagePrecision,
  pageRecall,
  shingleMatch,
  type ShingleMatch,
} from '../src/ingest/extraction-score.js';
import type { ParsedDocument } from '../src/ingest/parsed.js';
import { allDocs, readBytes } from '../src/ingest/read-source.js';
import { dataPath, mdTable, median, OUT_DIR, writeSection } from './lib.js';

/** Published figures (F1, the benchmark's definition) from the data set's README. */
const REFERENCE: [string, number][] = [
  ['trafilatura', 0.958],
  ['Readability.js', 0.947],
  ['keeping all text (html-text)', 0.665],
];

/** The text quiver indexes for a page: every section's title and text, in order. */
function indexedText(doc: ParsedDocument): string {
  return doc.sections
    .map((s) => [s.title, ...s.segments.map((g) => g.text)].filter((t) => t !== '').join('\n\n'))
    .join('\n\n');
}

/** The same without the document title (the root section's title): what the human bodies hold. */
function bodyText(doc: ParsedDocument): string {
  return doc.sections
    .map((s, i) =>
      [i === 0 ? '' : s.title, ...s.segments.map((g) => g.text)].filter((t) => t !== '').join('\n\n'),
    )
    .join('\n\n');
}

interface PageResult {
  id: string;
  bytes: number;
  ms: number;
  rejected?: string;
  indexed: string;
  body: string;
  removed: number;
}

async function readPage(id: string, bytes: Uint8Array): Promise<PageResult> {
  const t = performance.now();
  try {
    const docs = await allDocs((await readBytes(bytes, `${id}.html`)).docs);
    const ms = performance.now() - t;
    const doc = docs[0];
    const removed = doc?.meta['removed'];
    return {
      id,
      bytes: bytes.length,
      ms,
      indexed: doc === undefined ? '' : indexedText(doc),
      body: doc === undefined ? '' : bodyText(doc),
      removed: Array.isArray(removed) ? removed.length : 0,
    };
  } catch (e) {
    if (!isQuiverError(e)) throw e;
    return {
      id,
      bytes: bytes.length,
      ms: performance.now() - t,
      rejected: e.code,
      indexed: '',
      body: '',
      removed: 0,
    };
  }
}

/**
 * A deterministic synthetic article page of about `bytes` bytes: a menu of `li` links, a long
 * article of paragraphs, lists and tables in nested divs, a sidebar of related links, a comment
 * thread nested a few levels deep, and a footer.
 */
export function syntheticPage(bytes: number): string {
  const menu = Array.from({ length: 40 }, (_, i) => `<li><a href="/s/${i}">Section ${i}</a></li>`).join('');
  const head = `<!doctype html><html><head><meta charset="utf-8"><title>Synthetic page</title></head><body>
<div class="site-header"><ul class="menu">${menu}</ul></div><div class="wrap"><div class="content"><article><h1>Synthetic page</h1>`;
  const tail = `</article></div><div class="sidebar"><ul>${menu}</ul></div></div><footer><ul>${menu}</ul></footer></body></html>`;
  const parts: string[] = [head];
  let size = head.length + tail.length;
  for (let i = 0; size < bytes; i++) {
    const words = Array.from({ length: 60 }, (_, k) => `word${(i * 31 + k * 7) % 997}`).join(' ');
    let block: string;
    if (i % 50 === 49) block = `<h2>Part ${i}</h2>`;
    else if (i % 17 === 16)
      block = `<table><tr><th>a</th><th>b</th></tr>${'<tr><td>1</td><td>2</td></tr>'.repeat(5)}</table>`;
    else if (i % 13 === 12) block = `<ul>${'<li>item <a href="/x">link</a> text</li>'.repeat(6)}</ul>`;
    else if (i % 29 === 28)
      block = `<div class="comment"><div class="comment-body"><div><p>${words}</p><div class="reply"><p>${words}</p></div></div></div></div>`;
    else block = `<div class="para"><p>${words} <a href="/l/${i}">a link</a> and <b>bold</b> text.</p></div>`;
    parts.push(block);
    size += block.length;
  }
  parts.push(tail);
  return parts.join('\n');
}

/**
 * A long article made of a real page: the element holding most of its paragraphs (the element with
 * the most `<p>` children) has its content (paragraphs, figures, in-article furniture) repeated in
 * place until the page is about `bytes` long; the page around it (head, menus, teasers, footer) is
 * kept once. A page with no element of two or more paragraphs → {@link repeatedPage}.
 */
export function repeatedArticlePage(html: string, bytes: number): string {
  const doc = parse(html, { sourceCodeLocationInfo: true });
  let best: { el: DefaultTreeAdapterTypes.Element; ps: number } | undefined;
  const stack: DefaultTreeAdapterTypes.Node[] = [doc];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!('childNodes' in node)) continue;
    if ('tagName' in node) {
      const ps = node.childNodes.filter((c) => 'tagName' in c && c.tagName === 'p').length;
      if (ps >= 2 && (best === undefined || ps > best.ps)) best = { el: node, ps };
    }
    for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]!);
  }
  const loc = best?.el.sourceCodeLocation;
  if (loc?.startTag === undefined || loc.endTag === undefined) return repeatedPage(html, bytes);
  const inner = html.slice(loc.startTag.endOffset, loc.endTag.startOffset);
  const copies = Math.max(1, Math.ceil((bytes - html.length) / inner.length) + 1);
  return html.slice(0, loc.startTag.endOffset) + inner.repeat(copies) + html.slice(loc.endTag.startOffset);
}

/** Sizes (MB) of the pages of the scaling table. */
const SCALE_MB = [1, 4, 20];

/**
 * A long page made of a real one: its `<head>`, then its whole `<body>` (menus, article, teasers,
 * footer, scripts: its own nesting) repeated in sibling wrappers until the page is about `bytes`
 * long, as an endless-scroll page or a forum thread export looks.
 */
export function repeatedPage(html: string, bytes: number): string {
  const bodyAt = html.search(/<body[\s>]/i);
  const bodyOpen = html.indexOf('>', bodyAt) + 1;
  const bodyClose = html.toLowerCase().lastIndexOf('</body>');
  const head = bodyAt < 0 ? '<html><head></head>' : html.slice(0, bodyAt);
  const body = bodyAt < 0 ? html : html.slice(bodyOpen, bodyClose < bodyOpen ? html.length : bodyClose);
  const copy = (i: number): string => `<div class="page-copy" id="copy-${i}">${body}</div>\n`;
  const parts = [head, '<body><div class="stream">'];
  let size = head.length;
  for (let i = 0; size < bytes; i++) {
    const c = copy(i);
    parts.push(c);
    size += c.length;
  }
  parts.push('</div></body></html>');
  return parts.join('');
}

interface ScaleRun {
  ms: number;
  /** CPU time of the read (all the process's threads: the collector's too), ms. */
  cpuMs: number;
  bytes: number;
  /** Peak RSS over the read minus RSS before it (MiB); from VmHWM, reset before the read. */
  rssGrowthMiB: number;
  /** Whether the peak is VmHWM's (reset before the read) or only RSS after the read. */
  peak: 'VmHWM' | 'after';
  chars: number;
  rejected?: string;
}

/** Peak RSS (VmHWM) in bytes, or undefined off Linux. */
function peakRss(): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m === null ? undefined : Number(m[1]) * 1024;
  } catch {
    return undefined;
  }
}

/** Reset VmHWM to the current RSS (Linux ≥ 4.0: `5` in clear_refs); false when not possible. */
function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** The scaling child: build one page, read it as `quiver add` does, print a {@link ScaleRun} as JSON. */
async function scaleChild(kind: string, mb: number, realId: string): Promise<void> {
  const build = (size: number): string => {
    if (kind === 'synthetic') return syntheticPage(size);
    const dir = dataPath('article-extraction-benchmark', 'html');
    if (dir === null) throw new Error('article-extraction-benchmark not found');
    const html = gunzipSync(readFileSync(join(dir, `${realId}.html.gz`))).toString('utf8');
    return kind === 'article' ? repeatedArticlePage(html, size) : repeatedPage(html, size);
  };
  // Warm up on a page of the same kind (the reader's code compiled), then build the measured one.
  await readPage('warmup', new TextEncoder().encode(build(256 * 1024)));
  const bytes = new TextEncoder().encode(build(mb * 1024 * 1024));
  const before = process.memoryUsage().rss;
  const reset = resetPeakRss();
  const cpu = process.cpuUsage();
  const r = await readPage(`${kind}-${mb}mb`, bytes);
  const used = process.cpuUsage(cpu);
  const after = process.memoryUsage().rss;
  const peak = reset ? peakRss() : undefined;
  const run: ScaleRun = {
    ms: r.ms,
    cpuMs: (used.user + used.system) / 1000,
    bytes: bytes.length,
    rssGrowthMiB: ((peak ?? after) - before) / 2 ** 20,
    peak: peak === undefined ? 'after' : 'VmHWM',
    chars: r.indexed.length,
    ...(r.rejected === undefined ? {} : { rejected: r.rejected }),
  };
  process.stdout.write(`${JSON.stringify(run)}\n`);
}

/** One scaling run in a fresh process (so peak RSS is this page's alone). */
function runScaleChild(kind: string, mb: number, realId: string): ScaleRun {
  const r = spawnSync(
    process.execPath,
    [...process.execArgv, 'bench/html-extraction.ts', '--scale-child', kind, String(mb), realId],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  const last = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !last.startsWith('{'))
    throw new Error(`html-extraction scale child ${kind} ${mb} MB failed (${r.status}): ${r.stderr}`);
  return JSON.parse(last) as ScaleRun;
}

export async function benchHtmlExtraction(): Promise<void> {
  const dir = dataPath('article-extraction-benchmark');
  if (dir === null) {
    console.log('html-extraction: ../shared/data/article-extraction-benchmark not found; skipped');
    return;
  }
  const truth = JSON.parse(readFileSync(join(dir, 'ground-truth.json'), 'utf8')) as Record<
    string,
    { articleBody?: string }
  >;
  const ids = readdirSync(join(dir, 'html'))
    .filter((f) => f.endsWith('.html.gz'))
    .map((f) => f.slice(0, -'.html.gz'.length))
    .filter((id) => id in truth)
    .sort();
  const pages = new Map(ids.map((id) => [id, gunzipSync(readFileSync(join(dir, 'html', `${id}.html.gz`)))]));
  // Warm up: jsdom and the reader load on the first page.
  await readPage('warmup', new TextEncoder().encode('<title>w</title><p>warm up text</p>'));

  const results: PageResult[] = [];
  for (const [id, bytes] of pages) results.push(await readPage(id, bytes));

  const score = (pick: (r: PageResult) => string, opts = {}): ReturnType<typeof extractionScore> =>
    extractionScore(results.map((r) => shingleMatch(truth[r.id]?.articleBody ?? '', pick(r), opts)));
  const indexed = score((r) => r.indexed);
  const body = score((r) => r.body);
  const lowerSets = score((r) => r.indexed, { lowerCase: true, sets: true });
  const rejected = results.filter((r) => r.rejected !== undefined);
  const times = results.map((r) => r.ms);
  const largest = results.reduce((a, b) => (b.bytes > a.bytes ? b : a));

  const slowest = results.reduce((a, b) => (b.ms > a.ms ? b : a));
  const overBudget = results.filter((r) => r.ms > 2000).length;

  // Scaling: the median-sized real page (its article repeated; its whole body repeated) and the
  // dense synthetic article, at 1, 4 and 20 MB.
  const bySize = [...results].sort((a, b) => a.bytes - b.bytes || a.id.localeCompare(b.id));
  const real = bySize[Math.floor(bySize.length / 2)]!;
  const scale: { page: string; mb: number; run: ScaleRun }[] = [];
  const name = `${real.id.slice(0, 8)} (${(real.bytes / 1024).toFixed(0)} KB)`;
  for (const [kind, label] of [
    ['article', `real page ${name}, article body repeated`],
    ['page', `real page ${name}, whole body repeated`],
    ['synthetic', 'dense synthetic article'],
  ] as const) {
    for (const mb of SCALE_MB) {
      const run = runScaleChild(kind, mb, real.id);
      if (run.rejected !== undefined) throw new Error(`${label}, ${mb} MB: rejected (${run.rejected})`);
      scale.push({ page: label, mb, run });
    }
  }
  const perMb = (x: { run: ScaleRun }): number => x.run.ms / (x.run.bytes / 2 ** 20);
  const ratios = [...new Set(scale.map((x) => x.page))].map((page) => {
    const rows = scale.filter((x) => x.page === page);
    return `${page}: ${(perMb(rows[rows.length - 1]!) / perMb(rows[0]!)).toFixed(2)}`;
  });

  const f = (x: number): string => x.toFixed(3);
  const md = [
    '## HTML extraction (article-extraction-benchmark, 181 pages)',
    '',
    `quiver's HTML reader (\`readBytes\`, what \`quiver add\` runs) on ${results.length} real news and blog pages, scored against human-written article bodies as the benchmark's \`evaluate.py\` does: word 4-grams (\`\\w+\` words as written) counted as multisets, tp/fp/fn normalised per page, precision and recall averaged over pages, F1 of the two means. "indexed text" is every section's title and text (the document title included); "body" leaves the document title out, as the human bodies do. A rejected page counts as an empty extraction.`,
    '',
    mdTable(
      ['extractor', 'F1', 'precision', 'recall', 'pages rejected', 'ms/page median', 'ms/page max'],
      [
        [
          'quiver, indexed text',
          f(indexed.f1),
          f(indexed.precision),
          f(indexed.recall),
          rejected.length,
          median(times).toFixed(1),
          Math.max(...times).toFixed(0),
        ],
        [
          'quiver, body (no document title)',
          f(body.f1),
          f(body.precision),
          f(body.recall),
          rejected.length,
          '',
          '',
        ],
        [
          'quiver, indexed text, lower-cased set shingles',
          f(lowerSets.f1),
          f(lowerSets.precision),
          f(lowerSets.recall),
          '',
          '',
          '',
        ],
        ...REFERENCE.map(([name, f1]): (string | number)[] => [
          `${name} (published)`,
          f(f1),
          '',
          '',
          '',
          '',
          '',
        ]),
      ],
    ),
    '',
    `Largest page: ${(largest.bytes / 1024).toFixed(0)} KB in ${largest.ms.toFixed(0)} ms; slowest: ${slowest.id.slice(0, 8)} (${(slowest.bytes / 1024).toFixed(0)} KB) in ${slowest.ms.toFixed(0)} ms; ${overBudget} pages over 2 s.${rejected.length > 0 ? ` Rejected: ${rejected.map((r) => `${r.id.slice(0, 8)} (${r.rejected})`).join(', ')}.` : ''} Removed boilerplate kept in \`meta.removed\`: median ${median(results.map((r) => r.removed))} pieces a page.`,
    '',
    `Scaling: each page built in memory and read by \`readBytes\` (decoding, nesting check, parse, content, sections) in a child process of its own, after one 256 KB page of the same kind (so the reader's code is compiled); "article body repeated" repeats the content of the element holding most of the page's paragraphs in place (one long article in the real page's chrome), "whole body repeated" repeats the whole \`<body>\` in sibling wrappers (an endless-scroll page: the reader keeps one copy's article); peak RSS growth is the process's peak resident set (\`VmHWM\`, reset just before the read) minus its RSS before the read, so it counts the page's own bytes once, plus whatever garbage V8 had not yet collected.`,
    '',
    mdTable(
      ['page', 'MB', 'ms', 'CPU ms', 'MB/s', 'ms per MB', 'peak RSS growth (MiB)', 'text kept (chars)'],
      scale.map((x) => [
        x.page,
        (x.run.bytes / 2 ** 20).toFixed(1),
        x.run.ms.toFixed(0),
        x.run.cpuMs.toFixed(0),
        (x.run.bytes / 2 ** 20 / (x.run.ms / 1000)).toFixed(2),
        perMb(x).toFixed(0),
        `${x.run.rssGrowthMiB.toFixed(0)}${x.run.peak === 'VmHWM' ? '' : ' (after, not peak)'}`,
        x.run.chars,
      ]),
    ),
    '',
    `Time per MB at ${SCALE_MB[SCALE_MB.length - 1]} MB over that at ${SCALE_MB[0]} MB (1 is linear): ${ratios.join('; ')}.`,
  ].join('\n');
  writeSection('html-extraction', md);

  if (process.argv.includes('--dump')) {
    const rows = results.map((r) => {
      const m: ShingleMatch = shingleMatch(truth[r.id]?.articleBody ?? '', r.indexed);
      return {
        id: r.id,
        bytes: r.bytes,
        ms: Math.round(r.ms),
        p: pagePrecision(m),
        r: pageRecall(m),
        rejected: r.rejected,
        text: r.indexed,
      };
    });
    rows.sort((a, b) => a.p + a.r - (b.p + b.r));
    writeFileSync(join(OUT_DIR, 'html-extraction-pages.json'), JSON.stringify(rows, null, 1));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const child = process.argv.indexOf('--scale-child');
  if (child >= 0)
    await scaleChild(process.argv[child + 1]!, Number(process.argv[child + 2]), process.argv[child + 3]!);
  else await benchHtmlExtraction();
}
