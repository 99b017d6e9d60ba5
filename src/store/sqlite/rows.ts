export { now, type Row, toBatch, toChunk, toDocument, toFeedback, toSection } from '../records.js';

/**
 * The document id in a section id: section ids are `<doc_id>#<seq>` (document-versions.ts), so
 * everything before the last `#`. Lets index-only queries skip reading a row for its doc_id.
 */
export function docIdOfSection(sectionId: string): string {
  return sectionId.slice(0, sectionId.lastIndexOf('#'));
}
