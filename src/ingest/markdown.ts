import { Lexer, type Token, type Tokens } from 'marked';
import type { ParsedDocument, ParsedSection } from './parsed.js';
import { assertNesting } from './nesting.js';
import { decodeText, squash, titleFromSource, type ReaderInput } from './_shared.js';

/**
 * Read Markdown into a heading tree using the `marked` lexer (a real CommonMark/GFM parser: a `#`
 * line inside a fenced code block is not a heading, setext headings are).
 *
 * - Front matter (`---` … `---` at the very start) goes to `meta` (see {@link parseFrontMatter})
 *   and is not indexed.
 * - Title: `input.title`, else the first H1 when the document starts with one (that H1 then becomes
 *   the root section, its text the root's text), else `title` from the front matter, else the file
 *   name without extension.
 * - Section text is the Markdown source of the blocks under the heading, trimmed and joined with blank
 *   lines: code fences kept as written, `[text](url)` and `![alt](url)` reduced to `text` / `alt`,
 *   HTML tags and link definitions dropped.
 * - A file nesting deeper than `MAX_MARKDOWN_NESTING` (`>` markers plus list levels, see
 *   `markdownNestingDepth`) → `QuiverError('CORRUPT_FILE')` before marked sees it.
 */
export async function readMarkdown(input: ReaderInput): Promise<ParsedDocument> {
  return parseMarkdown(decodeText(input.bytes), input.source, input.title);
}

/** {@link readMarkdown} on a decoded string (synchronous; used by notes too). */
export function parseMarkdown(source: string, origin: string, titleOverride?: string): ParsedDocument {
  assertNesting(source, 'Markdown', origin);
  const { meta, body } = parseFrontMatter(source);
  const tokens = Lexer.lex(body, { gfm: true });

  const first = tokens.find((t) => !isIgnorable(t));
  const leadingH1 = first?.type === 'heading' && (first as Tokens.Heading).depth === 1 ? first : undefined;
  const metaTitle =
    typeof meta['title'] === 'string' && meta['title'].trim().length > 0 ? meta['title'] : undefined;
  const title =
    titleOverride ??
    (leadingH1 !== undefined ? headingText(leadingH1 as Tokens.Heading) : undefined) ??
    metaTitle ??
    titleFromSource(origin);

  const sections: ParsedSection[] = [];
  let current: ParsedSection = { level: 0, title, segments: [] };
  let blocks: string[] = [];
  const flush = (): void => {
    current.segments = [{ page: null, text: blocks.join('\n\n') }];
    sections.push(current);
    blocks = [];
  };
  for (const token of tokens) {
    if (token === leadingH1) continue; // it is the root
    if (token.type === 'heading') {
      flush();
      const heading = token as Tokens.Heading;
      current = { level: heading.depth, title: headingText(heading), segments: [] };
      continue;
    }
    const text = blockText(token);
    if (text.length > 0) blocks.push(text);
  }
  flush();
  return { source: origin, title, kind: 'md', meta, pages: null, sections };
}

/** Tokens that carry no text of their own. */
function isIgnorable(t: Token): boolean {
  return t.type === 'space' || t.type === 'def' || (t.type === 'html' && blockText(t).length === 0);
}

/** Readable text of one block token ('' for none). */
function blockText(t: Token): string {
  switch (t.type) {
    case 'space':
    case 'def':
    case 'hr':
      return '';
    case 'code':
      return t.raw.trim();
    case 'html':
      return stripTags(t.raw).trim();
    default:
      return reduceLinks(t.raw).trim();
  }
}

/** A heading's plain text: inline markup removed, whitespace squashed. */
function headingText(h: Tokens.Heading): string {
  return squash(inlineText(h.tokens));
}

function inlineText(tokens: Token[] | undefined): string {
  if (tokens === undefined) return '';
  let out = '';
  for (const t of tokens) {
    if (t.type === 'html') continue;
    if (t.type === 'br') out += ' ';
    else if ('tokens' in t && Array.isArray(t.tokens) && t.tokens.length > 0) out += inlineText(t.tokens);
    else if ('text' in t && typeof t.text === 'string') out += decodeEntities(t.text);
  }
  return out;
}

const IMAGE_OR_LINK = /!?\[([^\]\n]*)\]\((?:[^()\n]|\([^()\n]*\))*\)/g;
const REFERENCE_LINK = /!?\[([^\]\n]+)\]\[[^\]\n]*\]/g;

/** `[text](url)` → `text`, `![alt](url)` → `alt`, `[text][ref]` → `text`; linear-time patterns. */
export function reduceLinks(markdown: string): string {
  if (markdown.indexOf('](') < 0 && markdown.indexOf('][') < 0) return markdown;
  return markdown.replace(IMAGE_OR_LINK, '$1').replace(REFERENCE_LINK, '$1');
}

function stripTags(html: string): string {
  return decodeEntities(html.replace(/<!--[\s\S]*?-->/g, '').replace(/<[^>\n]*>/g, ''));
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  '#39': "'",
  apos: "'",
  nbsp: ' ',
};

function decodeEntities(text: string): string {
  if (text.indexOf('&') < 0) return text;
  return text.replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_m, name: string) => ENTITIES[name] ?? '');
}

/**
 * Split YAML-ish front matter off the top of a Markdown file.
 *
 * Recognised only when the text starts with a `---` line and a later line is `---` or `...`.
 * Each `key: value` line becomes a meta entry: quotes stripped, `true`/`false` → booleans, plain
 * numbers → numbers, `[a, b]` → a string array; `- item` lines under a key with an empty value
 * collect into an array. Other lines are ignored. No front matter → `{ meta: {}, body: text }`.
 */
export function parseFrontMatter(text: string): { meta: Record<string, unknown>; body: string } {
  if (!text.startsWith('---\n') && !text.startsWith('---\r\n') && text !== '---')
    return { meta: {}, body: text };
  const lines = text.split('\n');
  let end = -1;
  for (let i = 1; i < lines.length; i++) {
    const line = (lines[i] ?? '').trimEnd();
    if (line === '---' || line === '...') {
      end = i;
      break;
    }
  }
  if (end < 0) return { meta: {}, body: text };
  const meta: Record<string, unknown> = {};
  let listKey: string | undefined;
  for (const raw of lines.slice(1, end)) {
    const line = raw.trimEnd();
    const item = /^\s+-\s+(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item !== null && listKey !== undefined) {
      const list = meta[listKey];
      if (Array.isArray(list)) list.push(scalar(item[1] ?? ''));
      continue;
    }
    const kv = /^([A-Za-z0-9_][\w .-]*?)\s*:\s*(.*)$/.exec(line);
    if (kv === null) continue;
    const key = kv[1] ?? '';
    const value = kv[2] ?? '';
    if (value === '') {
      meta[key] = [];
      listKey = key;
    } else {
      meta[key] = value.startsWith('[') && value.endsWith(']') ? splitList(value) : scalar(value);
      listKey = undefined;
    }
  }
  // Empty lists that never got items were plain empty values.
  for (const [k, v] of Object.entries(meta)) if (Array.isArray(v) && v.length === 0) meta[k] = '';
  return { meta, body: lines.slice(end + 1).join('\n') };
}

function splitList(value: string): unknown[] {
  const inner = value.slice(1, -1).trim();
  return inner === '' ? [] : inner.split(',').map((s) => scalar(s.trim()));
}

function scalar(value: string): unknown {
  const v = value.trim();
  if (
    (v.startsWith('"') && v.endsWith('"') && v.length >= 2) ||
    (v.startsWith("'") && v.endsWith("'") && v.length >= 2)
  ) {
    return v.slice(1, -1);
  }
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (/^-?\d+(?:\.\d+)?$/.test(v)) return Number(v);
  return v;
}
