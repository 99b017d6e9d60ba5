/**
 * Shared domain types: documents, sections, chunks, hits. Options types live beside their functions.
 */

/** What a document was read from. */
export type DocKind = 'md' | 'html' | 'pdf' | 'txt' | 'note' | 'jsonl' | 'code';

/** One source (file, page, note, JSONL record) as stored. */
export interface DocumentRecord {
  /** Stable 16-hex hash of the source identity: the same source always gets the same id. */
  id: string;
  /** Where it came from: a path relative to the ingest root, a JSONL id, or `text:<hash>`. */
  source: string;
  title: string;
  kind: DocKind;
  meta: Record<string, unknown>;
  /** SHA-256 (hex) of the extracted text and title: decides no-op vs update on re-ingest. */
  contentHash: string;
  /** Page count for paged sources (PDF), else null. */
  pages: number | null;
  /** ISO-8601 UTC of the first ingest of this id. */
  addedAt: string;
  /** ISO-8601 UTC of the write that produced this version. */
  updatedAt: string;
  /** The batch that wrote this version. */
  batchId: string;
  /** Language of the document's text (src/text/language.ts), or null when written by an earlier release. */
  lang: string | null;
}

/** A node of a document's heading tree; what an answer cites. */
export interface SectionRecord {
  /** `<doc_id>#<seq>`, seq = position in the pre-order list; `#0` is the root titled with the document title. */
  id: string;
  docId: string;
  parentId: string | null;
  seq: number;
  /** 0 for the root, 1.. for headings (capped at 6). */
  level: number;
  title: string;
  /** `Doc › H1 › H2`. */
  breadcrumb: string;
  pageStart: number | null;
  pageEnd: number | null;
  /** The section's own text (children are separate sections). */
  text: string;
  /** The language its words are analysed in (src/text/language.ts), or null (an earlier release: English's road). */
  lang: string | null;
}

/** A piece of a section's text, about 512 characters, the unit of both search legs. */
export interface ChunkRecord {
  /** Store-assigned integer id. */
  id: number;
  docId: string;
  sectionId: string;
  /** Position within its section, 0-based. */
  ord: number;
  text: string;
  page: number | null;
}

/** Lexical query modes: OR of content terms, AND of terms, or an exact phrase. */
export type QueryMode = 'any' | 'all' | 'phrase';

/** Filters applied inside both retrieval legs (never as a post-filter). */
export interface SearchFilter {
  kinds?: DocKind[];
  docIds?: string[];
  sourcePrefix?: string;
  /** ISO timestamps bounding `addedAt`, inclusive. */
  addedAfter?: string;
  addedBefore?: string;
  /** Include documents a person marked as noise (default false). */
  includeNoisy?: boolean;
}

/** A chunk returned by one retrieval leg, best first. */
export interface ChunkHit {
  chunkId: number;
  docId: string;
  sectionId: string;
  /** Leg-specific score, higher is better (BM25 negated for lexical, cosine for vector). */
  score: number;
}

/** An ingest run. */
export interface BatchRecord {
  id: string;
  startedAt: string;
  finishedAt: string | null;
  /**
   * 'running' while its process writes it; 'interrupted' when that process stopped before the end
   * (a signal, a crash: what it wrote is kept, whole documents only, and `undo` removes it).
   */
  status: 'running' | 'done' | 'interrupted' | 'rolled_back';
  label: string;
  /** The process that ran it (null for batches written before quiver recorded it). */
  owner: { pid: number; host: string } | null;
  added: number;
  updated: number;
  unchanged: number;
  /** Documents it took out of the vault (`quiver rm`, `add --sync`). */
  removed: number;
  failed: number;
  errors: { source: string; code: string; message: string }[];
}

// --- what ingest hands the store (built by ingest/build.ts, written by a Store) ---------------

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
