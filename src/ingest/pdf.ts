import { QuiverError } from '../errors.js';
import type { ParsedDocument } from './parsed.js';
import { titleFromSource, type ReaderInput } from './_shared.js';
import { firstLineTitle } from './text.js';

/** A vertical gap larger than this many line heights between two lines starts a new paragraph. */
export const PDF_PARAGRAPH_GAP = 1.6;

/**
 * Pages read between two `pdf.cleanup()` calls. pdf.js otherwise keeps every page's parsed fonts
 * and objects until the document is closed: a 2,000-page text PDF (2.5 MB) peaked at 490 MB RSS
 * inside pdf.js without it and 270 MB with a cleanup every 50 pages.
 */
export const PDF_CLEANUP_PAGES = 50;

/** The fields of a pdf.js text item that the joiner needs. */
export interface PdfTextItem {
  str: string;
  hasEOL: boolean;
  /** [a, b, c, d, x, y]. */
  transform: number[];
  width: number;
  height: number;
}

/**
 * Read a PDF with pdf.js (`pdfjs-dist/legacy/build/pdf.mjs`, loaded on first use; no worker thread,
 * no eval, no system fonts). One root section whose segments are the pages' text (page numbers
 * 1-based; blank pages give empty segments); `pages` = page count.
 *
 * Title: `input.title`, else the PDF's Title metadata, else the first line of text, else the file name.
 * `meta` gets `author`, `subject`, `keywords` when present. A file pdf.js cannot open →
 * `QuiverError('CORRUPT_FILE')`; an encrypted one → `QuiverError('UNSUPPORTED_FILE')`.
 */
export async function readPdf(input: ReaderInput): Promise<ParsedDocument> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const task = pdfjs.getDocument({
    // pdf.js may take ownership of the buffer; give it a copy.
    data: new Uint8Array(input.bytes),
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    verbosity: 0,
    stopAtErrors: false,
  });
  let pdf: Awaited<typeof task.promise>;
  try {
    pdf = await task.promise;
  } catch (cause) {
    await task.destroy().catch(() => undefined);
    const name = cause instanceof Error ? cause.name : '';
    if (name === 'PasswordException') {
      throw new QuiverError('UNSUPPORTED_FILE', `quiver: ${input.source} is an encrypted PDF`, {
        cause,
        details: { source: input.source },
      });
    }
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new QuiverError('CORRUPT_FILE', `quiver: ${input.source} is not a readable PDF (${why})`, {
      cause,
      details: { source: input.source },
    });
  }
  try {
    const segments: { page: number; text: string }[] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      segments.push({ page: n, text: joinTextItems((content.items as unknown[]).filter(isTextItem)) });
      page.cleanup();
      // pdf.js keeps parsed fonts and objects for the whole document; drop them now and then.
      if (n % PDF_CLEANUP_PAGES === 0) await pdf.cleanup();
    }
    const info = await pdf
      .getMetadata()
      .then((m) => (m.info ?? {}) as Record<string, unknown>)
      .catch(() => ({}) as Record<string, unknown>);
    const meta: Record<string, unknown> = {};
    for (const [from, to] of [
      ['Author', 'author'],
      ['Subject', 'subject'],
      ['Keywords', 'keywords'],
    ] as const) {
      const v = info[from];
      if (typeof v === 'string' && v.trim() !== '') meta[to] = v.trim();
    }
    const infoTitle = typeof info['Title'] === 'string' ? info['Title'].trim() : '';
    const firstLine = firstLineTitle(segments.find((s) => s.text.trim() !== '')?.text ?? '');
    const title =
      input.title ??
      (infoTitle !== '' ? infoTitle : firstLine !== '' ? firstLine : titleFromSource(input.source));
    return {
      source: input.source,
      title,
      kind: 'pdf',
      meta,
      pages: pdf.numPages,
      sections: [{ level: 0, title, segments }],
    };
  } catch (cause) {
    if (cause instanceof QuiverError) throw cause;
    throw new QuiverError('CORRUPT_FILE', `quiver: ${input.source} could not be read as a PDF`, {
      cause,
      details: { source: input.source },
    });
  } finally {
    await pdf.destroy();
  }
}

function isTextItem(item: unknown): item is PdfTextItem {
  return typeof item === 'object' && item !== null && 'str' in item && 'transform' in item;
}

/**
 * Join pdf.js text items into page text. Items on one line are concatenated, with a space where the
 * horizontal gap exceeds a fifth of the line height (and neither side already has one); a change of
 * line gives `\n`, a vertical gap over {@link PDF_PARAGRAPH_GAP} line heights gives a blank line.
 * `hasEOL` items force a line break. Empty input → ''.
 */
export function joinTextItems(items: PdfTextItem[]): string {
  let out = '';
  let prev: { x: number; y: number; h: number } | undefined;
  let eol = false;
  for (const item of items) {
    const x = item.transform[4] ?? 0;
    const y = item.transform[5] ?? 0;
    const h = Math.abs(item.height) > 0 ? Math.abs(item.height) : Math.abs(item.transform[3] ?? 0);
    if (item.str === '') {
      if (item.hasEOL) eol = true;
      continue;
    }
    if (prev !== undefined) {
      const lineH = Math.max(prev.h, h, 1);
      const dy = Math.abs(prev.y - y);
      if (dy > PDF_PARAGRAPH_GAP * lineH) out = out.trimEnd() + '\n\n';
      else if (dy > 0.5 * lineH || eol) out = out.trimEnd() + '\n';
      else if (x - prev.x > 0.2 * lineH && !out.endsWith(' ') && !item.str.startsWith(' ')) out += ' ';
    }
    out += item.str;
    eol = item.hasEOL;
    prev = { x: x + item.width, y, h };
  }
  return out.trim();
}
