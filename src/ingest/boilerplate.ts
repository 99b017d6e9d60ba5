/**
 * What on a page is not the article: page chrome (menus, banners, footers, dialogs), and the
 * furniture inside an article (share bars, bylines, dates, captions and credits, related-article
 * teasers, newsletter boxes). Rules read an element's tag, role, id/class hints and the text
 * statistics of `html-tree.ts`; each answers with a short reason or undefined. Pure functions.
 */
import { HEADING, linkDensity, type HtmlNode } from './html-tree.js';

/**
 * id/class words that mark furniture, by reason. A word matches the start of a hint token (`share`
 * matches `share-bar` and `sharedaddy`); hints are split into tokens at spaces, `-`, `_` and
 * lower-to-upper case changes (`shareBar` → `share bar`).
 */
const HINTS: readonly (readonly [reason: string, pattern: RegExp])[] = [
  ['banner', /^(cookie|consent|gdpr|gprd|cmp)/],
  ['overlay', /^(modal|popup|overlay|lightbox|interstitial|dialog)/],
  ['navigation', /^(nav|navbar|navigation|menu|breadcrumb|pagination|pager|skip|masthead|topbar|subnav)/],
  ['footer', /^(footer|colophon|copyright)/],
  ['sidebar', /^(sidebar|rail|aside|sidebox)/],
  [
    'related',
    /^(related|recommend|outbrain|taboola|trending|popular|mostread|readmore|readnext|upnext|teaser|recent|latest)/,
  ],
  ['share', /^(share|sharing|social|addthis|sharethis|sociable)/],
  ['byline', /^(byline|author|dateline|timestamp|posted|pubdate|published)/],
  ['caption', /^(caption|credit|figcaption)/],
  ['newsletter', /^(newsletter|subscribe|subscription|signup|optin|registration|login)/],
  [
    'promo',
    /^(promo|sponsor|advert|adsense|adslot|adunit|ads|ad|dfp|commercial|affiliate)$|^(promo|sponsor|advert)/,
  ],
  ['comments', /^(comment|comments|disqus|respond)$|^(comment)/],
  ['tags', /^(tags|tag|tagcloud|taglist|categories|keywords)$/],
  ['tools', /^(toolbar|print|tools|utility)$/],
  ['hidden', /^(sronly|offscreen|screenreader|visuallyhidden)/],
];

/** Two-token hints (`read more`, `sr only`, `see also`), matched on the joined tokens. */
const PAIR_HINTS: readonly (readonly [reason: string, pattern: RegExp])[] = [
  [
    'related',
    /\b(read more|more stories|see also|read also|more from|you may|you might|most read|next article)\b/,
  ],
  ['share', /\bfollow us\b/],
  ['newsletter', /\bsign up\b/],
  ['overlay', /\bpop up\b/],
  ['hidden', /\b(sr only|screen reader|visually hidden|a11y text)\b/],
  ['promo', /\bad (slot|unit|container|wrapper|box|block)\b/],
];

/** id/class words of the article body itself (weighed up when looking for the article). */
const CONTENT_HINT = /^(article|body|content|entry|hentry|main|post|story|text|blog|prose|richtext)/;
/** Of those, the ones that keep an element whose hints also name furniture (`entry-content share-on`). */
const STRONG_CONTENT_HINT = /^(article|content|entry|story|prose|richtext)/;

/** ARIA roles of page chrome, by reason. */
const ROLES: Readonly<Record<string, string>> = {
  navigation: 'navigation',
  menu: 'navigation',
  menubar: 'navigation',
  tablist: 'navigation',
  search: 'navigation',
  banner: 'header',
  contentinfo: 'footer',
  complementary: 'sidebar',
  dialog: 'overlay',
  alertdialog: 'overlay',
  alert: 'overlay',
  toolbar: 'tools',
};

/** Tags that are furniture wherever they are (inside an article too). */
const FURNITURE_TAGS: Readonly<Record<string, string>> = {
  NAV: 'navigation',
  DIALOG: 'overlay',
  FIGCAPTION: 'caption',
  ASIDE: 'sidebar',
  FOOTER: 'footer',
};

/** The tokens of an id/class hint: split at spaces, `-`, `_`, digits and lower-to-upper changes. */
export function hintTokens(hint: string): string[] {
  return hint
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((t) => t !== '');
}

/**
 * Why an id/class hint marks furniture ({@link HINTS}), or undefined. Case-insensitive on the raw
 * hint (the tree keeps hints lower-cased, so camelCase splitting only helps callers with raw ones).
 *
 * @example hintReason('post-share-bar') // 'share'
 * @example hintReason('entry-content') // undefined
 */
export function hintReason(hint: string): string | undefined {
  if (hint === '') return undefined;
  const tokens = hintTokens(hint);
  for (const [reason, pattern] of HINTS) if (tokens.some((t) => pattern.test(t))) return reason;
  const joined = tokens.join(' ');
  for (const [reason, pattern] of PAIR_HINTS) if (pattern.test(joined)) return reason;
  return undefined;
}

/** True when an id/class hint names the article body (`entry-content`, `article-body`, `story`). */
export function isContentHint(hint: string, strong = false): boolean {
  const pattern = strong ? STRONG_CONTENT_HINT : CONTENT_HINT;
  return hint !== '' && hintTokens(hint).some((t) => pattern.test(t));
}

/**
 * A score from an element's hints, as content selection weighs candidates: +25 when they name the
 * article body ({@link isContentHint}), −25 when they name furniture ({@link hintReason}), both
 * (`article-footer`) → −25 + 25 = 0; no hint → 0.
 */
export function hintWeight(node: HtmlNode): number {
  let w = 0;
  if (isContentHint(node.hint)) w += 25;
  if (hintReason(node.hint) !== undefined) w -= 25;
  if (node.itemprop === 'articlebody') w += 50;
  return w;
}

/**
 * Why an element is page chrome to drop before looking for the article, or undefined:
 * hidden (`hidden`, `aria-hidden`, `display:none`); `aria-modal`; a chrome role ({@link ROLES});
 * `NAV`, `DIALOG`; `HEADER`, `FOOTER` and `ASIDE` outside any `ARTICLE` / `MAIN`; or a furniture
 * hint ({@link hintReason}) on an element whose hints do not also name the article body strongly
 * (`article`, `content`, `entry`, `story`, …). `inArticle` tells whether an `ARTICLE` or `MAIN` is an
 * ancestor. Callers keep an element that holds most of the text whatever this says.
 */
export function chromeReason(node: HtmlNode, inArticle: boolean): string | undefined {
  if (node.hidden) return 'hidden';
  if (node.modal) return 'overlay';
  const role = ROLES[node.role];
  if (role !== undefined) return role;
  if (node.tag === 'NAV' || node.tag === 'DIALOG') return FURNITURE_TAGS[node.tag];
  if (!inArticle && (node.tag === 'HEADER' || node.tag === 'FOOTER' || node.tag === 'ASIDE'))
    return node.tag.toLowerCase();
  if (node.tag === 'A' || node.tag === 'BODY' || node.tag === 'HTML') return undefined;
  const reason = hintReason(node.hint);
  if (reason === undefined || isContentHint(node.hint, true)) return undefined;
  return reason;
}

/** A byline or dateline: short text starting with "By Name" or made mostly of a date and a time. */
const BYLINE =
  /^(by|from|written by|posted by|words by|reporting by|contributing|von|par|por|publicado por|di|door|av|автор):?\s+(\S)/i;
/** Month names (English, German, French, Spanish, Portuguese, Italian, Dutch), as a day's neighbour. */
const MONTHS =
  'jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|januar|februar|märz|mai|juni|juli|oktober|dezember|' +
  'janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|' +
  'mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|janeiro|fevereiro|março|maio|junho|julho|' +
  'setembro|outubro|novembro|dezembro|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre|' +
  'januari|februari|maart|mei|augustus';
const MONTH = new RegExp(
  `(?<![\\p{L}])(${MONTHS})\\p{L}*\\.?\\s+\\d{1,2}\\b|\\b\\d{1,2}\\.?\\s+(de\\s+)?(${MONTHS})\\p{L}*`,
  'iu',
);
const NUMERIC_DATE = /\b\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\b/;
const TIME = /\b\d{1,2}:\d{2}\b|\b\d+\s+(minutes?|hours?|days?|weeks?)\s+ago\b/i;
const DATE_WORDS =
  /(?<![\p{L}])(updated|published|posted|last modified|am|pm|gmt|utc|edt|est|pst|cet|hst|de|às|um|le|à|el|a las|am|um|uhr)(?![\p{L}])/giu;
const WEEKDAY =
  /(?<![\p{L}])(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?|(?:segunda|terça|quarta|quinta|sexta)-feira|sábado|domingo|lunes|martes|miércoles|jueves|viernes|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)(?![\p{L}])/giu;

/** Longest text a byline or dateline is taken to be. */
export const MAX_META_LINE_CHARS = 100;

/**
 * True when `text` (one block's whole text) reads as a byline or a dateline rather than prose: at
 * most {@link MAX_META_LINE_CHARS} characters and either "By <Capitalised>" at its start, or a
 * date (a month name with a day, or a numeric date) or a time with no sentence around it (what is
 * left after removing the date, time and words such as "Updated" has at most 4 words).
 *
 * @example isMetaLine('By Jane Doe | November 18, 2019') // true
 * @example isMetaLine('On November 18 the council voted to close the road.') // false
 */
export function isMetaLine(text: string): boolean {
  const t = text.trim();
  if (t.length === 0 || t.length > MAX_META_LINE_CHARS) return false;
  const byline = BYLINE.exec(t);
  if (byline !== null && /\p{Lu}/u.test(byline[2]!)) return true; // "By Jane", not "by the way"
  if (!MONTH.test(t) && !NUMERIC_DATE.test(t) && !TIME.test(t)) return false;
  const rest = t
    .replace(new RegExp(MONTH.source, 'giu'), ' ')
    .replace(new RegExp(NUMERIC_DATE.source, 'g'), ' ')
    .replace(new RegExp(TIME.source, 'gi'), ' ')
    .replace(DATE_WORDS, ' ')
    .replace(WEEKDAY, ' ')
    .replace(/\b(19|20)\d{2}\b/g, ' ');
  return (rest.match(/\p{L}{2,}/gu)?.length ?? 0) <= 4;
}

/**
 * True when an element is a list of teasers (related or recent articles: a linked headline and a
 * blurb each): at least 3 headings, under 300 characters of text per heading, over 20% links.
 */
export function isTeaserList(node: HtmlNode): boolean {
  return node.headings >= 3 && node.chars < 300 * node.headings && linkDensity(node) > 0.2;
}

/** The whole text of an advertisement's label, in a few languages. */
const AD_LABEL =
  /^(advertisement|advert|ad|sponsored|sponsored content|anzeige|werbung|publicidad|publicidade|publicité|pubblicità|реклама|advertentie)$/i;

/** True when `text` (one block's whole text) is only an advertisement label ("Advertisement", "Anzeige"). */
export function isAdLabel(text: string): boolean {
  return AD_LABEL.test(text.trim().replace(/[\s:.\-–—]+$/, ''));
}

/** Longest text a photo credit is taken to be. */
export const MAX_CREDIT_CHARS = 80;
const CREDIT =
  /^(©|\(c\)|copyright\b|(photo|image|picture|pictures|foto|photograph|credit|credits|source)s?\s*(copyright|credit|by)?\s*:|\((photo|image|picture|foto)s?\s*:|image copyright\b)/i;

/**
 * True when `text` (one block's whole text) is a photo credit: at most {@link MAX_CREDIT_CHARS}
 * characters, starting with `©`, "Copyright", "Photo:", "Image:", "Credit:", "(Image: …" or
 * "Image copyright".
 *
 * @example isCreditLine('Photo: Hau Dinh, AP') // true
 */
export function isCreditLine(text: string): boolean {
  const t = text.trim();
  return t.length > 0 && t.length <= MAX_CREDIT_CHARS && CREDIT.test(t);
}

/** Link density above which a block inside the article is a list of links, not prose. */
export const MAX_LINK_DENSITY = 0.5;
/** The same for a block of 150 characters or more. */
export const PROSE_LINK_DENSITY = 0.8;

/**
 * Why an element inside the chosen article is furniture to drop, or undefined. `articleChars` is
 * the article's text size: an element holding at least half of it is never dropped by its hints.
 * In order:
 * - the page-chrome rules of {@link chromeReason} (an article's own `HEADER` included: it holds the
 *   headline, byline and date, and the headline is the document title already) and
 *   {@link FURNITURE_TAGS};
 * - `links`: a block whose text is more than {@link MAX_LINK_DENSITY} links ({@link PROSE_LINK_DENSITY}
 *   from 150 characters on: linked summaries are prose), or a list of 3+ short
 *   items (under 40 characters each on average) more than a quarter links (menus built from `li`);
 * - `related`: a list of teasers ({@link isTeaserList});
 * - `gallery`: more images than paragraphs with under 25 characters of text per image;
 * - `form`: more form controls than a third of its paragraphs (search boxes, sign-up forms);
 * - `embed`: an embed (video, iframe) with under 75 characters of text;
 * - `byline`, `caption`, `promo`: a block with no block inside whose whole text is a byline or a
 *   dateline ({@link isMetaLine}), a photo credit ({@link isCreditLine}) or an ad label ({@link isAdLabel}).
 * A heading is only dropped by its hints or as a meta line.
 */
export function furnitureReason(
  node: HtmlNode,
  articleChars: number,
  text: () => string,
): string | undefined {
  const big = node.chars * 2 >= articleChars && articleChars > 0;
  if (node.hidden) return 'hidden';
  if (!big) {
    const tag = FURNITURE_TAGS[node.tag] ?? (node.tag === 'HEADER' ? 'header' : undefined);
    if (tag !== undefined) return tag;
    const chrome = chromeReason(node, true) ?? hintReason(node.hint);
    if (chrome !== undefined) return chrome;
  }
  if (!node.block && node.tag !== 'SPAN' && node.tag !== 'TIME') return undefined;
  if (node.chars === 0) return node.embeds > 0 ? 'embed' : undefined;
  const heading = HEADING.test(node.tag);
  const density = linkDensity(node);
  if (!heading) {
    // Long text with links in it reads as prose (a list of linked summaries) up to a higher share.
    if (density > (node.chars >= 150 ? PROSE_LINK_DENSITY : MAX_LINK_DENSITY)) return 'links';
    if (isTeaserList(node)) return 'related';
    if ((node.tag === 'UL' || node.tag === 'OL') && node.items >= 3) {
      if (node.chars / node.items < 40 && density > 0.25) return 'links';
    }
    if (node.images > 1 && node.images > node.paragraphs && node.chars < 25 * node.images) return 'gallery';
    if (node.controls > 0 && node.controls * 3 > node.paragraphs) return 'form';
    if (node.embeds > 0 && node.chars < 75) return 'embed';
  }
  if (!node.hasBlockChild && node.chars <= MAX_META_LINE_CHARS) {
    const t = text();
    if (isMetaLine(t)) return 'byline';
    if (isCreditLine(t)) return 'caption';
    if (isAdLabel(t)) return 'promo';
  }
  return undefined;
}
