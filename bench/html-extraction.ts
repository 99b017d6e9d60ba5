// HTML extraction quality and speed: quiver's HTML reader (readBytes, as `quiver add` reads a file)
// on the 181 pages of the article-extraction benchmark, scored against their human-written bodies
// with the benchmark's word 4-gram shingle precision / recall / F1, plus time per page and the time
// of synthetic 1 MB and 4 MB pages (reading must be linear in page size).
//
// node --import tsx bench/html-extraction.ts [--dump]   (--dump: per-page scores and texts in bench/out)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
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

  // Speed: synthetic pages; the time per MB should not grow with size.
  const speed: [string, number, number][] = [];
  for (const mb of [1, 4]) {
    const html = new TextEncoder().encode(syntheticPage(mb * 1024 * 1024));
    const r = await readPage(`synthetic-${mb}mb`, html);
    if (r.rejected !== undefined) throw new Error(`synthetic ${mb} MB page rejected: ${r.rejected}`);
    speed.push([`synthetic ${mb} MB page`, r.ms, r.ms / mb]);
  }
  const ratio = speed[1]![1] / speed[0]![1];

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
    `Largest page: ${(largest.bytes / 1024).toFixed(0)} KB in ${largest.ms.toFixed(0)} ms.${rejected.length > 0 ? ` Rejected: ${rejected.map((r) => `${r.id.slice(0, 8)} (${r.rejected})`).join(', ')}.` : ''} Removed boilerplate kept in \`meta.removed\`: median ${median(results.map((r) => r.removed))} pieces a page.`,
    '',
    mdTable(
      ['synthetic page', 'ms', 'ms per MB'],
      speed.map(([name, ms, perMb]) => [name, ms.toFixed(0), perMb.toFixed(0)]),
    ),
    '',
    `4 MB / 1 MB time ratio: ${ratio.toFixed(2)} (4 is linear).`,
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

if (import.meta.url === `file://${process.argv[1]}`) await benchHtmlExtraction();
