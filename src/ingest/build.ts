import { createHash } from 'node:crypto';
import { chunkText, DEFAULT_CHUNK_CHARS, DEFAULT_MIN_CHUNK_CHARS } from './chunk.js';
import type { BuiltChunk, BuiltDocument, ParsedDocument } from './parsed.js';
import { DEFAULT_MAX_SECTION_CHARS, splitLargeSections } from './split-sections.js';
import { buildSections } from './tree.js';
import { documentLanguages } from '../text/language.js';

export interface BuildOptions {
  /** Chunk target in code points. Defaults to {@link DEFAULT_CHUNK_CHARS}. */
  chunkTarget?: number;
  /** Chunks under this many code points merge into the previous one. Defaults to {@link DEFAULT_MIN_CHUNK_CHARS}. */
  chunkMinChars?: number;
  /** Sections with more own text are split into pages/parts. Defaults to {@link DEFAULT_MAX_SECTION_CHARS}. */
  maxSectionChars?: number;
}

/**
 * The stable identity of a source: the first 16 hex digits of SHA-256(source, UTF-8).
 * The same source always gets the same id, whatever its content.
 *
 * @example documentId('notes/coffee.md') // 16 lowercase hex digits
 */
export function documentId(source: string): string {
  return createHash('sha256').update(source, 'utf8').digest('hex').slice(0, 16);
}

/**
 * SHA-256 (hex) over the title and every section's level, title and text, each field followed by a
 * NUL so that moving text across a boundary changes the hash. Decides no-op vs update on re-ingest:
 * a change anywhere in the text or the heading tree gives a new hash; `meta` and `source` do not count.
 */
export function contentHash(parsed: ParsedDocument): string {
  const h = createHash('sha256');
  h.update(parsed.title, 'utf8').update('\0');
  for (const s of parsed.sections) {
    h.update(String(s.level)).update('\0').update(s.title, 'utf8').update('\0');
    for (const seg of s.segments)
      h.update(String(seg.page)).update('\0').update(seg.text, 'utf8').update('\0');
    h.update('\x01');
  }
  return h.digest('hex');
}

/** The build settings that change the stored rows, resolved (see {@link BuildOptions}). */
export interface BuildSettings {
  chunkTarget: number;
  chunkMinChars: number;
  maxSectionChars: number;
}

/**
 * The hash stored with a built document: {@link contentHash} of the text when every build setting is
 * its default (so vaults built before settings counted keep their hashes), else SHA-256 (hex) of
 * `build:<chunkTarget>,<chunkMinChars>,<maxSectionChars>`, a NUL, and that content hash. So a
 * re-add with other chunking settings is an update (re-chunked), and the same settings a no-op.
 *
 * @example buildHash(parsed, { chunkTarget: 300, chunkMinChars: 40, maxSectionChars: 4000 }) !== contentHash(parsed) // true
 */
export function buildHash(parsed: ParsedDocument, settings: BuildSettings): string {
  const text = contentHash(parsed);
  if (
    settings.chunkTarget === DEFAULT_CHUNK_CHARS &&
    settings.chunkMinChars === DEFAULT_MIN_CHUNK_CHARS &&
    settings.maxSectionChars === DEFAULT_MAX_SECTION_CHARS
  ) {
    return text;
  }
  const prefix = `build:${settings.chunkTarget},${settings.chunkMinChars},${settings.maxSectionChars}`;
  return createHash('sha256').update(prefix, 'utf8').update('\0').update(text, 'utf8').digest('hex');
}

/**
 * Turn a parsed document into rows ready to store: id, content hash ({@link buildHash}: the text
 * and the build settings), sections (see
 * `buildSections`), and chunks cut per section segment (so each chunk has one page), `ord`
 * counting from 0 within each section. Deterministic: the same input gives the same output.
 */
export function buildDocument(original: ParsedDocument, options: BuildOptions = {}): BuiltDocument {
  const settings: BuildSettings = {
    chunkTarget: options.chunkTarget ?? DEFAULT_CHUNK_CHARS,
    chunkMinChars: options.chunkMinChars ?? DEFAULT_MIN_CHUNK_CHARS,
    maxSectionChars: options.maxSectionChars ?? DEFAULT_MAX_SECTION_CHARS,
  };
  const parsed = splitLargeSections(original, settings.maxSectionChars);
  const sections = buildSections(parsed);
  const langs = documentLanguages(
    parsed.title,
    sections.map((s) => s.text),
  );
  const lang = langs.document;
  sections.forEach((s, i) => (s.lang = langs.sections[i]!));
  const chunkOptions = { target: settings.chunkTarget, minChars: settings.chunkMinChars };
  // buildSections adds a root when the parsed list lacks one; align parsed sections to seqs.
  const offset = parsed.sections[0]?.level === 0 ? 0 : 1;
  const chunks: BuiltChunk[] = [];
  for (const built of sections) {
    const source = parsed.sections[built.seq - offset];
    if (source === undefined) continue;
    let ord = 0;
    for (const seg of source.segments) {
      for (const text of chunkText(seg.text, chunkOptions)) {
        chunks.push({ sectionSeq: built.seq, ord: ord++, text, page: seg.page });
      }
    }
  }
  return {
    id: documentId(parsed.source),
    source: parsed.source,
    title: parsed.title,
    kind: parsed.kind,
    meta: parsed.meta,
    pages: parsed.pages,
    contentHash: buildHash(original, settings),
    lang,
    sections,
    chunks,
  };
}
