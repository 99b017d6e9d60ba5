/**
 * A page as a light tree built in one walk of the DOM, with each element's text statistics summed
 * bottom-up, so that every later decision (boilerplate, main content, sections) reads numbers
 * instead of asking the DOM for `textContent` or live collections again. Everything here is linear
 * in the number of nodes.
 */

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
const COMMAS = /[,，、،]/g;
const SPACE = /\s/g;

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

/**
 * Build the tree of `doc` in one walk of its DOM (first child / next sibling, no live collections,
 * no `textContent`): the body's elements and text, comments left out, {@link NEVER_CONTENT}
 * elements left out (form controls and embeds still counted on their parent), then the statistics
 * of {@link HtmlNode} summed bottom-up ({@link summarise}). Iterative, so any nesting depth is fine.
 */
export function buildTree(doc: Document): HtmlTree {
  const titleEl = doc.querySelector('title');
  const title = titleEl === null ? '' : (titleEl.textContent ?? '');
  const top = doc.body ?? doc.documentElement;
  const root = newNode(top?.tagName.toUpperCase() ?? 'BODY', undefined);
  const order: HtmlNode[] = [root];
  if (top !== null) {
    const stack: [Node, HtmlNode][] = [];
    const pushChildren = (dom: Node, node: HtmlNode): void => {
      // Children are pushed last-first so they are popped (and appended) in document order.
      for (let c = dom.lastChild; c !== null; c = c.previousSibling) stack.push([c, node]);
    };
    pushChildren(top, root);
    while (stack.length > 0) {
      const [dom, parent] = stack.pop()!;
      if (dom.nodeType === 3) {
        const node = newNode('#text', parent);
        node.text = dom.nodeValue ?? '';
        parent.children.push(node);
        order.push(node);
        continue;
      }
      if (dom.nodeType !== 1) continue;
      const el = dom as Element;
      const tag = el.tagName.toUpperCase();
      if (NEVER_CONTENT.has(tag)) {
        if (CONTROLS.has(tag)) parent.ownControls++;
        if (EMBEDS.has(tag)) parent.ownEmbeds++;
        continue;
      }
      const node = newNode(tag, parent);
      const id = el.getAttribute('id');
      const cls = el.getAttribute('class');
      node.hint = `${id ?? ''} ${cls ?? ''}`.trim().toLowerCase();
      node.role = (el.getAttribute('role') ?? '').toLowerCase();
      node.itemprop = (el.getAttribute('itemprop') ?? '').toLowerCase();
      const style = el.getAttribute('style');
      node.hidden =
        el.hasAttribute('hidden') ||
        el.getAttribute('aria-hidden') === 'true' ||
        (style !== null && HIDDEN_STYLE.test(style));
      node.modal = el.getAttribute('aria-modal') === 'true';
      if (tag === 'A') {
        const href = (el.getAttribute('href') ?? '').trim();
        node.localLink = href.startsWith('#') || href.toLowerCase().startsWith('javascript:');
      }
      parent.children.push(node);
      order.push(node);
      pushChildren(el, node);
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
    node.chars = node.text.length - (node.text.match(SPACE)?.length ?? 0);
    node.commas = node.text.match(COMMAS)?.length ?? 0;
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
