import { encodingMeta, readerText } from './encoding.js';
import { findContent, type Content } from './html-content.js';
import { SectionWalker } from './html-sections.js';
import { parseTree, textOf, type HtmlNode, type HtmlTree } from './html-tree.js';
import type { ParsedDocument } from './parsed.js';
import { assertNesting } from './nesting.js';
import { squash, titleFromSource, type ReaderInput } from './_shared.js';

/** Most characters one `meta.removed` entry keeps of the text it names. */
export const MAX_REMOVED_ENTRY_CHARS = 160;
/** Most characters all `meta.removed` entries together hold. */
export const MAX_REMOVED_CHARS = 4000;

/**
 * Read an HTML page: decode it (`readerText`: a BOM, the page's `<meta charset>`, UTF-8, a detected
 * legacy encoding, windows-1252; the encoding lands in `meta.encoding` when it is not UTF-8), then
 * {@link parseHtml}.
 */
export async function readHtml(input: ReaderInput): Promise<ParsedDocument> {
  const decoded = readerText(input.bytes, { html: true, source: input.source });
  const doc = parseHtml(decoded.text, input.source, input.title);
  return { ...doc, meta: { ...doc.meta, ...encodingMeta(decoded) } };
}

/**
 * Read a decoded HTML page: its main content (`html-content.ts`) on the page's light tree
 * (`parseTree`: parse5, the WHATWG parser, with scripting off; no scripts run, no resources
 * load), as sections cut at h1–h6 with paragraph breaks, list items and table rows on their own
 * lines (`html-sections.ts`). Scripts, styles, forms' controls and embeds never
 * reach the text; page chrome (menus, banners, cookie notices, dialogs, page headers and footers)
 * and the furniture inside the article (share bars, bylines, dates, captions, related links,
 * newsletter boxes) are dropped, and their text is kept, clipped, in `meta.removed`
 * (`"<reason>: <text>"`, at most {@link MAX_REMOVED_CHARS} characters in all; text of the page
 * outside the content follows as `"outside: …"`).
 *
 * Linear in the page: the parsed nodes are walked once into a light tree with text statistics (and
 * released as they are read), and every later step reads that tree (no DOM, no `textContent` over
 * the page, no live collections).
 *
 * Title: `titleOverride`, else the page's only H1 when the `<title>` contains it, else the
 * `<title>` without a site name after (or before) a separator (` | `, ` - `, ` – `, ` — `, ` » `,
 * ` · `), else the first heading, else the file name.
 *
 * A page nesting deeper than `MAX_HTML_NESTING` elements (see `htmlNestingDepth`) →
 * `QuiverError('CORRUPT_FILE')` before it is parsed.
 */
export function parseHtml(html: string, origin: string, titleOverride?: string): ParsedDocument {
  return parseHtmlWithWork(html, origin, titleOverride).doc;
}

/**
 * {@link parseHtml} that also reports its work: the tree's node count and the node visits of all
 * passes over it (for tests that hold reading linear without timing it).
 */
export function parseHtmlWithWork(
  html: string,
  origin: string,
  titleOverride?: string,
): { doc: ParsedDocument; nodes: number; work: number } {
  assertNesting(html, 'HTML', origin);
  const tree = parseTree(html);
  const content = findContent(tree);
  const walker = new SectionWalker(content.dropped);
  for (const root of content.roots) walker.walkRoot(root);
  const sections = walker.finish();

  const h1s = tree.order
    .filter((n) => n.tag === 'H1')
    .map((n) => textOf(n))
    .filter((t) => t !== '');
  const found = nonEmpty(withoutSiteName(squash(tree.title)));
  // A single H1 that the <title> contains ("Espresso Basics | Site") is the cleaner title.
  const h1 = h1s.length === 1 ? h1s[0] : undefined;
  const fromH1 =
    h1 !== undefined && (found === undefined || squash(tree.title).toLowerCase().includes(h1.toLowerCase()))
      ? h1
      : undefined;
  const title = titleOverride ?? fromH1 ?? found ?? nonEmpty(sections[1]?.title) ?? titleFromSource(origin);

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
  const removed = removedText(tree, content);
  const meta = removed.length === 0 ? {} : { removed };
  const work = tree.order.length + content.work + tree.order.length;
  return {
    doc: { source: origin, title, kind: 'html', meta, pages: null, sections },
    nodes: tree.order.length,
    work,
  };
}

const SEPARATOR = / (?:\||-|–|—|»|·|::) /;

/**
 * A page `<title>` without its site name: split at the separators ` | `, ` - `, ` – `, ` — `,
 * ` » `, ` · `, ` :: `; with two or more parts, the last part is dropped when it has no more words
 * than the rest, else the first part when it has fewer words than the rest; one part → unchanged.
 *
 * @example withoutSiteName('Espresso Basics | Coffee Site') // 'Espresso Basics'
 * @example withoutSiteName('BBC News - Heavy rain floods the valley') // 'Heavy rain floods the valley'
 */
export function withoutSiteName(title: string): string {
  const parts = title.split(SEPARATOR).map((p) => p.trim());
  if (parts.length < 2) return title;
  const wordsIn = (ps: string[]): number =>
    ps
      .join(' ')
      .split(/\s+/)
      .filter((w) => w !== '').length;
  const last = parts[parts.length - 1]!;
  if (wordsIn([last]) <= wordsIn(parts.slice(0, -1))) return joinParts(title, parts.length - 1, true);
  if (wordsIn([parts[0]!]) < wordsIn(parts.slice(1))) return joinParts(title, 1, false);
  return title;
}

/** `title` up to its `count`-th separator (`head`), or after its `count`-th one. */
function joinParts(title: string, count: number, head: boolean): string {
  const cuts = [...title.matchAll(new RegExp(SEPARATOR.source, 'g'))];
  const cut = cuts[count - 1]!;
  return (head ? title.slice(0, cut.index) : title.slice(cut.index + cut[0].length)).trim();
}

/**
 * The text that was not read, for `meta.removed`: each removal's text as `"<reason>: <text>"`
 * (furniture inside the article first, then page chrome), then the page's other text around the
 * content as `"outside: <text>"` (the siblings of the content and of its ancestors), each clipped
 * to {@link MAX_REMOVED_ENTRY_CHARS}, until {@link MAX_REMOVED_CHARS} are used. Reading stops
 * there, so a huge page costs no more.
 */
function removedText(tree: HtmlTree, content: Content): string[] {
  const out: string[] = [];
  let size = 0;
  const add = (reason: string, node: HtmlNode): boolean => {
    if (size >= MAX_REMOVED_CHARS) return false;
    const text = textOf(node, MAX_REMOVED_ENTRY_CHARS);
    if (text === '') return true;
    const entry = `${reason}: ${text}`;
    out.push(entry);
    size += entry.length;
    return true;
  };
  const ordered = [
    ...content.removals.filter((r) => r.stage === 'furniture'),
    ...content.removals.filter((r) => r.stage === 'chrome'),
  ];
  for (const r of ordered) if (!add(r.reason, r.node)) return out;
  const onPath = new Set<HtmlNode>();
  for (const root of content.roots)
    for (let n: HtmlNode | undefined = root; n !== undefined; n = n.parent) onPath.add(n);
  for (let n: HtmlNode | undefined = content.roots[0]; n !== undefined && n !== tree.root; n = n.parent) {
    for (const sibling of n.parent?.children ?? []) {
      if (onPath.has(sibling) || content.dropped.has(sibling) || sibling.tag === '#text') continue;
      if (!add('outside', sibling)) return out;
    }
  }
  return out;
}

function nonEmpty(s: string | undefined): string | undefined {
  return s !== undefined && s.length > 0 ? s : undefined;
}
