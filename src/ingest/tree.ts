import type { BuiltSection, ParsedDocument, ParsedSection } from './parsed.js';

/** Joins breadcrumb parts: `Doc › H1 › H2` (U+203A with a space each side). */
export const BREADCRUMB_SEPARATOR = ' › ';
/** Longest breadcrumb kept, in code points; longer ones lose middle parts, then get cut. */
export const MAX_BREADCRUMB_CHARS = 200;
/** Deepest heading level; deeper levels are clamped to it. */
export const MAX_HEADING_LEVEL = 6;

/**
 * Resolve a parsed pre-order heading list into stored sections.
 *
 * - `seq` is the position in pre-order; seq 0 is the root (level 0), titled with the document
 *   title. If `parsed.sections` does not start with a level-0 section, an empty root is added.
 * - `parentSeq` is the nearest earlier section with a smaller level (a jump H1 → H3 parents the
 *   H3 under the H1); levels are clamped to 1..6 below the root.
 * - `breadcrumb` is the ancestor titles and the own title joined by {@link BREADCRUMB_SEPARATOR},
 *   shortened by {@link shortenBreadcrumb} to {@link MAX_BREADCRUMB_CHARS}.
 * - `text` is the non-blank segments, trimmed, joined with a blank line; `pageStart`/`pageEnd` are
 *   the min/max non-null page of the non-blank segments (of all segments when all are blank).
 *
 * Empty sections stay (they carry breadcrumbs for their children) and produce no chunks.
 */
export function buildSections(parsed: ParsedDocument): BuiltSection[] {
  const input: ParsedSection[] =
    parsed.sections[0]?.level === 0
      ? parsed.sections
      : [{ level: 0, title: parsed.title, segments: [] }, ...parsed.sections];

  const out: BuiltSection[] = [];
  // Stack of [seq, level, titlePath] for the open ancestors.
  const stack: { seq: number; level: number; path: string[] }[] = [];
  input.forEach((section, seq) => {
    const isRoot = seq === 0;
    const level = isRoot ? 0 : Math.min(MAX_HEADING_LEVEL, Math.max(1, Math.trunc(section.level)));
    const title = cleanTitle(isRoot ? parsed.title : section.title);
    while (stack.length > 0 && (stack[stack.length - 1]?.level ?? -1) >= level) stack.pop();
    const parent = stack[stack.length - 1];
    const path = parent === undefined ? [title] : [...parent.path, title];
    stack.push({ seq, level, path });

    const withText = section.segments.filter((s) => s.text.trim().length > 0);
    const pages = (withText.length > 0 ? withText : section.segments)
      .map((s) => s.page)
      .filter((p): p is number => p !== null);
    out.push({
      seq,
      parentSeq: parent?.seq ?? null,
      level,
      title,
      breadcrumb: shortenBreadcrumb(path),
      pageStart: pages.length > 0 ? Math.min(...pages) : null,
      pageEnd: pages.length > 0 ? Math.max(...pages) : null,
      text: withText.map((s) => s.text.trim()).join('\n\n'),
    });
  });
  return out;
}

/**
 * Join title parts into a breadcrumb of at most `max` code points: drop middle parts (replaced by
 * one `…`) while too long, keeping the first and the last; if the first and last alone are still
 * too long, cut the string and end it with `…`. `[]` → `''`.
 */
export function shortenBreadcrumb(parts: string[], max: number = MAX_BREADCRUMB_CHARS): string {
  const full = parts.join(BREADCRUMB_SEPARATOR);
  if ([...full].length <= max) return full;
  const middle = parts.slice(1, -1);
  while (middle.length > 0) {
    middle.shift();
    const candidate = [parts[0] ?? '', '…', ...middle, parts[parts.length - 1] ?? ''].join(
      BREADCRUMB_SEPARATOR,
    );
    if ([...candidate].length <= max) return candidate;
  }
  const points = [...full];
  return points.slice(0, Math.max(0, max - 1)).join('') + '…';
}

/** Collapse whitespace runs in a heading title to single spaces and trim. */
function cleanTitle(title: string): string {
  return title.replace(/\s+/g, ' ').trim();
}
