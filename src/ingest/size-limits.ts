/**
 * Hard ceilings on the size of files the tree parsers read whole (Markdown, HTML, PDF), whatever the
 * configured maximum file size: above them one file could exhaust the heap. Plain text has no
 * ceiling: it is read in parts (`text-parts.ts`).
 */
import { QuiverError } from '../errors.js';
import type { DocKind } from '../types.js';

/**
 * Largest Markdown file read, in bytes (64 MiB). Measured here (marked + building the document),
 * peak RSS grows by about 9 MB per MB of Markdown: 16 MB → 278 MB, 64 MB → 737 MB, so 64 MiB stays
 * under about 0.75 GB. Deep nesting costs more; `nesting.ts` bounds that separately.
 */
export const MAX_MARKDOWN_BYTES = 64 * 1024 * 1024;

/**
 * Largest HTML file read, in bytes (32 MiB). The reader holds the page's bytes, its text, parse5's
 * nodes (released as the light tree is built) and the light tree: measured here (`bench/html-
 * extraction.ts`, "Scaling"), peak RSS grows by about 30 MiB per MB of page, 20 MB → about
 * 0.6 GB, so 32 MiB stays near 1 GB; time is linear, 0.2–0.4 s per MB.
 */
export const MAX_HTML_BYTES = 32 * 1024 * 1024;

/**
 * Largest PDF read, in bytes (64 MiB). pdf.js holds the file twice (ours and its copy) plus what it
 * parses; its memory follows the text per page more than the size: a 2.5 MB, 2,000-page text PDF
 * read in a 200 MB heap, and scanned (image) PDFs hold little beyond their bytes.
 */
export const MAX_PDF_BYTES = 64 * 1024 * 1024;

const CEILINGS: Partial<Record<DocKind, { bytes: number; format: string }>> = {
  md: { bytes: MAX_MARKDOWN_BYTES, format: 'Markdown' },
  html: { bytes: MAX_HTML_BYTES, format: 'HTML' },
  pdf: { bytes: MAX_PDF_BYTES, format: 'PDF' },
};

/**
 * Throw FILE_TOO_LARGE when a file of `kind` (`md`, `html`, `pdf`) and `bytes` bytes is over its
 * ceiling; the message names the format, the size, the ceiling, and that plain text is read in
 * parts. Other kinds, and sizes at or under the ceiling, pass.
 *
 * @example assertTreeSize('html', 20_000_000, 'page.html') // throws FILE_TOO_LARGE
 */
export function assertTreeSize(kind: DocKind, bytes: number, source: string): void {
  const ceiling = CEILINGS[kind];
  if (ceiling === undefined || bytes <= ceiling.bytes) return;
  throw new QuiverError(
    'FILE_TOO_LARGE',
    `quiver: ${source} is ${bytes} bytes of ${ceiling.format}, over the ${ceiling.format} ceiling of ${ceiling.bytes} bytes (${ceiling.format} is parsed whole; plain text is read in parts, so a text export can be added instead)`,
    { details: { source, kind, bytes, ceiling: ceiling.bytes } },
  );
}
