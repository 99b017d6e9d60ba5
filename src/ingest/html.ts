import { createRequire } from 'node:module';
import type { Readability as ReadabilityClass } from '@mozilla/readability';
import type { JSDOM } from 'jsdom';
import type { ParsedDocument, ParsedSection } from './parsed.js';
import { assertNesting } from './nesting.js';
import { decodeText, squash, titleFromSource, type ReaderInput } from './_shared.js';

/** Elements removed before anything reads the page: they never carry article text. */
const NEVER_CONTENT =
  'script, style, noscript, template, iframe, object, embed, svg, canvas, form, button, select, dialog';
/** An id or class containing one of these marks a consent / cookie banner. */
const BANNER = /cookie|consent|gdpr/i;
/** Removed from the body in the fallback path (when Readability finds no article). */
const FALLBACK_REMOVE = 'nav, header, footer, aside, ' + NEVER_CONTENT;

/** Block-level elements: a blank line before and after. */
const PARAGRAPH_TAGS = new Set([
  'P',
  'DIV',
  'SECTION',
  'ARTICLE',
  'MAIN',
  'BLOCKQUOTE',
  'PRE',
  'TABLE',
  'UL',
  'OL',
  'DL',
  'FIGURE',
  'FIGCAPTION',
  'HEADER',
  'FOOTER',
  'ASIDE',
  'ADDRESS',
  'DETAILS',
  'SUMMARY',
  'HR',
]);
/** Line-level elements: a line break before and after. */
const LINE_TAGS = new Set(['LI', 'TR', 'DT', 'DD', 'CAPTION']);
const HEADING = /^H([1-6])$/;

/**
 * Read an HTML page: the main content found by `@mozilla/readability` on a `jsdom` document (no
 * scripts run, no resources load). Scripts, styles, forms, navigation and cookie/consent banners are
 * removed first, so they never reach the text. The heading tree comes from h1–h6 inside the article;
 * text keeps paragraph breaks (blank lines) and puts list items (`- item`) and table rows on their own
 * lines. When Readability finds nothing, the body minus nav/header/footer/aside is used.
 *
 * Title: `input.title`, else the page's only H1 when the `<title>` contains it (dropping a ` | Site`
 * suffix), else Readability's title, else `<title>`, else the first heading, else the file name.
 *
 * A page nesting deeper than `MAX_HTML_NESTING` elements (see `htmlNestingDepth`) →
 * `QuiverError('CORRUPT_FILE')` before jsdom sees it.
 */
export async function readHtml(input: ReaderInput): Promise<ParsedDocument> {
  return parseHtml(decodeText(input.bytes), input.source, input.title);
}

/** {@link readHtml} on a decoded string. */
export function parseHtml(html: string, origin: string, titleOverride?: string): ParsedDocument {
  assertNesting(html, 'HTML', origin);
  const doc = parseDocument(html);
  const pageTitle = squash(doc.title ?? '');
  const h1s = Array.from(doc.getElementsByTagName('h1'), (h) => squash(h.textContent ?? '')).filter(
    (t) => t !== '',
  );
  for (const el of doc.querySelectorAll(NEVER_CONTENT)) el.remove();
  const fallbackBody = doc.body?.cloneNode(true) as HTMLElement | undefined;
  removeBoilerplate(doc.documentElement);

  let root: Element | undefined;
  let readTitle = '';
  const article = new (readability())(doc, { charThreshold: 100 }).parse();
  if (article?.content != null && squash(article.textContent ?? '').length > 0) {
    const holder = doc.createElement('div');
    holder.innerHTML = article.content;
    root = holder;
    readTitle = squash(article.title ?? '');
  } else if (fallbackBody !== undefined) {
    for (const el of fallbackBody.querySelectorAll(FALLBACK_REMOVE)) el.remove();
    removeBoilerplate(fallbackBody);
    root = fallbackBody;
  }

  const walker = new SectionWalker();
  if (root !== undefined) walker.walk(root);
  const sections = walker.finish();
  const firstHeading = sections[1]?.title;
  const found = nonEmpty(readTitle) ?? nonEmpty(pageTitle);
  // A single H1 that the <title> contains ("Espresso Basics | Site") is the cleaner title.
  const h1 = h1s.length === 1 ? h1s[0] : undefined;
  const fromH1 =
    h1 !== undefined && (found === undefined || found.toLowerCase().includes(h1.toLowerCase()))
      ? h1
      : undefined;
  const title = titleOverride ?? fromH1 ?? found ?? nonEmpty(firstHeading) ?? titleFromSource(origin);

  // A first heading that repeats the title, with no text before it, is the title itself.
  const root0 = sections[0];
  if (
    root0 !== undefined &&
    sections[1] !== undefined &&
    root0.segments.every((s) => s.text.trim() === '') &&
    sections[1].title.toLowerCase() === title.toLowerCase()
  ) {
    root0.segments = sections[1].segments;
    sections.splice(1, 1);
  }
  if (root0 !== undefined) root0.title = title;
  return { source: origin, title, kind: 'html', meta: {}, pages: null, sections };
}

let shared: JSDOM | undefined;
const require = createRequire(import.meta.url);
/** jsdom and Readability, loaded on the first page read (jsdom alone costs ~0.3 s at start-up). */
const dom = (): { JSDOM: typeof JSDOM; VirtualConsole: typeof import('jsdom').VirtualConsole } =>
  require('jsdom') as typeof import('jsdom');
const readability = (): typeof ReadabilityClass =>
  (require('@mozilla/readability') as { Readability: typeof ReadabilityClass }).Readability;

/**
 * Parse HTML into a Document with one shared jsdom window's DOMParser: no window per page (creating
 * one costs tens of milliseconds), no script execution, no resource loading.
 */
function parseDocument(html: string): Document {
  if (shared === undefined) {
    const { JSDOM: Dom, VirtualConsole } = dom();
    shared = new Dom('', { virtualConsole: new VirtualConsole() });
  }
  return new shared.window.DOMParser().parseFromString(html, 'text/html');
}

/**
 * Remove navigation (`nav`, role navigation), dialogs, consent / cookie banners (an id or class
 * containing cookie, consent or gdpr), and page-level header/footer/aside (outside any article or
 * main), but never a container that holds the article itself.
 */
function removeBoilerplate(scope: Element): void {
  for (const el of scope.querySelectorAll('*')) {
    const role = el.getAttribute('role');
    const pageChrome =
      (el.tagName === 'HEADER' || el.tagName === 'FOOTER' || el.tagName === 'ASIDE') &&
      el.closest('article, main') === null;
    const isBoilerplate =
      pageChrome ||
      el.tagName === 'NAV' ||
      role === 'navigation' ||
      role === 'dialog' ||
      el.getAttribute('aria-modal') === 'true' ||
      BANNER.test(el.id) ||
      BANNER.test(el.getAttribute('class') ?? '');
    if (!isBoilerplate) continue;
    if (/^(HTML|BODY|MAIN|ARTICLE)$/.test(el.tagName) || el.querySelector('main, article') !== null) continue;
    el.remove();
  }
}

function nonEmpty(s: string | undefined): string | undefined {
  return s !== undefined && s.length > 0 ? s : undefined;
}

/** Walks a DOM subtree, cutting sections at headings and writing text with paragraph breaks. */
class SectionWalker {
  private readonly sections: ParsedSection[] = [];
  private current: ParsedSection = { level: 0, title: '', segments: [] };
  /** The section's text so far, in pieces (never empty strings). */
  private out: string[] = [];
  /** Pending break before the next text: 0 none, 1 line, 2 paragraph. */
  private pending = 0;
  private listDepth = 0;

  walk(node: Node): void {
    for (let child = node.firstChild; child !== null; child = child.nextSibling) this.visit(child);
  }

  finish(): ParsedSection[] {
    this.closeSection();
    return this.sections;
  }

  private visit(node: Node): void {
    if (node.nodeType === 3 /* text */) {
      this.emit((node.nodeValue ?? '').replace(/\s+/g, ' '));
      return;
    }
    if (node.nodeType !== 1 /* element */) return;
    const el = node as Element;
    const tag = el.tagName;
    const heading = HEADING.exec(tag);
    if (heading !== null) {
      const title = squash(el.textContent ?? '');
      if (title.length === 0) return;
      this.closeSection();
      this.current = { level: Number(heading[1]), title, segments: [] };
      return;
    }
    if (tag === 'BR') {
      this.brk(1);
      return;
    }
    if (tag === 'PRE') {
      this.brk(2);
      this.emit(el.textContent ?? '', true);
      this.brk(2);
      return;
    }
    if (tag === 'IMG') {
      return;
    }
    if (PARAGRAPH_TAGS.has(tag)) {
      this.brk(tag === 'UL' || tag === 'OL' ? (this.listDepth > 0 ? 1 : 2) : 2);
      if (tag === 'UL' || tag === 'OL') this.listDepth++;
      this.walk(el);
      if (tag === 'UL' || tag === 'OL') this.listDepth--;
      this.brk(this.listDepth > 0 ? 1 : 2);
      return;
    }
    if (LINE_TAGS.has(tag)) {
      this.brk(1);
      if (tag === 'LI') this.emit('  '.repeat(Math.max(0, this.listDepth - 1)) + '- ', true);
      this.walk(el);
      this.brk(1);
      return;
    }
    if (tag === 'TD' || tag === 'TH') {
      if (el.previousElementSibling !== null) this.emit(' | ', true);
      this.walk(el);
      return;
    }
    this.walk(el);
  }

  /** Request a line (1) or paragraph (2) break before the next text. */
  private brk(kind: number): void {
    if (this.out.length > 0) this.pending = Math.max(this.pending, kind);
  }

  private emit(text: string, verbatim = false): void {
    if (!verbatim && text.trim() === '') {
      // Whitespace between inline elements: one space unless a break is pending.
      if (this.pending === 0 && this.out.length > 0 && this.lastChar() !== ' ') this.out.push(' ');
      return;
    }
    if (this.pending > 0) {
      this.trimTail();
      this.out.push(this.pending === 2 ? '\n\n' : '\n');
      this.pending = 0;
      if (!verbatim) text = text.trimStart();
    } else if (this.out.length === 0 || this.lastChar() === '\n') {
      if (!verbatim) text = text.trimStart();
    } else if (this.lastChar() === ' ' && !verbatim) {
      text = text.trimStart();
    }
    if (text !== '') this.out.push(text);
  }

  /** The last character written ('' when nothing is). */
  private lastChar(): string {
    const last = this.out[this.out.length - 1];
    return last === undefined ? '' : last.charAt(last.length - 1);
  }

  /**
   * Drop trailing whitespace from what is written. Only the last pieces can hold it, so this stays
   * cheap however long the section grows (trimming the joined text each time was quadratic).
   */
  private trimTail(): void {
    for (;;) {
      const last = this.out[this.out.length - 1];
      if (last === undefined) return;
      const trimmed = last.trimEnd();
      if (trimmed.length > 0) {
        this.out[this.out.length - 1] = trimmed;
        return;
      }
      this.out.pop();
    }
  }

  private closeSection(): void {
    const text = this.out
      .join('')
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    this.current.segments = [{ page: null, text }];
    this.sections.push(this.current);
    this.out = [];
    this.pending = 0;
  }
}
