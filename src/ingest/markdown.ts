import { Lexer, type Token, type Tokens } from 'marked';
import type { ParsedDocument, ParsedSection } from './parsed.js';
import { parseFrontMatter } from './front-matter.js';
import { assertNesting } from './nesting.js';
import { decodeText, squash, titleFromSource, type ReaderInput } from './_shared.js';

/**
 * Read Markdown into a heading tree using the `marked` lexer (a real CommonMark/GFM parser: a `#`
 * line inside a fenced code block is not a heading, setext headings are).
 *
 * - YAML front matter (`---` … `---` at the very start, see {@link parseFrontMatter}) is cut from the
 *   body and never indexed; its fields become `meta`. Unreadable front matter is dropped too, with
 *   `meta: {}`; the file still reads.
 * - Title: `input.title`, else the front matter's `title` (a non-blank string, whitespace squashed),
 *   else the first H1 when the document starts with one, else the file name without extension.
 * - A leading H1 becomes the root section (its text the root's text) unless the front matter's title
 *   won and differs from it (ignoring case and spacing): then it stays a level-1 section under a
 *   root named by the front matter, so its heading is still indexed.
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
  const firstH1 = first?.type === 'heading' && first.depth === 1 ? (first as Tokens.Heading) : undefined;
  const h1Title = firstH1 === undefined ? undefined : headingText(firstH1);
  const fmTitle = frontMatterTitle(meta);
  const title = titleOverride ?? fmTitle ?? h1Title ?? titleFromSource(origin);
  // The leading H1 is the root, unless the front matter named the document something else.
  const renamed =
    titleOverride === undefined && fmTitle !== undefined && fmTitle.toLowerCase() !== h1Title?.toLowerCase();
  const leadingH1 = renamed ? undefined : firstH1;

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

/** The front matter's `title`, whitespace squashed, when it is a non-blank string. */
function frontMatterTitle(meta: Record<string, unknown>): string | undefined {
  const title = meta['title'];
  if (typeof title !== 'string') return undefined;
  const squashed = squash(title);
  return squashed === '' ? undefined : squashed;
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
