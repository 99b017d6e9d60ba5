/**
 * Markdown → plain text for the terminal (search snippets, section text, answers), read with
 * marked's lexer (CommonMark + GFM), so a `**` inside a code span or a `#` inside a fence is left
 * alone.
 *
 * Rules, per token:
 * - emphasis, strong and strikethrough: markers removed, text kept;
 * - links: their text (`[x](u)` → `x`); autolinks (`<http://a>`, bare `http://a`, `www.a`, emails)
 *   keep the URL as written; images: their alt text; link reference definitions dropped;
 * - headings, paragraphs, table rows and list items each start a line; list markers (`-`, `*`, `+`,
 *   `1.`) and task boxes (`[ ]`, `[x]`) removed; `#`, `>` and table pipes removed, table cells joined
 *   with ` | `; thematic breaks dropped;
 * - inline code and code blocks: their code as written, without backticks or fences, indentation
 *   kept, entities not decoded;
 * - HTML: tags and comments dropped (script and style with their content), text kept; `<br>` and
 *   block tags (`<p>`, `<div>`, `<li>`, `<tr>`, …) break the line;
 * - entities decoded outside code: numeric ones and the common named ones (`&amp;` → `&`, `&nbsp;`,
 *   `&mdash;`, …); an unknown name stays as written. Backslash escapes resolve to their character.
 *
 * Whitespace: one line per block (paragraph, heading, list item, table row, quoted paragraph) and no
 * blank lines between blocks; within a block, soft line breaks become spaces, hard ones (`  ⏎`,
 * `\⏎`, `<br>`) stay line breaks, runs of whitespace become one space and lines are trimmed. Code
 * blocks keep their lines and indentation (trailing spaces dropped, at most one blank line in a
 * row). Blank lines at either end are dropped.
 *
 * Snippets cut from the middle of a document are read as fragments:
 * - a `**` (or longer `*` run), `~~` or backtick run that the parser left as literal text is
 *   dropped when its two sides differ in kind (space or edge / letter or digit / punctuation):
 *   `**Yield: 36` → `Yield: 36`, `albedo** rose` → `albedo rose`, `` `npm ci `` → `npm ci`;
 *   `2**3`, `a ** b` and an escaped `\*\*` are kept. Runs of `_` and single `*` are always kept
 *   (`__dirname`, `snake_case`, footnote marks);
 * - a half link at either end: `see [the guide](http://x` → `see the guide`, and
 *   `guide](http://x) and more` → `guide and more`; a reference link whose definition was cut off,
 *   `[see this][1]`, → `see this`. Citations stay: `[1]`, `[1][2]` (labels of digits only) and a lone
 *   `[x]` are kept.
 *
 * Never throws: on any internal failure (a stack overflow on absurd nesting, say) the input comes
 * back unchanged.
 *
 * Not idempotent in general. A second pass joins the lines of the first (one line per block reads
 * back as one paragraph with soft breaks), and escapes, code and entities can produce Markdown
 * (`\*\*a\*\*` → `**a**`, `` `# x` `` → `# x`, `&amp;lt;` → `&lt;`) that a second pass reads
 * again. On text built from words, emphasis, links, headings, lists, quotes and tables it is
 * idempotent up to line breaks, and exactly so when the result is one line.
 */
import { collapseWhitespace } from './whitespace.js';
import { createRequire } from 'node:module';
import type { Token, Tokens } from 'marked';

// marked is loaded on first use (Node ≥ 20.19 requires ES modules): a snippet without Markdown
// syntax, the common case on a terminal, never loads the parser.
const require = createRequire(import.meta.url);
let lexer: typeof import('marked').Lexer | undefined;
const Lexer = (): typeof import('marked').Lexer =>
  (lexer ??= (require('marked') as typeof import('marked')).Lexer);

/** Characters that may start Markdown syntax inside a line; text without them is already plain. */
const INLINE_SYNTAX = /[*_`~[\]<&\\]/;

/**
 * Plain text of a Markdown document or snippet; see the rules at the top of this file.
 *
 * @example markdownToPlain('- **Yield:** 36 g\n- see [the guide](http://x)') // 'Yield: 36 g\nsee the guide'
 */
export function markdownToPlain(md: string): string {
  try {
    return tidy(blocks(Lexer().lex(repairCutLinks(md), { gfm: true })));
  } catch {
    return md;
  }
}

/** A line's block marker: heading `#`s, quote `>`, list bullet or number, task box. */
const LINE_MARKER = /^\s{0,3}(?:#{1,6}\s+|(?:>\s?)+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)/;

/**
 * One line of plain text for a search snippet, a fragment cut from a section: each source line's
 * block marker (`#`, `>`, a list bullet or number) dropped by `LINE_MARKER`, the rest read as inline
 * Markdown only, the lines joined with ` · `. Cheaper than `markdownToPlain` on a cold start (the
 * inline lexer alone), and a snippet has no block structure worth keeping. Edge cases as for
 * `markdownToPlain`; a table row keeps its pipes as ` | `; never throws.
 *
 * @example snippetToPlain('- **Yield:** 36 g\n- two') // 'Yield: 36 g · two'
 */
export function snippetToPlain(md: string): string {
  try {
    const text = md.indexOf('[') < 0 && md.indexOf(']') < 0 ? md : repairCutLinks(md);
    if (text.indexOf('\n') < 0) return plainLine(text);
    return text
      .split('\n')
      .map(plainLine)
      .filter((line) => line !== '')
      .join(' · ');
  } catch {
    return md;
  }
}

/** One line of a snippet as plain text: its block marker dropped, inline Markdown read; '' for a table rule. */
function plainLine(line: string): string {
  const body = line.replace(LINE_MARKER, '');
  if (TABLE_RULE.test(body)) return '';
  return collapseWhitespace(INLINE_SYNTAX.test(body) ? inline(Lexer().lexInline(body)) : body).trim();
}

const TABLE_RULE = /^\s*\|?\s*:?-{3,}/;

// --- blocks -----------------------------------------------------------------------------------

/** Each block's text on its own line(s), no blank line between blocks. */
function blocks(tokens: Token[]): string {
  const parts: string[] = [];
  for (const t of tokens) {
    const text = block(t);
    if (text !== '') parts.push(text);
  }
  return parts.join('\n');
}

function block(t: Token): string {
  switch (t.type) {
    case 'space':
    case 'def':
    case 'hr':
      return '';
    case 'code':
      return (t as Tokens.Code).text
        .split('\n')
        .map((line) => line.trimEnd())
        .join('\n');
    case 'blockquote':
      return blocks((t as Tokens.Blockquote).tokens);
    case 'list':
      return blocks((t as Tokens.List).items);
    case 'list_item':
      return blocks((t as Tokens.ListItem).tokens);
    case 'table': {
      const table = t as Tokens.Table;
      return [table.header, ...table.rows]
        .map((row) => row.map((cell) => lines(inline(cell.tokens)).replace(/\n/g, ' ')).join(' | '))
        .join('\n');
    }
    case 'html':
      return lines(htmlText((t as Tokens.HTML).text));
    default:
      // heading, paragraph, a tight list item's text, and any extension token
      return lines(childrenOrText(t));
  }
}

/** A block's lines (split at `\n`, i.e. hard breaks) with whitespace collapsed, blank ones dropped. */
function lines(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

/** No whitespace-only lines, at most one blank line in a row (code), none at either end. */
function tidy(text: string): string {
  return text
    .replace(/[^\S\n]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\n+$/g, '');
}

// --- inlines ----------------------------------------------------------------------------------

function inline(tokens: Token[]): string {
  let out = '';
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.type === 'text' && !Array.isArray(t.tokens)) {
      // What sits right outside this text in the source, for telling stray markers apart.
      const before = tokens[i - 1]?.raw.at(-1);
      const after = tokens[i + 1]?.raw[0];
      out += inlineText((t as Tokens.Text).text, before, after);
    } else {
      out += inlineToken(t);
    }
  }
  return out;
}

function inlineToken(t: Token): string {
  switch (t.type) {
    case 'escape':
      return (t as Tokens.Escape).text;
    case 'codespan':
      return (t as Tokens.Codespan).text.replace(/\n/g, ' ');
    case 'br':
      return '\n';
    case 'checkbox':
      return '';
    case 'html':
      return /^<br\s*\/?>$/i.test((t as Tokens.Tag).text) ? '\n' : '';
    case 'link': {
      const link = t as Tokens.Link;
      return link.autolink === true ? link.text : inline(link.tokens);
    }
    default:
      // strong, em, del, image, text with children, and any extension token
      return childrenOrText(t);
  }
}

/** The inline text of a token by its children, else by its own `text` ('' for neither). */
function childrenOrText(t: Token): string {
  if ('tokens' in t && Array.isArray(t.tokens)) return inline(t.tokens);
  return 'text' in t && typeof t.text === 'string' ? inlineText(t.text) : '';
}

/**
 * Literal text the parser left: stray markers and orphan reference links reduced, entities
 * decoded, soft line breaks as spaces.
 */
function inlineText(text: string, before?: string, after?: string): string {
  return decodeEntities(reduceOrphanReferences(dropStrayMarkers(text, before, after))).replace(/\n/g, ' ');
}

const STRAY_MARKER = /\*{2,}|~{2,}|`+/g;

/**
 * Drop `**`+, `~~`+ and backtick runs whose two neighbours differ in kind (see the top comment).
 * `before`/`after` are the source characters just outside `text` (undefined at an edge).
 */
function dropStrayMarkers(text: string, before?: string, after?: string): string {
  if (text.indexOf('*') < 0 && text.indexOf('~') < 0 && text.indexOf('`') < 0) return text;
  return text.replace(STRAY_MARKER, (run: string, at: number) => {
    const left = at > 0 ? text[at - 1] : before;
    const right = at + run.length < text.length ? text[at + run.length] : after;
    return kind(left) === kind(right) ? run : '';
  });
}

function kind(c: string | undefined): 'space' | 'word' | 'punct' {
  if (c === undefined || /\s/.test(c)) return 'space';
  return /[\p{L}\p{N}]/u.test(c) ? 'word' : 'punct';
}

const ORPHAN_REFERENCE = /\[([^[\]\n]+)\]\[[^[\]\n]*\]/g;

/** `[text][ref]` left literal (its definition is not in the snippet) → `text`; `[1][2]` stays. */
function reduceOrphanReferences(text: string): string {
  if (text.indexOf('][') < 0) return text;
  return text.replace(ORPHAN_REFERENCE, (whole: string, label: string) =>
    /^[\d\s,;-]+$/.test(label) ? whole : label,
  );
}

// --- fragments cut at the edges ---------------------------------------------------------------

const CUT_LINK_HEAD = /^([^[\]\n]*)\]\([^()\s]*\)/;
const CUT_LINK_TAIL = /^\[([^[\]\n]*)\]\([^()\s]*$/;

/**
 * `label](url)` at the very start and `[label](url` (or `![alt](url`) at the very end → the label.
 * Anchored patterns over one line, so linear. A `](` in code at an edge is rewritten too (rare).
 */
function repairCutLinks(md: string): string {
  let text = md.replace(CUT_LINK_HEAD, '$1');
  const open = text.lastIndexOf('[');
  if (open >= 0) {
    const tail = CUT_LINK_TAIL.exec(text.slice(open));
    if (tail !== null) text = text.slice(0, text[open - 1] === '!' ? open - 1 : open) + tail[1];
  }
  return text;
}

// --- HTML and entities ------------------------------------------------------------------------

const BLOCK_TAG =
  /<\/?(?:address|article|aside|blockquote|br|dd|div|dl|dt|figcaption|figure|footer|h[1-6]|header|hr|li|main|nav|ol|p|pre|section|table|tbody|td|tfoot|th|thead|tr|ul)\b[^<>]*>/gi;

/** An HTML block's text: comments, script and style dropped, block tags as line breaks, other tags dropped. */
function htmlText(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?(?:-->|$)/g, '')
    .replace(/<(script|style)\b[\s\S]*?(?:<\/\1\s*>|$)/gi, '')
    .replace(BLOCK_TAG, '\n')
    .replace(/<[^<>]*>/g, '');
  return decodeEntities(text);
}

const NAMED_ENTITIES = new Map<string, string>(
  Object.entries({
    amp: '&',
    lt: '<',
    gt: '>',
    quot: '"',
    apos: "'",
    nbsp: '\u00a0',
    ensp: '\u2002',
    emsp: '\u2003',
    thinsp: '\u2009',
    ndash: '–',
    mdash: '—',
    hellip: '…',
    lsquo: '‘',
    rsquo: '’',
    sbquo: '‚',
    ldquo: '“',
    rdquo: '”',
    bdquo: '„',
    laquo: '«',
    raquo: '»',
    bull: '•',
    middot: '·',
    copy: '©',
    reg: '®',
    trade: '™',
    deg: '°',
    plusmn: '±',
    times: '×',
    divide: '÷',
    micro: 'µ',
    para: '¶',
    sect: '§',
    euro: '€',
    pound: '£',
    yen: '¥',
    cent: '¢',
    frac12: '½',
    frac14: '¼',
    frac34: '¾',
    larr: '←',
    rarr: '→',
    uarr: '↑',
    darr: '↓',
  }),
);

const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/g;

/** Numeric and common named character references → characters, in one pass (`&amp;lt;` → `&lt;`). */
function decodeEntities(text: string): string {
  if (text.indexOf('&') < 0) return text;
  return text.replace(ENTITY, (whole, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED_ENTITIES.get(name) ?? whole;
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? '', 16);
    const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
    return valid ? String.fromCodePoint(code) : '\uFFFD';
  });
}
