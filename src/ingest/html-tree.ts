/**
 * A page as a light tree built in one walk of its parsed nodes, with each element's text
 * statistics summed bottom-up, so that every later decision (boilerplate, main content, sections)
 * reads numbers instead of asking a DOM for `textContent` or live collections. Everything here is
 * linear in the number of nodes.
 */
import { createRequire } from 'node:module';
import type { DefaultTreeAdapterTypes } from 'parse5';
import { isSpaceCode } from '../text/whitespace.js';

/** Elements dropped while the tree is built: they never carry article text. */
export const NEVER_CONTENT = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'IFRAME',
  'OBJECT',
  'EMBED',
  'SVG',
  'CANVAS',
  'BUTTON',
  'SELECT',
  'TEXTAREA',
  'INPUT',
  'OPTION',
  'LINK',
  'META',
  'HEAD',
  'MATH',
  'AUDIO',
  'VIDEO',
  'MAP',
  'PICTURE',
  'SOURCE',
]);

/** Block-level elements: text inside one belongs to it, not to the element around it. */
export const BLOCK_TAGS = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'BODY',
  'CAPTION',
  'CENTER',
  'DD',
  'DETAILS',
  'DIALOG',
  'DIV',
  'DL',
  'DT',
  'FIELDSET',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HGROUP',
  'HR',
  'HTML',
  'LI',
  'MAIN',
  'MENU',
  'NAV',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'SUMMARY',
  'TABLE',
  'TBODY',
  'TD',
  'TFOOT',
  'TH',
  'THEAD',
  'TR',
  'UL',
]);

export const HEADING = /^H([1-6])$/;

/** One element or text node of the page. */
export interface HtmlNode {
  /** Upper-case tag name; `#text` for text. */
  tag: string;
  parent: HtmlNode | undefined;
  children: HtmlNode[];
  /** A text node's text as written ('' for elements). */
  text: string;
  /** The element's `id` and `class`, lower-cased and space-separated ('' when it has neither). */
  hint: string;
  /** The `role` attribute, lower-cased. */
  role: string;
  /** The `itemprop` attribute, lower-cased. */
  itemprop: string;
  /** `hidden`, `aria-hidden="true"`, or an inline `display:none` / `visibility:hidden`. */
  hidden: boolean;
  /** `aria-modal="true"`. */
  modal: boolean;
  /** An `A` whose `href` is only a fragment (`#…`) or a `javascript:` call. */
  localLink: boolean;
  /** Non-space characters of text inside (the whole subtree). */
  chars: number;
  /** Of {@link chars}, those inside `A` elements. */
  linkChars: number;
  /** Commas in the text inside (`,`, `，`, `、`, `،`). */
  commas: number;
  /** Characters of inline text directly in this block (not in a nested block); 0 for inline elements. */
  ownChars: number;
  /** Commas of that inline text. */
  ownCommas: number;
  /** Descendant counts: `P`, `LI`, `IMG`, headings, form controls, `A`, embeds (iframes, videos). */
  paragraphs: number;
  items: number;
  images: number;
  headings: number;
  controls: number;
  links: number;
  embeds: number;
  /** Form controls and embeds that were children of this element (left out of the tree, counted here). */
  ownControls: number;
  ownEmbeds: number;
  /** Has a block-level element child. */
  hasBlockChild: boolean;
  /** Whether the element is block-level ({@link BLOCK_TAGS}). */
  block: boolean;
}

/** The tree of a page: its body (or root), the text of its `<title>`, and every node in document order. */
export interface HtmlTree {
  root: HtmlNode;
  title: string;
  /** Every element and text node, in document order (pre-order), `root` first. */
  order: HtmlNode[];
}

const CONTROLS = new Set(['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON']);
const EMBEDS = new Set(['IFRAME', 'OBJECT', 'EMBED', 'VIDEO', 'AUDIO']);
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;

/** Whether a UTF-16 code unit is a comma (`,`, `，`, `、`, `،`). */
function isComma(c: number): boolean {
  return c === 0x2c || c === 0xff0c || c === 0x3001 || c === 0x060c;
}

function newNode(tag: string, parent: HtmlNode | undefined): HtmlNode {
  return {
    tag,
    parent,
    children: [],
    text: '',
    hint: '',
    role: '',
    itemprop: '',
    hidden: false,
    modal: false,
    localLink: false,
    chars: 0,
    linkChars: 0,
    commas: 0,
    ownChars: 0,
    ownCommas: 0,
    paragraphs: 0,
    items: 0,
    images: 0,
    headings: 0,
    controls: 0,
    links: 0,
    embeds: 0,
    ownControls: 0,
    ownEmbeds: 0,
    hasBlockChild: false,
    block: BLOCK_TAGS.has(tag),
  };
}

type Parse5 = typeof import('parse5');
type P5Node = DefaultTreeAdapterTypes.Node;
type P5Element = DefaultTreeAdapterTypes.Element;

const require = createRequire(import.meta.url);
/** parse5, loaded on the first page read. */
const parse5 = (): Parse5 => require('parse5') as Parse5;

/**
 * Parse `html` as a browser would with scripting off (parse5, the WHATWG parser jsdom uses, so the
 * tree jsdom builds, `<noscript>` read as markup; except that text foster-parented out of a table
 * goes before the table, where browsers put it, not after) and build its light tree
 * ({@link buildTree}). No DOM is made: parse5's plain nodes are released as they are read, so a
 * page costs a small multiple of its size (see `MAX_HTML_BYTES`).
 */
export function parseTree(html: string): HtmlTree {
  return buildTree(parse5().parse(html, { scriptingEnabled: false }));
}

function isElement(node: P5Node): node is P5Element {
  return 'tagName' in node;
}

/**
 * Fill a node's hints and flags from its element's attributes, in one pass over them (the parser
 * keeps the first of a repeated name; attributes in a namespace, such as `xlink:href`, are not
 * these).
 */
function readAttributes(el: P5Element, node: HtmlNode): void {
  let id = '';
  let cls = '';
  for (const a of el.attrs) {
    if (a.namespace !== undefined) continue;
    switch (a.name) {
      case 'id':
        id = a.value;
        break;
      case 'class':
        cls = a.value;
        break;
      case 'role':
        node.role = a.value.toLowerCase();
        break;
      case 'itemprop':
        node.itemprop = a.value.toLowerCase();
        break;
      case 'hidden':
        node.hidden = true;
        break;
      case 'aria-hidden':
        if (a.value === 'true') node.hidden = true;
        break;
      case 'style':
        if (HIDDEN_STYLE.test(a.value)) node.hidden = true;
        break;
      case 'aria-modal':
        node.modal = a.value === 'true';
        break;
      case 'href':
        if (node.tag === 'A') {
          const href = a.value.trim();
          node.localLink = href.startsWith('#') || href.toLowerCase().startsWith('javascript:');
        }
        break;
    }
  }
  node.hint = id === '' && cls === '' ? '' : `${id} ${cls}`.trim().toLowerCase();
}

/** The text of the first `<title>` in document order (any namespace, as `querySelector('title')`), '' when none. */
function titleText(doc: DefaultTreeAdapterTypes.Document): string {
  const stack: P5Node[] = [doc];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isElement(node) && node.tagName === 'title') {
      const parts: string[] = [];
      const inner: P5Node[] = [node];
      while (inner.length > 0) {
        const n = inner.pop()!;
        if (n.nodeName === '#text') parts.push((n as DefaultTreeAdapterTypes.TextNode).value);
        else if ('childNodes' in n)
          for (let i = n.childNodes.length - 1; i >= 0; i--) inner.push(n.childNodes[i]!);
      }
      return parts.join('');
    }
    if ('childNodes' in node)
      for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]!);
  }
  return '';
}

/**
 * Build the tree of a parsed page in one walk (iterative, so any nesting depth is fine): the body's
 * (else the root element's) elements and text, comments left out, {@link NEVER_CONTENT} elements
 * left out (form controls and embeds still counted on their parent), then the statistics of
 * {@link HtmlNode} summed bottom-up ({@link summarise}).
 */
function buildTree(doc: DefaultTreeAdapterTypes.Document): HtmlTree {
  const title = titleText(doc);
  const html = doc.childNodes.find(isElement);
  const body = html?.childNodes.find(
    (c): c is P5Element => isElement(c) && (c.tagName === 'body' || c.tagName === 'frameset'),
  );
  const top = body ?? html;
  const root = newNode(top?.tagName.toUpperCase() ?? 'BODY', undefined);
  const order: HtmlNode[] = [root];
  const upper = new Map<string, string>(); // tag names upper-cased, once each
  if (top !== undefined) {
    // Two parallel stacks (a parsed node, the tree node it goes under): no pair allocated per node.
    const pending: P5Node[] = [];
    const parents: HtmlNode[] = [];
    const pushChildren = (el: P5Element, node: HtmlNode): void => {
      // Children are pushed last-first so they are popped (and appended) in document order.
      for (let i = el.childNodes.length - 1; i >= 0; i--) {
        pending.push(el.childNodes[i]!);
        parents.push(node);
      }
      // The parsed nodes are released as they are read: only the stack holds what is left to read.
      el.childNodes = [];
    };
    pushChildren(top, root);
    while (pending.length > 0) {
      const p5 = pending.pop()!;
      const parent = parents.pop()!;
      if (p5.nodeName === '#text') {
        const node = newNode('#text', parent);
        node.text = (p5 as DefaultTreeAdapterTypes.TextNode).value;
        parent.children.push(node);
        order.push(node);
        continue;
      }
      if (!isElement(p5)) continue;
      let tag = upper.get(p5.tagName);
      if (tag === undefined) upper.set(p5.tagName, (tag = p5.tagName.toUpperCase()));
      if (NEVER_CONTENT.has(tag)) {
        if (CONTROLS.has(tag)) parent.ownControls++;
        if (EMBEDS.has(tag)) parent.ownEmbeds++;
        continue;
      }
      const node = newNode(tag, parent);
      readAttributes(p5, node);
      parent.children.push(node);
      order.push(node);
      pushChildren(p5, node);
    }
  }
  const tree = { root, title, order };
  summarise(tree);
  return tree;
}

/**
 * (Re)compute every node's statistics bottom-up, counting nothing of the nodes in `removed` (nor
 * of their subtrees). One pass over {@link HtmlTree.order} backwards: a node's children come after
 * it in document order, so they are summed before it.
 */
export function summarise(tree: HtmlTree, removed: ReadonlySet<HtmlNode> = new Set()): void {
  for (let i = tree.order.length - 1; i >= 0; i--) {
    const node = tree.order[i]!;
    reset(node);
    if (!removed.has(node)) summariseNode(node, removed);
  }
}

function reset(node: HtmlNode): void {
  node.chars = node.linkChars = node.commas = node.ownChars = node.ownCommas = 0;
  node.paragraphs = node.items = node.images = node.headings = node.links = 0;
  node.controls = node.ownControls;
  node.embeds = node.ownEmbeds;
  node.hasBlockChild = false;
}

/** Fill a node's statistics from its own text or its (already summarised) children. */
function summariseNode(node: HtmlNode, removed: ReadonlySet<HtmlNode>): void {
  if (node.tag === '#text') {
    // One pass, no allocation: this runs for every text node on every summarise.
    const text = node.text;
    let chars = 0;
    let commas = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (!isSpaceCode(c)) chars++;
      if (isComma(c)) commas++;
    }
    node.chars = chars;
    node.commas = commas;
    return;
  }
  let inlineChars = 0;
  let inlineCommas = 0;
  for (const c of node.children) {
    if (removed.has(c)) continue;
    node.chars += c.chars;
    node.linkChars += c.linkChars;
    node.commas += c.commas;
    if (c.tag === '#text' || !c.block) {
      // Inline children pass their inline text up to the nearest block.
      inlineChars += c.tag === '#text' ? c.chars : c.ownChars;
      inlineCommas += c.tag === '#text' ? c.commas : c.ownCommas;
    } else node.hasBlockChild = true;
    if (c.tag === '#text') continue;
    node.paragraphs += c.paragraphs + (c.tag === 'P' ? 1 : 0);
    node.items += c.items + (c.tag === 'LI' ? 1 : 0);
    node.images += c.images + (c.tag === 'IMG' ? 1 : 0);
    node.headings += c.headings + (HEADING.test(c.tag) ? 1 : 0);
    node.controls += c.controls;
    node.links += c.links + (c.tag === 'A' ? 1 : 0);
    node.embeds += c.embeds;
  }
  if (node.tag === 'A') node.linkChars = node.localLink ? Math.round(node.chars * 0.3) : node.chars;
  // A block keeps its inline text; an inline element hands it to its block (through ownChars).
  node.ownChars = inlineChars;
  node.ownCommas = inlineCommas;
}

/**
 * Share of an element's text inside links, 0 when it has no text: `linkChars / chars`, where a
 * fragment or `javascript:` link counts 0.3 of its text (it is usually a tab or a toggle, not a
 * way off the page).
 */
export function linkDensity(node: HtmlNode): number {
  return node.chars === 0 ? 0 : node.linkChars / node.chars;
}

/** Pre-order over the elements under `root` (not `root` itself); `visit` returning false skips a subtree. */
export function eachElement(root: HtmlNode, visit: (node: HtmlNode) => boolean | void): void {
  const stack: HtmlNode[] = [];
  for (let i = root.children.length - 1; i >= 0; i--) stack.push(root.children[i]!);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.tag === '#text') continue;
    if (visit(node) === false) continue;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
}

/**
 * The text under `node`, whitespace runs squashed to one space, trimmed; at most about `max`
 * characters (the walk stops there, so a huge subtree costs no more than `max`).
 */
export function textOf(node: HtmlNode, max = Infinity): string {
  const out: string[] = [];
  let size = 0;
  const stack: (HtmlNode | undefined)[] = [node]; // undefined: the space after a block
  while (stack.length > 0 && size < max) {
    const n = stack.pop();
    if (n === undefined) {
      out.push(' ');
      continue;
    }
    if (n.tag === '#text') {
      out.push(n.text);
      size += n.text.length;
      continue;
    }
    if (n.tag === 'BR' || n.block) {
      out.push(' ');
      stack.push(undefined);
    }
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  const text = out.join('').replace(/\s+/g, ' ').trim();
  return text.length > max ? text.slice(0, max) : text;
}
