import type { SectionHit } from '../../index.js';

/** `notes.md`, `paper.pdf, p. 3` or `paper.pdf, pp. 1–3`. */
export function whereLabel(h: Pick<SectionHit, 'source' | 'pages'>): string {
  if (h.pages === null) return h.source;
  const [a, b] = h.pages;
  return `${h.source}, ${a === b ? `p. ${a}` : `pp. ${a}–${b}`}`;
}
