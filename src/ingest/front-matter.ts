/**
 * YAML front matter: the `---` … `---` block at the top of a Markdown file (Jekyll, Hugo, Obsidian,
 * pandoc). Parsed with the `yaml` package (YAML 1.2 core schema), never indexed as text.
 */
import { createRequire } from 'node:module';

/**
 * Longest front matter read, in UTF-16 units between the fences (64 Ki). Real front matter is a
 * few hundred bytes; a "block" longer than this is a document that opens with a thematic break
 * and has another one further down, so it stays body text.
 */
export const MAX_FRONT_MATTER_CHARS = 64 * 1024;

/**
 * Deepest front matter nesting read, as bounded by {@link yamlNestingBound}. `yaml` recurses once
 * per level; measured here (Node 20), about 15,000 levels of `[` or `- ` overflow the stack inside
 * V8's regexp compiler, which kills the process instead of throwing. Real front matter nests two
 * or three levels; 256 leaves room for deeply indented block scalars.
 */
export const MAX_FRONT_MATTER_NESTING = 256;

const require = createRequire(import.meta.url);
/** The yaml package, loaded on the first front matter read: it costs ~50 ms to load, and a search never needs it. */
const yaml = (): typeof import('yaml') => require('yaml') as typeof import('yaml');

/** What {@link parseFrontMatter} splits a Markdown text into. */
export interface FrontMatter {
  /** The top-level fields, JSON-safe; `{}` for no, empty or unreadable front matter. */
  meta: Record<string, unknown>;
  /** The text after the closing fence (the whole text, BOM kept, when there is no front matter). */
  body: string;
}

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*$/;

/**
 * Split YAML front matter off the top of a Markdown text.
 *
 * A block is front matter when the text starts (after an optional BOM) with a `---` line, the next
 * line is not blank (pandoc's rule: `---` then a blank line is a thematic break), and a later line
 * is `---` or `...` (trailing spaces allowed), at most {@link MAX_FRONT_MATTER_CHARS} later. LF and
 * CRLF line endings both work. Anything else is not front matter: `{ meta: {}, body: text }`.
 *
 * Front matter is always cut from the body. Its YAML becomes `meta` when it parses without errors
 * to a mapping: keys as strings, values as JSON (strings, numbers, booleans, null, arrays, objects;
 * dates stay strings, `.inf`/`.nan` become null). A mapping that fails to parse (a syntax error, a
 * duplicate key, an alias bomb, nesting over {@link MAX_FRONT_MATTER_NESTING}) or an empty block
 * gives `meta: {}`: the block is dropped and the file still reads. A block whose YAML is a plain
 * scalar or a list is prose between two thematic breaks, not front matter, and stays in the body.
 *
 * Linear in the text's length; never throws.
 *
 * @example parseFrontMatter('---\ntitle: Bees\ntags: [a, b]\n---\n# Hive\n') // { meta: { title: 'Bees', tags: ['a', 'b'] }, body: '# Hive\n' }
 */
export function parseFrontMatter(text: string): FrontMatter {
  const none = { meta: {}, body: text };
  const opening = OPENING.exec(text);
  if (opening === null) return none;
  const start = opening[0].length;
  let lineStart = start;
  for (;;) {
    if (lineStart - start > MAX_FRONT_MATTER_CHARS) return none;
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    const line = text.slice(lineStart, text[lineEnd - 1] === '\r' ? lineEnd - 1 : lineEnd);
    if (lineStart === start && line.trim() === '') return none;
    if (CLOSING.test(line)) {
      const body = newline < 0 ? '' : text.slice(newline + 1);
      const meta = readYaml(text.slice(start, lineStart));
      return meta === 'not-a-mapping' ? none : { meta, body };
    }
    if (newline < 0) return none;
    lineStart = newline + 1;
  }
}

/** The YAML mapping in `text` as JSON-safe meta, `{}` when it cannot be read, or 'not-a-mapping'. */
function readYaml(text: string): Record<string, unknown> | 'not-a-mapping' {
  if (yamlNestingBound(text) > MAX_FRONT_MATTER_NESTING) return {};
  try {
    const doc = yaml().parseDocument(text, {
      schema: 'core',
      stringKeys: true,
      prettyErrors: false,
      logLevel: 'silent',
    });
    if (doc.errors.length > 0) return {};
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return {};
    if (typeof value !== 'object' || Array.isArray(value)) return 'not-a-mapping';
    return jsonValue(value) as Record<string, unknown>;
  } catch {
    return {}; // an alias bomb (maxAliasCount) or anything else the parser throws
  }
}

/** A copy of a parsed YAML value that survives JSON: non-finite numbers become null. */
function jsonValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map(jsonValue);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonValue(v)]));
  }
  return value;
}

/**
 * An upper bound on how deeply a YAML text nests, from one pass over its characters. Block
 * collections nest either on a later line, indented further (so at most indentation + 1 levels
 * enclose a line), or compactly after a `- `, `? ` or `: ` indicator on the same line; flow
 * collections nest by `[` and `{`. A line counts indentation + 1 + its indicators + the flow
 * brackets open at its end or deeper within it. Over-counts on purpose: brackets and indicators
 * inside quoted strings count too.
 */
export function yamlNestingBound(yaml: string): number {
  let deepest = 0;
  let flow = 0;
  let indent = 0;
  let indicators = 0;
  let lineFlow = 0;
  let atLineStart = true;
  for (let i = 0; i <= yaml.length; i++) {
    const c = yaml[i];
    if (c === '\n' || c === undefined) {
      deepest = Math.max(deepest, indent + 1 + indicators + lineFlow);
      indent = 0;
      indicators = 0;
      lineFlow = flow;
      atLineStart = true;
      continue;
    }
    if (atLineStart && c === ' ') {
      indent++;
      continue;
    }
    atLineStart = false;
    if (c === '[' || c === '{') lineFlow = Math.max(lineFlow, ++flow);
    else if (c === ']' || c === '}') flow = Math.max(0, flow - 1);
    else if (c === '-' || c === '?' || c === ':') {
      const next = yaml[i + 1];
      if (next === undefined || next === ' ' || next === '\t' || next === '\n' || next === '\r') indicators++;
    }
  }
  return deepest;
}
