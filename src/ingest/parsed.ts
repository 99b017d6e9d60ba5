import type { DocKind } from '../types.js';

/**
 * What a reader produces from one source, before ids, hashing and chunking.
 * `sections` is the heading tree in pre-order; `sections[0]` is the root (level 0), titled with the
 * document title and holding any text before the first heading.
 */
export interface ParsedDocument {
  source: string;
  title: string;
  kind: DocKind;
  meta: Record<string, unknown>;
  /** Page count for paged sources (PDF), else null. */
  pages: number | null;
  sections: ParsedSection[];
}

export interface ParsedSection {
  /** 0 for the root, 1..6 for headings. */
  level: number;
  title: string;
  /** The section's own text in order, split where the page changes (page null when unpaged). */
  segments: { page: number | null; text: string }[];
}

export type { BuiltChunk, BuiltDocument, BuiltSection } from '../types.js';
