import { describe, expect, it } from 'vitest';
import {
  chromeReason,
  furnitureReason,
  hintReason,
  hintTokens,
  hintWeight,
  isAdLabel,
  isContentHint,
  isCreditLine,
  isMetaLine,
  isTeaserList,
} from './boilerplate.js';
import { parseTree, textOf, type HtmlNode } from './html-tree.js';

/** The first element of `html` (in a body) as a tree node, statistics summed. */
function node(html: string): HtmlNode {
  const first = parseTree(`<body>${html}</body>`).root.children.find((c) => c.tag !== '#text');
  if (first === undefined) throw new Error('no element');
  return first;
}

describe('hints', () => {
  it('splits id/class into tokens at punctuation, digits and camelCase', () => {
    expect(hintTokens('post-share_bar2 socialIcons')).toEqual(['post', 'share', 'bar', 'social', 'icons']);
    expect(hintTokens('')).toEqual([]);
  });

  it('names the furniture an id/class marks, matching token starts', () => {
    expect(hintReason('post-share-bar')).toBe('share');
    expect(hintReason('sharedaddy')).toBe('share');
    expect(hintReason('cookie-notice')).toBe('banner');
    expect(hintReason('penci-gprd-law')).toBe('banner');
    expect(hintReason('related-posts')).toBe('related');
    expect(hintReason('article__byline')).toBe('byline');
    expect(hintReason('wp-caption-text')).toBe('caption');
    expect(hintReason('newsletter-signup')).toBe('newsletter');
    expect(hintReason('ad-slot')).toBe('promo');
    expect(hintReason('read-more')).toBe('related');
    expect(hintReason('sr-only')).toBe('hidden');
  });

  it('leaves content and look-alike words alone', () => {
    for (const hint of ['entry-content', 'article-body', 'header-add', 'shadow', 'bad', 'hidden-xs', '']) {
      expect(hintReason(hint), hint).toBeUndefined();
    }
  });

  it('weighs content hints up and furniture down', () => {
    expect(isContentHint('entry-content')).toBe(true);
    expect(isContentHint('main-menu', true)).toBe(false);
    expect(hintWeight(node('<div class="article-body">x</div>'))).toBe(25);
    expect(hintWeight(node('<div class="sidebar">x</div>'))).toBe(-25);
    expect(hintWeight(node('<div class="article-footer">x</div>'))).toBe(0);
    expect(hintWeight(node('<div itemprop="articleBody">x</div>'))).toBe(50);
  });
});

describe('chromeReason', () => {
  it('drops hidden elements, dialogs, chrome roles, nav and page-level header/footer/aside', () => {
    expect(chromeReason(node('<div hidden>x</div>'), false)).toBe('hidden');
    expect(chromeReason(node('<div style="display: none">x</div>'), false)).toBe('hidden');
    expect(chromeReason(node('<div aria-modal="true">x</div>'), false)).toBe('overlay');
    expect(chromeReason(node('<div role="dialog">x</div>'), false)).toBe('overlay');
    expect(chromeReason(node('<ul role="navigation"><li>x</li></ul>'), false)).toBe('navigation');
    expect(chromeReason(node('<nav>x</nav>'), true)).toBe('navigation');
    expect(chromeReason(node('<footer>x</footer>'), false)).toBe('footer');
    expect(chromeReason(node('<footer>x</footer>'), true)).toBeUndefined(); // an article's own footer
  });

  it('drops by hints unless the hints also name the article body strongly', () => {
    expect(chromeReason(node('<div class="site-menu">x</div>'), false)).toBe('navigation');
    expect(chromeReason(node('<div class="entry-content share-on">x</div>'), false)).toBeUndefined();
    expect(chromeReason(node('<a class="share">x</a>'), false)).toBeUndefined();
  });
});

describe('meta lines, credits and ad labels', () => {
  it('reads bylines and datelines, not sentences with a date in them', () => {
    expect(isMetaLine('By Jane Doe | November 18, 2019')).toBe(true);
    expect(
      isMetaLine('By HNN Staff | November 18, 2019 at 2:26 PM HST - Updated November 18 at 4:46 PM'),
    ).toBe(true);
    expect(isMetaLine('Updated 10:42 AM ET, Mon November 18, 2019')).toBe(true);
    expect(isMetaLine('segunda-feira, 22 de janeiro de 2018 às 0:13')).toBe(true);
    expect(isMetaLine('Contributing: Kristine Phillips')).toBe(true);
    expect(isMetaLine('On November 18 the council voted to close the road for good.')).toBe(false);
    expect(isMetaLine('by the way, this is prose')).toBe(false);
    expect(isMetaLine('')).toBe(false);
    expect(isMetaLine(`By Someone ${'x'.repeat(120)}`)).toBe(false);
  });

  it('reads photo credits and ad labels', () => {
    expect(isCreditLine('Photo: Hau Dinh, AP')).toBe(true);
    expect(isCreditLine('© Reuters')).toBe(true);
    expect(isCreditLine('Image copyright Getty Images')).toBe(true);
    expect(isCreditLine('(Image: GETTY)')).toBe(true);
    expect(isCreditLine('Photography is an art.')).toBe(false);
    expect(isAdLabel('Advertisement')).toBe(true);
    expect(isAdLabel('Anzeige:')).toBe(true);
    expect(isAdLabel('Advertisements are everywhere now')).toBe(false);
  });
});

describe('furnitureReason', () => {
  const reason = (html: string, articleChars = 10_000): string | undefined => {
    const n = node(html);
    return furnitureReason(n, articleChars, () => textOf(n));
  };

  it('drops furniture by tag, hint and role inside an article', () => {
    expect(reason('<figcaption>A photo of a cat</figcaption>')).toBe('caption');
    expect(reason('<header><h1>Title</h1></header>')).toBe('header');
    expect(reason('<div class="share-bar">Share</div>')).toBe('share');
    expect(reason('<span class="author">Jane</span>')).toBe('byline');
  });

  it('keeps an element holding half of the article whatever its hints say', () => {
    expect(reason('<div class="share-wrapper"><p>Long article text.</p></div>', 20)).toBeUndefined();
  });

  it('drops link lists, menus of short items, teasers, galleries, forms and embeds', () => {
    expect(reason('<div><a href="/a">Home</a> <a href="/b">World</a> and</div>')).toBe('links');
    expect(
      reason(
        '<ul><li><a href="/1">One</a> x</li><li><a href="/2">Two</a> y</li><li><a href="/3">Three</a> z</li></ul>',
      ),
    ).toBe('links');
    const teaser = (i: number): string =>
      `<h3><a href="/${i}">Headline number ${i}</a></h3><p>A short blurb about story ${i}.</p>`;
    expect(reason(`<div>${teaser(1)}${teaser(2)}${teaser(3)}</div>`)).toBe('related');
    expect(reason('<div><img src="a"><img src="b"><img src="c">1/3</div>')).toBe('gallery');
    expect(reason('<div><input><input>Email</div>')).toBe('form');
    expect(reason('<div><iframe></iframe>Watch</div>')).toBe('embed');
  });

  it('keeps linked summaries long enough to be prose, and ordinary paragraphs', () => {
    // About 100 characters of link and 60 of plain text: over half links, but long enough to be prose.
    const long = `<a href="/x">${'Linked lead sentence. '.repeat(5)}</a> ${'Plain words. '.repeat(5)}`;
    expect(reason(`<li>${long}</li>`)).toBeUndefined();
    expect(
      reason('<p>An ordinary paragraph with <a href="/x">one link</a> in the middle of it.</p>'),
    ).toBeUndefined();
    expect(reason('<h2>A subheading</h2>')).toBeUndefined();
  });

  it('drops one-line bylines, credits and ad labels', () => {
    expect(reason('<p>By Jane Doe, November 18, 2019</p>')).toBe('byline');
    expect(reason('<p>Photo: Jane Doe</p>')).toBe('caption');
    expect(reason('<div>Advertisement</div>')).toBe('promo');
  });

  it('isTeaserList needs three headings, short sections and links', () => {
    expect(isTeaserList(node('<div><h3>a</h3><h3>b</h3></div>'))).toBe(false);
    expect(
      isTeaserList(node('<div><h3>Alpha</h3><p>x</p><h3>Beta</h3><p>y</p><h3>Gamma</h3><p>z</p></div>')),
    ).toBe(false);
  });
});
