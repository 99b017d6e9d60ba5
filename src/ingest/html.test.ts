import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildDocument } from './build.js';
import { parseHtml, readHtml } from './html.js';

const BOILERPLATE = [
  'Accept all cookies',
  'We use cookies',
  'trackingPixel',
  'dataLayer',
  'analyticsSessionStart',
  'Subscribe to our newsletter',
  'All rights reserved',
  'Related posts',
  'Privacy policy',
  'font-family',
];

const page = (
  article: string,
  extra = '',
): string => `<!doctype html><html><head><title>Espresso Basics | Coffee Site</title>
<style>body { font-family: serif }</style><script>window.dataLayer = []; function trackingPixel() {}</script></head>
<body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav>
<div id="cookie-consent"><p>We use cookies to improve your experience.</p><button>Accept all cookies</button></div>
${extra}<main><article>${article}</article></main>
<footer><p>© 2024 Coffee Site. All rights reserved.</p></footer><script>trackingPixel('x')</script></body></html>`;

const ARTICLE = `<h1>Espresso Basics</h1>
<p>Espresso is brewed by forcing hot water through finely ground coffee at about nine bar of pressure. A shot should take between twenty-five and thirty seconds.</p>
<h2>Dose</h2><p>Use eighteen grams of coffee in a double basket and aim for thirty-six grams of espresso in the cup.</p>
<ul><li>Weigh the dose.</li><li>Tamp level.</li></ul>
<h3>Ratio</h3><p>A one to two ratio is the usual starting point for a balanced shot of espresso.</p>
<h2>Milk</h2><p>Steam milk to about sixty degrees Celsius; hotter milk loses its sweetness quickly.</p>
<pre>line one
  indented line two</pre>`;

describe('readHtml', () => {
  it('keeps the article, drops nav, cookie banner, scripts, styles and footer', async () => {
    const doc = await readHtml({ source: 'espresso.html', bytes: new TextEncoder().encode(page(ARTICLE)) });
    const all = doc.sections.map((s) => `${s.title}\n${s.segments.map((g) => g.text).join('\n')}`).join('\n');
    for (const junk of BOILERPLATE) expect(all).not.toContain(junk);
    expect(all).not.toMatch(/\bShop\b/);
    expect(all).toContain('nine bar of pressure');
    expect(doc.kind).toBe('html');
    expect(doc.title).toBe('Espresso Basics');
  });

  it('builds the heading tree from h1–h6 with paragraph breaks and list items on their own lines', () => {
    const doc = parseHtml(page(ARTICLE), 'e.html');
    expect(doc.sections.map((s) => [s.level, s.title])).toEqual([
      [0, 'Espresso Basics'],
      [2, 'Dose'],
      [3, 'Ratio'],
      [2, 'Milk'],
    ]);
    expect(doc.sections[0]?.segments[0]?.text).toMatch(/^Espresso is brewed/);
    expect(doc.sections[1]?.segments[0]?.text).toBe(
      'Use eighteen grams of coffee in a double basket and aim for thirty-six grams of espresso in the cup.\n\n- Weigh the dose.\n- Tamp level.',
    );
    expect(doc.sections[3]?.segments[0]?.text).toContain('line one\n  indented line two');
    const built = buildDocument(doc);
    expect(built.sections[2]?.breadcrumb).toBe('Espresso Basics › Dose › Ratio');
  });

  it('falls back to the body without nav/header/footer/aside when there is no article', () => {
    const html = `<html><head><title>Tiny</title></head><body><header>Site header</header><nav>Menu</nav>
      <p>Just one line.</p><aside>Ads here</aside><footer>Footer text</footer><script>evil()</script></body></html>`;
    const doc = parseHtml(html, 'tiny.html');
    const all = doc.sections.map((s) => s.segments.map((g) => g.text).join(' ')).join(' ');
    expect(all).toContain('Just one line.');
    for (const junk of ['Site header', 'Menu', 'Ads here', 'Footer text', 'evil'])
      expect(all).not.toContain(junk);
    expect(doc.title).toBe('Tiny');
  });

  it('never runs scripts', () => {
    const html = page(
      ARTICLE,
      '<script>globalThis.__quiverPwned = true; document.body.innerHTML = "gone";</script>',
    );
    const doc = parseHtml(html, 'x.html');
    expect((globalThis as Record<string, unknown>)['__quiverPwned']).toBeUndefined();
    expect(doc.sections[0]?.segments[0]?.text).toContain('nine bar');
  });

  it('titles an untitled page from the file name', () => {
    expect(parseHtml('<p>Hello there.</p>', 'dir/untitled-page.html').title).toBe('untitled-page');
  });

  it('reads every demo HTML page without boilerplate', async () => {
    const files = [
      'coffee/water-chemistry.html',
      'climate/methane-agriculture.html',
      'finance/index-funds.html',
    ];
    for (const f of files) {
      const bytes = await readFile(new URL(`../../demo/corpus/${f}`, import.meta.url));
      const doc = await readHtml({ source: f, bytes });
      const all = doc.sections
        .map((s) => `${s.title}\n${s.segments.map((g) => g.text).join('\n')}`)
        .join('\n');
      for (const junk of BOILERPLATE) expect(all, `${f}: ${junk}`).not.toContain(junk);
      expect(doc.sections.length).toBeGreaterThanOrEqual(4);
    }
    const water = await readHtml({
      source: 'w.html',
      bytes: await readFile(new URL('../../demo/corpus/coffee/water-chemistry.html', import.meta.url)),
    });
    expect(water.title).toBe('Water Chemistry for Better Coffee');
    expect(water.sections.find((s) => s.title === 'What the numbers mean')?.segments[0]?.text).toContain(
      '150 ppm',
    );
  });
});
