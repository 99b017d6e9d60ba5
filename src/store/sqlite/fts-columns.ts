import { segmentWords } from '../../text/segment.js';

/**
 * The three columns FTS5 indexes for a section, in `sections_fts` order (body, title, heading),
 * each with its space-less runs split into words (`segmentWords`) as a query's words are. Every
 * write to `sections_fts` or to a table tokenized like it goes through here.
 */
export function ftsColumns(body: string, title: string, heading: string): [string, string, string] {
  return [segmentWords(body), segmentWords(title), segmentWords(heading)];
}
