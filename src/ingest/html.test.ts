import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildDocument } from './build.js';
import {
  MAX_REMOVED_CHARS,
  MAX_REMOVED_ENTRY_CHARS,
  parseHtml,
  parseHtmlWithWork,
  readHtml,
  withoutSiteName,
} from './html.js';
import type { ParsedDocument } from './parsed.js';

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

/** Every section's title and text, as the index sees them. */
const allText = (doc: ParsedDocument): string =>
  doc.sections.map((s) => `${s.title}\n${s.segments.map((g) => g.text).join('\n')}`).join('\n');

const PROSE = (topic: string): string =>
  `<p>${topic} is discussed at length here, with enough words in the paragraph to read as prose, and commas, too.</p>`;

describe('readHtml: encodings (issue 16)', () => {
  /** `text` in a single-byte `encoding`, from the decoder's own table. */
  const encode = (text: string, encoding: string): Uint8Array => {
    const decoder = new TextDecoder(encoding);
    const table = new Map<string, number>();
    for (let b = 255; b >= 0; b--) table.set(decoder.decode(new Uint8Array([b])), b);
    return Uint8Array.from([...text].map((c) => table.get(c)!));
  };
  const pageIn = (charset: string, body: Uint8Array): Uint8Array =>
    new Uint8Array([
      ...Buffer.from(
        `<html><head><meta http-equiv="Content-Type" content="text/html; charset=${charset}"><title>T</title></head><body><article><p>`,
      ),
      ...body,
      ...Buffer.from('</p></article></body></html>'),
    ]);

  it('reads windows-1251 and ISO-8859-1 pages by their declaration', async () => {
    const ru = 'Съешь же ещё этих мягких французских булок, да выпей же чаю.';
    const doc = await readHtml({
      source: 'ru.html',
      bytes: pageIn('windows-1251', encode(ru, 'windows-1251')),
    });
    expect(allText(doc)).toContain(ru);
    expect(doc.meta['encoding']).toBe('windows-1251');
    const fr = 'Voix ambiguë d’un cœur qui, au zéphyr, préfère les jattes de kiwis.';
    const latin = await readHtml({
      source: 'fr.html',
      bytes: pageIn(
        'ISO-8859-1',
        encode(fr.replace('’', "'"), 'iso-8859-2').map((b) => b),
      ),
    });
    expect(latin.meta['encoding']).toBe('windows-1252');
  });

  it('reads a UTF-8 page declared as latin-1 as UTF-8', async () => {
    const doc = await readHtml({
      source: 'x.html',
      bytes: pageIn('ISO-8859-1', new TextEncoder().encode('Grüße aus Köln, schön.')),
    });
    expect(allText(doc)).toContain('Grüße aus Köln, schön.');
    expect(doc.meta['encoding']).toBeUndefined();
  });
});

describe('parseHtml: boilerplate inside and around the article (issue 16)', () => {
  const teaser = (i: number): string =>
    `<h3><a href="/story/${i}">Another story headline number ${i}</a></h3><p>Blurb ${i}.</p>`;
  const PAGE = `<html><head><title>Bees in winter | Garden Weekly</title></head><body>
    <div class="top-links"><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/shop">Shop</a></li><li><a href="/about">About</a></li></ul></div>
    <div class="penci-gprd-law"><p>This website uses cookies to improve your experience, we assume you are fine with that.</p></div>
    <div class="modal-wrap" role="dialog"><p>Subscribe now! Get unlimited access to every story we publish, on every device, for less than a coffee a week, cancel any time you like.</p></div>
    <article>
      <h1>Bees in winter</h1>
      <div class="byline">By Jane Doe</div>
      <p class="dateline">November 18, 2019</p>
      <div class="share-bar"><a href="#">Share on Facebook</a> <a href="#">Tweet</a></div>
      ${PROSE('How honey bees keep warm in winter')}
      <figure><img src="a.jpg"><figcaption>A cluster of bees on a frame. Photo: John Roe</figcaption></figure>
      <div>Advertisement</div>
      ${PROSE('The winter cluster')}
      <p>Photo: John Roe</p>
      <div class="newsletter-box"><p>Get our weekly newsletter delivered to your inbox every Friday morning.</p></div>
      ${PROSE('Feeding a colony in February')}
      <div class="more">${teaser(1)}${teaser(2)}${teaser(3)}</div>
    </article>
    <footer><p>© Garden Weekly</p></footer></body></html>`;

  it('keeps the article text and drops menus, banners, dialogs, bylines, dates, share bars, captions, ads, teasers', () => {
    const doc = parseHtml(PAGE, 'bees.html');
    const text = allText(doc);
    for (const kept of ['How honey bees keep warm', 'The winter cluster', 'Feeding a colony in February'])
      expect(text).toContain(kept);
    for (const junk of [
      'Home',
      'cookies',
      'Subscribe now',
      'Jane Doe',
      'November 18',
      'Share on',
      'cluster of bees on a frame',
      'Photo:',
      'Advertisement',
      'newsletter',
      'Another story',
      '© Garden',
    ])
      expect(text, junk).not.toContain(junk);
    expect(doc.title).toBe('Bees in winter');
  });

  it('keeps what it dropped, with the reason, in meta.removed', () => {
    const removed = parseHtml(PAGE, 'bees.html').meta['removed'] as string[];
    for (const entry of [
      'byline: By Jane Doe',
      'share: Share on Facebook Tweet',
      'caption: A cluster of bees on a frame. Photo: John Roe',
      'promo: Advertisement',
      'newsletter: Get our weekly newsletter',
      'banner: This website uses cookies',
      'overlay: Subscribe now!',
    ])
      expect(
        removed.some((r) => r.startsWith(entry)),
        entry,
      ).toBe(true);
    // The teasers go as a list of links or of teasers, whichever rule meets them first.
    expect(removed.some((r) => /^(links|related): Another story headline number 1/.test(r))).toBe(true);
  });

  it('caps meta.removed, each entry and in total', () => {
    const shares = Array.from(
      { length: 200 },
      (_, i) => `<div class="share-${i}">${'Share this story with your friends '.repeat(10)}</div>`,
    ).join('');
    const removed = parseHtml(`<article>${PROSE('Bees')}${PROSE('More bees')}${shares}</article>`, 'x.html')
      .meta['removed'] as string[];
    expect(removed.length).toBeGreaterThan(5);
    for (const r of removed)
      expect(r.length).toBeLessThanOrEqual(MAX_REMOVED_ENTRY_CHARS + 'outside: '.length);
    expect(removed.join('').length).toBeLessThanOrEqual(MAX_REMOVED_CHARS + MAX_REMOVED_ENTRY_CHARS + 20);
  });

  it('reads a page wrapped whole in a <form> (ASP.NET style)', () => {
    const doc = parseHtml(
      `<body><form method="post"><div class="content">${PROSE('Moon landers')}${PROSE('Space agencies')}</div></form></body>`,
      'f.html',
    );
    expect(allText(doc)).toContain('Moon landers');
  });

  it('takes the article holding the headline among several articles, and not its neighbours', () => {
    const other = `<article class="post">${PROSE('Related one')}${PROSE('Related two')}${PROSE('Related three')}${PROSE('Related four')}</article>`;
    const doc = parseHtml(
      `<body><div><article class="post main"><h1>Real story</h1>${PROSE('The real story')}${PROSE('Its second part')}</article>${other}</div></body>`,
      'a.html',
    );
    const text = allText(doc);
    expect(text).toContain('The real story');
    expect(text).not.toContain('Related one');
  });

  it('takes a site name off the <title>', () => {
    expect(withoutSiteName('Espresso Basics | Coffee Site')).toBe('Espresso Basics');
    expect(withoutSiteName('BBC News - Heavy rain floods the valley')).toBe('Heavy rain floods the valley');
    expect(withoutSiteName('Impeachment: what to know')).toBe('Impeachment: what to know');
    expect(withoutSiteName('Plain title')).toBe('Plain title');
  });

  it('loses no article paragraph, list item or heading of the demo pages', async () => {
    const { JSDOM } = await import('jsdom');
    const files = [
      'beekeeping/honey-harvest.html',
      'bikes/tire-pressure.html',
      'climate/co2-explainer.html',
      'climate/deforestation.html',
      'climate/methane-agriculture.html',
      'coffee/water-chemistry.html',
      'finance/index-funds.html',
      'sourdough/troubleshooting.html',
    ];
    for (const f of files) {
      const html = await readFile(new URL(`../../demo/corpus/${f}`, import.meta.url), 'utf8');
      const text = allText(parseHtml(html, f)).replace(/\s+/g, ' ');
      const article = new JSDOM(html).window.document.querySelector('article')!;
      for (const el of article.querySelectorAll('p:not(.byline), li, h2, h3, td')) {
        const want = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
        if (want !== '') expect(text, `${f}: ${want}`).toContain(want);
      }
    }
  });
});

describe('parseHtml: linear in the page (issue 16)', () => {
  /** A page of about `bytes`: menus of li links, nested divs of paragraphs and lists, a comment thread, a footer. */
  const synthetic = (bytes: number): string => {
    const menu = Array.from({ length: 30 }, (_, i) => `<li><a href="/s/${i}">Section ${i}</a></li>`).join('');
    const parts = [
      `<html><head><title>Big</title></head><body><div class="header"><ul>${menu}</ul></div><div class="wrap"><article><h1>Big</h1>`,
    ];
    let size = parts[0]!.length;
    for (let i = 0; size < bytes; i++) {
      const words = Array.from({ length: 40 }, (_, k) => `w${(i * 31 + k * 7) % 997}`).join(' ');
      const block =
        i % 20 === 19
          ? `<div class="comments"><div><div><p>${words}</p><div class="reply"><p>${words}</p></div></div></div></div>`
          : i % 7 === 6
            ? `<ul>${'<li>item <a href="/x">link</a></li>'.repeat(5)}</ul>`
            : `<div class="para"><div><p>${words}, <a href="/l/${i}">a link</a> and <b>bold</b>.</p></div></div>`;
      parts.push(block);
      size += block.length;
    }
    parts.push(`</article></div><footer><ul>${menu}</ul></footer></body></html>`);
    return parts.join('\n');
  };

  it('visits each node a bounded number of times on a 3 MB page, and 3x the work for 3x the page', () => {
    const small = parseHtmlWithWork(synthetic(1024 * 1024), 'small.html');
    const big = parseHtmlWithWork(synthetic(3 * 1024 * 1024), 'big.html');
    expect(big.nodes).toBeGreaterThan(100_000);
    // Each pass over the tree is one visit a node; a constant number of passes, whatever the size.
    expect(big.work / big.nodes).toBeLessThan(20);
    expect(big.work / small.work).toBeLessThan(3.3);
    expect(allText(big.doc)).toContain('w0 w7');
  });
});
