import { chunkText } from './chunk.js';
import { MAX_HEADING_LEVEL } from './tree.js';
import type { ParsedDocument, ParsedSection } from './parsed.js';

/**
 * Longest own text a section keeps, in code points. A section is what the lexical leg ranks and
 * what an answer cites, so a whole 80-page PDF or a 50 KB heading-less note must not be one
 * section: BM25 would bury it and a citation would point nowhere in particular.
 */
export const DEFAULT_MAX_SECTION_CHARS = 4000;

const length = (s: ParsedSection): number => s.segments.reduce((n, g) => n + [...g.text].length, 0);

/**
 * Split sections whose own text is longer than `maxChars` into child sections, inserted right
 * after the parent in pre-order (the parent keeps its title, loses its own text):
 * - paged text (PDF) is grouped by whole pages, titled `Page 3` or `Pages 3–5`;
 * - unpaged text is cut at paragraph/line/sentence boundaries (the chunker with a large target),
 *   titled `Part 2 of 5`.
 * A single page longer than `maxChars` becomes several parts of that page. Sections under the
 * limit, and documents without any, come back unchanged (the same object).
 */
export function splitLargeSections(
  parsed: ParsedDocument,
  maxChars: number = DEFAULT_MAX_SECTION_CHARS,
): ParsedDocument {
  if (!parsed.sections.some((s) => length(s) > maxChars)) return parsed;
  const out: ParsedSection[] = [];
  for (const s of parsed.sections) {
    if (length(s) <= maxChars) {
      out.push(s);
      continue;
    }
    const level = Math.min(MAX_HEADING_LEVEL, s.level + 1);
    out.push({ ...s, segments: [] });
    const paged = s.segments.some((g) => g.page !== null);
    if (paged) {
      let group: { page: number | null; text: string }[] = [];
      let size = 0;
      const flush = (): void => {
        if (group.length === 0) return;
        const pages = group.map((g) => g.page).filter((p): p is number => p !== null);
        const lo = Math.min(...pages);
        const hi = Math.max(...pages);
        const title = lo === hi ? `Page ${lo}` : `Pages ${lo}–${hi}`;
        const groupLen = group.reduce((n, g) => n + [...g.text].length, 0);
        if (groupLen <= maxChars) out.push({ level, title, segments: group });
        else {
          const parts = chunkText(group.map((g) => g.text).join('\n\n'), { target: maxChars });
          parts.forEach((text, i) =>
            out.push({
              level,
              title: `${title} (part ${i + 1} of ${parts.length})`,
              segments: [{ page: group[0]!.page, text }],
            }),
          );
        }
        group = [];
        size = 0;
      };
      for (const g of s.segments) {
        const n = [...g.text].length;
        if (group.length > 0 && size + n > maxChars) flush();
        group.push(g);
        size += n;
      }
      flush();
    } else {
      const parts = chunkText(s.segments.map((g) => g.text).join('\n\n'), { target: maxChars });
      parts.forEach((text, i) =>
        out.push({ level, title: `Part ${i + 1} of ${parts.length}`, segments: [{ page: null, text }] }),
      );
    }
  }
  return { ...parsed, sections: out };
}
