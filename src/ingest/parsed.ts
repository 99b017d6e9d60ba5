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

/** A section ready to store: tree position resolved. */
export interface BuiltSection {
  seq: number;
  parentSeq: number | null;
  level: number;
  title: string;
  breadcrumb: string;
  pageStart: number | null;
  pageEnd: number | null;
  text: string;
  /** The language the section's words are analysed in (src/text/language.ts); absent: English's road. */
  lang?: string;
}

/** A chunk ready to store, pointing at its section by seq. */
export interface BuiltChunk {
  sectionSeq: number;
  ord: number;
  text: string;
  page: number | null;
}

/** A document ready to write: `buildDocument(parsed)` output. */
export interface BuiltDocument {
  id: string;
  source: string;
  title: string;
  kind: DocKind;
  meta: Record<string, unknown>;
  pages: number | null;
  contentHash: string;
  /** The document's language (of its first thousand characters); absent: not detected. */
  lang?: string;
  sections: BuiltSection[];
  chunks: BuiltChunk[];
}
