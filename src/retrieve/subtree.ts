import type { SectionRecord } from '../types.js';

/**
 * A section's subtree as one text: its own text, then each descendant (in document order, the
 * order of `all`) as a Markdown heading of its level (clamped to 1–6) and its text; blank parts are
 * left out. `children` are the direct children's ids. A descendant is a section whose parent chain
 * reaches `section` through sections that appear earlier in `all` (parents precede children in
 * document order); a section not in `all` still yields its own text.
 */
export function subtree(
  section: SectionRecord,
  all: readonly SectionRecord[],
): { children: string[]; text: string } {
  const inTree = new Set([section.id]);
  const parts: string[] = [section.text];
  const children: string[] = [];
  for (const s of all) {
    if (s.parentId !== null && inTree.has(s.parentId)) {
      inTree.add(s.id);
      if (s.parentId === section.id) children.push(s.id);
      parts.push(`${'#'.repeat(Math.min(6, Math.max(1, s.level)))} ${s.title}\n\n${s.text}`);
    }
  }
  return { children, text: parts.filter((p) => p.trim() !== '').join('\n\n') };
}
