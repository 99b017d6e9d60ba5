// The HTML report: string-level checks, then a real headless Chromium (playwright-core) that loads
// the page and reads what a person would see. Chromium is skipped only when /usr/bin/chromium is
// absent (CI installs it).
import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalResult, QuestionResult } from './eval-result.js';
import { renderHtmlReport } from './report-html.js';
import { barChartSvg, escapeHtml, niceCeil } from './report-svg.js';
import { buildEvalResult } from './summary.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`report-html.test: ${CHROMIUM} is missing, skipping the browser tests`);

const XSS = '<img src=x onerror="window.__pwned=1">';

function q(id: string, faith: number | null, recall: number, ms: number): QuestionResult {
  return {
    id,
    faithfulness:
      faith === null
        ? { num: 0, den: 0, value: null, undefinedReason: 'no claims' }
        : { num: faith * 3, den: 3, value: faith },
    recall: { num: recall, den: 1, value: recall },
    latency_ms: { retrieve: ms, generate: ms * 10 },
    tokens: { prompt: 100, completion: 20 },
  };
}

/** topk: faithfulness 1/3, 2/3, 1 (mean 0.667) and one Undefined; mmr: 1 everywhere. */
function sampleResult(): EvalResult {
  return buildEvalResult({
    configs: [
      {
        name: 'topk',
        settings: { select: 'topk' },
        questions: [q('q1', 1 / 3, 0, 10), q('q2', 2 / 3, 1, 12), q('q3', 1, 1, 30), q('q4', null, 0, 11)],
      },
      {
        name: XSS,
        settings: { select: 'mmr' },
        questions: [q('q1', 1, 1, 14), q('q2', 1, 1, 16), q('q3', 1, 1, 18), q('q4', 1, 1, 20)],
      },
    ],
    meta: {
      dataset: 'museum.jsonl',
      startedAt: '2025-01-01T00:00:00Z',
      durationMs: 4200,
      machine: { cpu: 'test', node: process.version },
      notes: ['judge: lexical-proxy (a proxy, not entailment)'],
    },
    options: { resamples: 500 },
  });
}

describe('renderHtmlReport (string)', () => {
  const html = renderHtmlReport(sampleResult());

  it('is self-contained: no scripts, links, sources or URLs to fetch', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<(script|link|iframe|img|object|embed)\b/i);
    expect(html).not.toMatch(/<[a-z][^>]*\s(src|href)=/i);
    expect(html).not.toMatch(/url\(|@import/i);
    expect(html).toContain("default-src 'none'");
  });

  it('escapes names from the result', () => {
    expect(html).not.toContain(XSS);
    expect(html).toContain(escapeHtml(XSS));
  });

  it('shows Undefined as its own value', () => {
    expect(html).toContain('title="no claims">Undefined</td>');
  });
});

describe('report-svg', () => {
  it('property: escaped text contains no markup characters', () => {
    fc.assert(
      fc.property(
        fc.string(),
        (s) => !/[<>"']/.test(escapeHtml(s)) && !/&(?!amp;|lt;|gt;|quot;|#39;)/.test(escapeHtml(s)),
      ),
    );
  });
  it('niceCeil', () => {
    expect([niceCeil(0), niceCeil(0.7), niceCeil(1), niceCeil(3), niceCeil(120)]).toEqual([1, 1, 1, 5, 200]);
  });
  it('draws an Undefined bar as an outline labelled Undefined', () => {
    const svg = barChartSvg('m', [{ label: 'a', value: null, ci: null, color: '#000' }]);
    expect(svg).toContain('class="undef-bar"');
    expect(svg).toContain('>Undefined</text>');
  });
});

describe.skipIf(!hasChromium)('renderHtmlReport in headless Chromium', () => {
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];
  const requests: string[] = [];

  // One browser and one page for the file: launching is the slow part.
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (r) => requests.push(r.url()));
    await page.setContent(renderHtmlReport(sampleResult()), { waitUntil: 'load' });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('renders without console errors, page errors or network requests', async () => {
    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
    expect(await page.title()).toBe('quiver eval — museum.jsonl');
  });

  it('shows the summary numbers, the notes and hostile names as plain text', async () => {
    const text = await page.innerText('body');
    expect(text).toContain('0.667'); // topk faithfulness: mean of 1/3, 2/3, 1 (q4 is Undefined)
    expect(text).toContain('n=3, Undefined 1');
    expect(text).toContain('1.000');
    expect(text).toContain(XSS); // shown literally, not interpreted
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(text).toContain('judge: lexical-proxy (a proxy, not entailment)');
  });

  it('draws one bar chart per metric and one latency box plot per stage', async () => {
    expect(await page.locator('svg.chart').count()).toBe(4);
    const box = await page.locator('svg.chart').first().boundingBox();
    expect(box!.width).toBeGreaterThan(100);
    expect(await page.locator('svg.chart').first().innerHTML()).toContain('class="whisker"');
  });

  it('lists the comparison with its difference, interval, p and verdict', async () => {
    const cmp = await page.innerText('table.comparisons');
    expect(cmp).toContain('faithfulness');
    expect(cmp).toContain('+0.333'); // mmr − topk over the 3 questions both define
    expect(cmp).toMatch(/\[0\.000, 0\.667\]/);
    expect(cmp).toContain('no difference');
  });

  it('keeps the per-question tables collapsed until opened', async () => {
    const details = page.locator('details').first();
    expect(await details.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await page.locator('table.questions').first().isVisible()).toBe(false);
    await page.locator('details > summary').first().click();
    expect(await page.locator('table.questions').first().isVisible()).toBe(true);
    const rows = await page.locator('table.questions').first().innerText();
    expect(rows).toContain('q4');
    expect(rows).toContain('Undefined');
    expect(rows).toContain('0.333');
  });
});

// A sample the lead can open by hand: `npx vitest run src/evaluate/report-html.test.ts` then
// set QUIVER_WRITE_REPORT=/tmp/report.html to keep a copy.
it('optionally writes the sample report for a manual look', async () => {
  const out = process.env.QUIVER_WRITE_REPORT;
  if (out === undefined) return;
  const { writeFileSync } = await import('node:fs');
  writeFileSync(out, renderHtmlReport(sampleResult()));
  expect(existsSync(out)).toBe(true);
});
