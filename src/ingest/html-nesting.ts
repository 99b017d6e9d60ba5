/**
 * A linear pre-scan of HTML nesting depth, following the HTML parser's rules closely enough that a
 * page cannot nest deeper in the parsed tree (parse5's, as jsdom's) than the scan reports (see {@link htmlNestingDepth}).
 */
import type { NestingDepth } from './nesting.js';

const LF = 0x0a;

const words = (s: string): ReadonlySet<string> => new Set(s.split(' '));

/** Elements that never have children. */
const VOID = words(
  'area base basefont bgsound br col embed frame hr img input keygen link meta param source track wbr',
);
/** Elements whose content is text up to their end tag (outside SVG and MathML). */
const RAW_TEXT = words('script style textarea title xmp iframe noembed noframes');
/** The document's own wrappers: never counted. */
const DOCUMENT = words('html head body');
/** The parser's "special" elements (HTML, MathML and SVG; names lowercased). */
const SPECIAL = words(
  'address applet area article aside base basefont bgsound blockquote body br button caption center col ' +
    'colgroup dd details dir div dl dt embed fieldset figcaption figure footer form frame frameset h1 h2 h3 ' +
    'h4 h5 h6 head header hgroup hr html iframe img input keygen li link listing main marquee menu meta nav ' +
    'noembed noframes noscript object ol p param plaintext pre script search section select source style ' +
    'summary table tbody td template textarea tfoot th thead title tr track ul wbr xmp ' +
    'mi mo mn ms mtext annotation-xml foreignobject desc',
);
/** Boundaries of "has an element in scope". */
const SCOPE = words(
  'applet caption html table td th marquee object template mi mo mn ms mtext annotation-xml foreignobject desc title',
);
const BUTTON_SCOPE = new Set([...SCOPE, 'button']);
const LIST_ITEM_SCOPE = new Set([...SCOPE, 'ol', 'ul']);
const TABLE_SCOPE = words('html table template');
/** An implied end of `li`, `dd` or `dt` stops at special elements other than these. */
const LIST_STOP = new Set([...SPECIAL].filter((n) => n !== 'address' && n !== 'div' && n !== 'p'));
/** A new cell closes the open cell of its row; a new row the open row. */
const ROW_STOP = words('tr tbody thead tfoot html table template');
const TABLE_PARTS = words('table caption colgroup tbody thead tfoot tr td th');
/** Starting one of these closes an open `p` (not `table`: a page without a doctype is in quirks mode, where it nests). */
const CLOSES_P = words(
  'address article aside blockquote center details dialog dir div dl dd dt fieldset figcaption figure ' +
    'footer form h1 h2 h3 h4 h5 h6 header hgroup hr li listing main menu nav ol p pre search section ' +
    'summary ul xmp',
);
const HEADINGS = words('h1 h2 h3 h4 h5 h6');
/** Foreign elements whose children are HTML again. */
const SVG_INTEGRATION = words('foreignobject desc title');
const MATH_INTEGRATION = words('mi mo mn ms mtext annotation-xml');

/** An element's namespace. */
type Namespace = 'html' | 'svg' | 'math';
/** HTML start tags that end foreign content. */
const BREAKOUT = words(
  'b big blockquote body br center code dd div dl dt em embed font h1 h2 h3 h4 h5 h6 head hr i img li listing menu ' +
    'meta nobr ol p pre ruby s small span strike strong sub sup table tt u ul var',
);
const SECTIONS = words('tbody thead tfoot');
const RUBY_PARTS = words('rb rp rt rtc');
/** What "generate implied end tags" closes. */
const IMPLIED_END = words('dd dt li optgroup option p rb rp rt rtc');
/** Formatting elements: closed by an implied end, they are re-opened before the next text or inline tag. */
const FORMATTING = words('a b big code em font i nobr s small strike strong tt u');
/** Formatting re-opened inside one of these stays inside it. */
const MARKERS = words('applet object marquee template td th caption');
/** Start tags that do not re-open closed formatting elements first (block starts, table parts). */
const NO_RECONSTRUCT = new Set([
  ...CLOSES_P,
  ...words('li dd dt table caption colgroup col tbody thead tfoot tr td th'),
]);
const NON_SPACE = /[^\t\n\f\r ]/g;
/** Start tags that end a select inside a table (the parser's "in select in table" mode). */
const SELECT_IN_TABLE_ENDS = words('caption table tbody tfoot thead tr td th');
/** Table parts the parser only builds inside a `table`. */
const TABLE_INNER = words('caption colgroup col tbody thead tfoot tr td th');
/** The elements that decide which parts a new row or cell implies. */
const TABLE_CONTEXT = ['table', 'tbody', 'thead', 'tfoot', 'tr'];
const DD_DT = ['dd', 'dt'];
const CELLS = ['td', 'th'];
const SECTION_NAMES = [...SECTIONS];

/**
 * The deepest element nesting of an HTML text: the largest number of elements open at once, below
 * `html`/`head`/`body` (which are never counted), and the 1-based line of the start tag that reached it.
 *
 * A linear tokenizer with the HTML parser's nesting rules (`html`, `head` and `body` tags are
 * skipped, except `html` inside SVG or MathML, where it is an ordinary foreign element):
 * - comments (ended by `-->` or `--!>`; `<!-->` is empty), doctypes, other `<!…>` and `<?…>` are
 *   skipped, and so are quoted attribute values; `plaintext` ends the scan;
 * - void elements (`br`, `img`, …) count one level but open nothing; `script`, `style`, `textarea`, `title`, `xmp`,
 *   `iframe`, `noembed` and `noframes` hold text up to their end tag (and count one level);
 * - inside a `select`, start tags nest and close nothing, and end tags other than `select`,
 *   `option` and `optgroup` are ignored (the parser drops most of them);
 * - `svg` and `math` start foreign content (children take their parent's namespace), where `<x/>`
 *   closes itself and nothing is raw text, up to an HTML integration point (SVG `foreignObject`,
 *   `desc`, `title`; MathML `mi`, `mo`, `mn`, `ms`, `mtext`, `annotation-xml`); an HTML start tag
 *   such as `div`, `p`, `span` or `body` there breaks out of foreign content, closing it (outside
 *   foreign content `<div/>` opens a `div`, as in the parser);
 * - implied starts and ends: a block start (`div`, `p`, `li`, `h1`, …; not `table`, which nests in
 *   a `p` in quirks mode) closes a `p` open in button scope; `li` closes an open `li`, `dd`/`dt` an open `dd`/`dt`, not past a special element
 *   other than `address`, `div`, `p`; `td`/`th` close an open cell, `tr` an open row, and
 *   `tbody`/`thead`/`tfoot` an open section, not past a table; a row whose nearest table element
 *   is the `table` opens a `tbody`, a cell opens the `tbody`/`tr` it lacks; table parts with no
 *   `table` open are dropped, as the parser drops them; a `col` directly in a table opens a `colgroup`; a heading closes a heading
 *   that is the current element; `option`/`optgroup` close a current `option`; `rb`, `rp`, `rt`,
 *   `rtc` in a `ruby` close the `p`, `li`, `rt`, … left open inside it;
 * - an end tag of a special element (`div`, `li`, `table`, …) closes back to it when it is in scope
 *   (list-item scope for `li`, button scope for `p`, table scope for table parts) and is ignored
 *   otherwise; any other end tag (`span`, `b`, unknown names) closes back to its element only past
 *   non-special elements, else it is ignored, as the parser ignores it; a `</p>` with nothing to
 *   close (the parser makes an empty `p`) and `</br>` count one level (both end foreign content first); `</form>` closes nothing (the
 *   parser takes the form out of the stack and leaves what it holds open);
 *
 * - formatting elements (`b`, `i`, `font`, `a`, …) an implied end closed are re-opened before the
 *   next text or inline start tag, as the parser does, with its list of active formatting elements
 *   (three alike at most, cleared at cells); an `</b>` past a block (the adoption agency) closes
 *   nothing here.
 *
 * Where the rules above simplify the parser they err high; against jsdom on 100,000 random tag soups
 * of up to 120 tags (tables, lists, formatting, SVG/MathML, select, ruby), 5 came out one level under
 * (text after `</html>`, `template` and `marquee` corners), and none on 181 real pages. Past the
 * limit a stack overflow is still caught per file (`read-source.ts`).
 *
 * Linear: each tag costs constant work. `stopAbove` ends the scan as soon as the depth exceeds it
 * (the result is then the first line over it). Empty text → `{ depth: 0, line: 0 }`.
 *
 * @example htmlNestingDepth('<ul>\n<li><b>x</b>\n<li>y\n</ul>') // { depth: 3, line: 2 }
 */
export function htmlNestingDepth(html: string, stopAbove = Infinity): NestingDepth {
  const open = new OpenElements();
  let best: NestingDepth = { depth: 0, line: 0 };
  let line = 1;
  let counted = 0; // the newlines before `counted` are in `line`
  /** Record a depth reached at `pos`; true when the scan should stop. */
  const reach = (depth: number, pos: number): boolean => {
    if (depth > best.depth) {
      for (; counted < pos; counted++) if (html.charCodeAt(counted) === LF) line++;
      best = { depth, line };
    }
    return best.depth > stopAbove;
  };
  const push = (name: string, ns: Namespace, pos: number): boolean => {
    open.push(name, ns);
    return reach(open.depth, pos);
  };

  /** Text (not whitespace) re-opens the formatting elements an implied end closed. */
  const text = (from: number, to: number): boolean => {
    if (open.inForeign()) return false;
    NON_SPACE.lastIndex = from;
    const m = NON_SPACE.exec(html);
    return m !== null && m.index < to && open.reconstruct() > 0 && reach(open.depth, m.index);
  };

  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    if (lt > i && text(i, lt)) return best;
    const next = html.charCodeAt(lt + 1);
    if (next === 0x21 /* ! */ || next === 0x3f /* ? */) {
      i = declarationEnd(html, lt);
      continue;
    }
    const isEnd = next === 0x2f; /* / */
    const nameStart = isEnd ? lt + 2 : lt + 1;
    let j = nameStart;
    while (j < html.length && isNameChar(html.charCodeAt(j), j === nameStart)) j++;
    if (j === nameStart) {
      i = lt + 1; // a lone `<` is text
      continue;
    }
    const name = html.slice(nameStart, j).toLowerCase();
    const tag = scanTag(html, j);
    i = tag.end;
    if (isEnd) {
      if (DOCUMENT.has(name)) continue;
      if ((name === 'p' || name === 'br') && open.inForeign()) {
        while (open.inForeign()) open.truncate(open.depth - 1); // these end foreign content
      }
      if (open.has('select') && name !== 'select' && name !== 'option' && name !== 'optgroup') continue;
      if (name === 'form') continue; // the parser takes the form out and leaves what it holds open
      if (FORMATTING.has(name)) open.dropFormatting(name);
      // `</p>` with no `p` to close makes an empty one, and `</br>` a `br`: a leaf either way.
      if (!open.closeOpen(name, endTagScope(name)) && (name === 'p' || name === 'br')) {
        if (reach(open.depth + 1, lt)) return best;
      }
      continue;
    }
    if (open.inForeign()) {
      if (!BREAKOUT.has(name)) {
        if (tag.selfClosing ? reach(open.depth + 1, lt) : push(name, open.namespace(), lt)) return best;
        continue;
      }
      while (open.inForeign()) open.truncate(open.depth - 1);
    }
    if (DOCUMENT.has(name)) continue;
    if (name === 'plaintext') break;
    if (open.has('select') && name !== 'select') {
      if (
        SELECT_IN_TABLE_ENDS.has(name) &&
        open.has('table') &&
        open.nearest(['table', 'select']) === 'select'
      ) {
        // A select inside a table ends at a table part, which is then read again ("in select in table").
        open.closeBack('select');
      } else {
        // Inside a select the parser drops most tags; keeping them all (and closing nothing) errs high.
        if (VOID.has(name) ? reach(open.depth + 1, lt) : push(name, 'html', lt)) return best;
        continue;
      }
    }
    if (CLOSES_P.has(name)) open.closeOpen('p', BUTTON_SCOPE);
    if (RUBY_PARTS.has(name) && open.inScope('ruby', SCOPE)) {
      // Implied ends back to the ruby's children (`rt`/`rp` keep an open `rtc`).
      const keepRtc = name === 'rt' || name === 'rp';
      while (IMPLIED_END.has(open.top()) && !(keepRtc && open.top() === 'rtc')) open.truncate(open.depth - 1);
    }
    if (name === 'li') open.closeOpen('li', LIST_STOP);
    else if (name === 'dd' || name === 'dt') open.closeOpen(DD_DT, LIST_STOP);
    else if (TABLE_INNER.has(name)) {
      if (!open.has('table')) continue; // the parser drops table parts outside a table
      if (name === 'td' || name === 'th') {
        open.closeOpen(CELLS, ROW_STOP);
        const context = open.nearest(TABLE_CONTEXT);
        if (context === 'table' && push('tbody', 'html', lt)) return best;
        if ((context === 'table' || SECTIONS.has(context)) && push('tr', 'html', lt)) return best;
      } else if (name === 'tr') {
        open.closeOpen('tr', ROW_STOP);
        if (open.nearest(TABLE_CONTEXT) === 'table' && push('tbody', 'html', lt)) return best;
      } else if (SECTIONS.has(name)) open.closeOpen(SECTION_NAMES, TABLE_SCOPE);
      else if (name === 'col' && open.nearest(TABLE_CONTEXT) === 'table' && push('colgroup', 'html', lt)) {
        return best;
      }
    } else if (HEADINGS.has(name)) {
      if (HEADINGS.has(open.top())) open.truncate(open.depth - 1);
    } else if (name === 'option' || name === 'optgroup') {
      if (open.top() === 'option') open.truncate(open.depth - 1);
    }
    if (name === 'a' && open.dropFormatting('a')) open.closeOpen('a', SPECIAL); // `<a>` inside `<a>`
    if (!NO_RECONSTRUCT.has(name) && open.reconstruct() > 0 && reach(open.depth, lt)) return best;
    if (VOID.has(name)) {
      if (reach(open.depth + 1, lt)) return best;
      continue;
    }
    if (name === 'svg' || name === 'math') {
      if (tag.selfClosing ? reach(open.depth + 1, lt) : push(name, name, lt)) return best;
      continue;
    }
    if (RAW_TEXT.has(name)) {
      i = rawTextEnd(html, tag.end, name);
      if (reach(open.depth + 1, lt)) return best;
      continue;
    }
    if (push(name, 'html', lt)) return best;
    if (FORMATTING.has(name)) open.addFormatting(name, html.slice(lt, tag.end).toLowerCase());
    else if (MARKERS.has(name)) open.addMarker();
  }
  if (i < html.length) text(i, html.length);
  return best;
}

/** What an end tag cannot close past: list-item scope for `li`, button scope for `p`, and so on. */
function endTagScope(name: string): ReadonlySet<string> {
  if (!SPECIAL.has(name)) return SPECIAL;
  if (name === 'li') return LIST_ITEM_SCOPE;
  if (name === 'p') return BUTTON_SCOPE;
  return TABLE_PARTS.has(name) ? TABLE_SCOPE : SCOPE;
}

/** Every stop set {@link OpenElements.closeOpen} is asked about. */
const STOP_SETS: readonly ReadonlySet<string>[] = [
  SCOPE,
  BUTTON_SCOPE,
  LIST_ITEM_SCOPE,
  TABLE_SCOPE,
  SPECIAL,
  LIST_STOP,
  ROW_STOP,
];

/**
 * The stack of open elements, with the positions of each name and of each stop set's members kept
 * alongside, so "the nearest open X with no Y above it" is answered in constant time.
 */
class OpenElements {
  private readonly names: string[] = [];
  private readonly spaces: Namespace[] = [];
  /** A number per open element, never reused, so a formatting entry can tell if its element is open. */
  private readonly ids: number[] = [];
  private readonly openIds = new Set<number>();
  private nextId = 0;
  /** The parser's list of active formatting elements: entries (with their tag, for Noah's ark) and markers. */
  private readonly active: { name: string; key: string; id: number }[] = [];
  private readonly at = new Map<string, number[]>();
  private readonly stops = new Map<ReadonlySet<string>, number[]>(STOP_SETS.map((s) => [s, []]));
  private readonly membership = new Map<string, number[][]>();

  get depth(): number {
    return this.names.length;
  }

  top(): string {
    return this.names[this.names.length - 1] ?? '';
  }

  /** True when the current element is SVG or MathML and not an HTML integration point. */
  inForeign(): boolean {
    const ns = this.namespace();
    const top = this.top();
    return ns === 'svg' ? !SVG_INTEGRATION.has(top) : ns === 'math' ? !MATH_INTEGRATION.has(top) : false;
  }

  /** The current element's namespace ('html' when nothing is open). */
  namespace(): Namespace {
    return this.spaces[this.spaces.length - 1] ?? 'html';
  }

  push(name: string, ns: Namespace): void {
    const index = this.names.length;
    this.names.push(name);
    this.spaces.push(ns);
    this.ids.push(this.nextId);
    this.openIds.add(this.nextId++);
    const at = this.at.get(name);
    if (at === undefined) this.at.set(name, [index]);
    else at.push(index);
    for (const list of this.listsOf(name)) list.push(index);
  }

  /** Close every element from `index` up. */
  truncate(index: number): void {
    while (this.names.length > index) {
      const name = this.names.pop()!;
      this.spaces.pop();
      this.openIds.delete(this.ids.pop()!);
      const at = this.at.get(name)!;
      at.pop();
      if (at.length === 0) this.at.delete(name);
      for (const list of this.listsOf(name)) list.pop();
    }
  }

  /** The stop lists `name` belongs to (cached per name: tags repeat). */
  private listsOf(name: string): number[][] {
    let lists = this.membership.get(name);
    if (lists === undefined) {
      lists = [...this.stops].filter(([set]) => set.has(name)).map(([, list]) => list);
      this.membership.set(name, lists);
    }
    return lists;
  }

  /**
   * Record the element just pushed as an active formatting element, `key` its whole start tag. As
   * in the parser (Noah's ark), a fourth entry with the same tag after the last marker drops the
   * earliest.
   */
  addFormatting(name: string, key: string): void {
    let same = 0;
    let earliest = -1;
    for (let k = this.active.length - 1; k >= 0; k--) {
      const e = this.active[k]!;
      if (e.name === '') break;
      if (e.key === key) {
        same++;
        earliest = k;
      }
    }
    if (same >= 3) this.active.splice(earliest, 1);
    this.active.push({ name, key, id: this.ids[this.ids.length - 1]! });
  }

  /** Record a marker for the element just pushed (a cell, caption, object, …). */
  addMarker(): void {
    this.active.push({ name: '', key: '', id: this.ids[this.ids.length - 1]! });
  }

  /** Remove the last active entry named `name` after the last marker; true when there was one. */
  dropFormatting(name: string): boolean {
    for (let k = this.active.length - 1; k >= 0; k--) {
      const e = this.active[k]!;
      if (e.name === '') return false;
      if (e.name === name) {
        this.active.splice(k, 1);
        return true;
      }
    }
    return false;
  }

  /**
   * Re-open the active formatting elements whose elements were closed (the parser's "reconstruct
   * the active formatting elements"), after dropping the entries of markers already closed; returns
   * how many were pushed.
   */
  reconstruct(): number {
    for (let k = this.active.length - 1; k >= 0; k--) {
      const e = this.active[k]!;
      if (e.name !== '') continue;
      if (this.openIds.has(e.id)) break;
      this.active.length = k; // a closed cell: its formatting entries go with it
    }
    let from = this.active.length;
    while (from > 0) {
      const e = this.active[from - 1]!;
      if (e.name === '' || this.openIds.has(e.id)) break;
      from--;
    }
    for (let k = from; k < this.active.length; k++) {
      const e = this.active[k]!;
      this.push(e.name, 'html');
      e.id = this.ids[this.ids.length - 1]!;
    }
    return this.active.length - from;
  }

  /** True when an element named `name` is open with no element of `stop` above it. */
  inScope(name: string, stop: ReadonlySet<string>): boolean {
    const at = this.at.get(name);
    if (at === undefined) return false;
    const list = this.stops.get(stop)!;
    return (list[list.length - 1] ?? -1) <= at[at.length - 1]!;
  }

  /** True when an element named `name` is open. */
  has(name: string): boolean {
    return this.at.has(name);
  }

  /** Which of `names` is open nearest the top ('' when none is). */
  nearest(names: readonly string[]): string {
    let best = '';
    let k = -1;
    for (const n of names) {
      const at = this.at.get(n);
      if (at !== undefined && at[at.length - 1]! > k) {
        k = at[at.length - 1]!;
        best = n;
      }
    }
    return best;
  }

  /**
   * Close back to the nearest open element named `names` when no element of `stop` is above it;
   * true when one was closed.
   */
  /** Close back to the nearest open element named `name`, whatever is above it (false: none open). */
  closeBack(name: string): boolean {
    const at = this.at.get(name);
    const k = at?.[at.length - 1];
    if (k === undefined) return false;
    this.truncate(k);
    return true;
  }

  closeOpen(names: string | readonly string[], stop: ReadonlySet<string>): boolean {
    let k = -1;
    for (const n of typeof names === 'string' ? [names] : names) {
      const at = this.at.get(n);
      if (at !== undefined) k = Math.max(k, at[at.length - 1]!);
    }
    if (k < 0) return false;
    const list = this.stops.get(stop)!;
    if ((list[list.length - 1] ?? -1) > k) return false;
    this.truncate(k);
    return true;
  }
}

/** Past the end of a comment, doctype, other `<!…>` or `<?…>` starting at `lt`. */
function declarationEnd(html: string, lt: number): number {
  if (html.startsWith('<!--', lt)) {
    if (html.startsWith('<!-->', lt)) return lt + 5;
    if (html.startsWith('<!--->', lt)) return lt + 6;
    const re = /--!?>/g;
    re.lastIndex = lt + 4;
    const m = re.exec(html);
    return m === null ? html.length : m.index + m[0].length;
  }
  const close = html.indexOf('>', lt + 2);
  return close < 0 ? html.length : close + 1;
}

/** ASCII letters, then letters, digits, `-`, `_`, `:` and `.` (a tag name). */
function isNameChar(c: number, first: boolean): boolean {
  const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  if (first) return letter;
  return letter || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f || c === 0x3a || c === 0x2e;
}

/**
 * Past the `>` ending a tag whose name ends at `from`. Quoted attribute values may hold `>`; a `/`
 * right before the `>` makes the tag self-closing unless it ends an unquoted value (`href=/`).
 */
function scanTag(html: string, from: number): { end: number; selfClosing: boolean } {
  let quote = 0;
  let state: 'name' | 'equals' | 'value' = 'name';
  for (let k = from; k < html.length; k++) {
    const c = html.charCodeAt(k);
    if (quote !== 0) {
      if (c === quote) quote = 0;
      continue;
    }
    if (c === 0x3e /* > */) {
      return { end: k + 1, selfClosing: state !== 'value' && html.charCodeAt(k - 1) === 0x2f };
    }
    const space = isSpace(c);
    if (state === 'equals') {
      if (c === 0x22 || c === 0x27) {
        quote = c;
        state = 'name';
      } else if (!space) state = 'value';
    } else if (state === 'value') {
      if (space) state = 'name';
    } else if (c === 0x3d /* = */) state = 'equals';
  }
  return { end: html.length, selfClosing: false };
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === LF || c === 0x0c || c === 0x0d;
}

const RAW_END = new Map<string, RegExp>();

/** Past the end tag of raw-text element `name`, searching from `from` (the end of the text when none). */
function rawTextEnd(html: string, from: number, name: string): number {
  let re = RAW_END.get(name);
  if (re === undefined) {
    re = new RegExp(`</${name}[\\s/>]`, 'gi');
    RAW_END.set(name, re);
  }
  re.lastIndex = from;
  const m = re.exec(html);
  if (m === null) return html.length;
  const close = html.indexOf('>', m.index);
  return close < 0 ? html.length : close + 1;
}
