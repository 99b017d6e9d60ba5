import { readFile } from 'node:fs/promises';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { buildDocument } from './build.js';
import { joinTextItems, readPdf, type PdfTextItem } from './pdf.js';

async function makePdf(pages: string[][], title?: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  if (title !== undefined) doc.setTitle(title);
  for (const lines of pages) {
    const page = doc.addPage([400, 600]);
    let y = 560;
    for (const line of lines) {
      if (line === '') {
        y -= 20; // an extra gap: a paragraph break
        continue;
      }
      page.drawText(line, { x: 40, y, size: 12, font });
      y -= 15;
    }
  }
  return doc.save();
}

const item = (str: string, x: number, y: number, width = str.length * 6, hasEOL = false): PdfTextItem => ({
  str,
  hasEOL,
  transform: [12, 0, 0, 12, x, y],
  width,
  height: 12,
});

describe('joinTextItems', () => {
  it('joins items on a line, breaks lines, and leaves blank lines at big gaps', () => {
    const text = joinTextItems([
      item('Hello', 0, 100, 30),
      item('world', 34, 100),
      item('next line', 0, 85),
      item('new para', 0, 40),
    ]);
    expect(text).toBe('Hello world\nnext line\n\nnew para');
  });

  it('concatenates touching items without a space and honours hasEOL', () => {
    expect(joinTextItems([item('Hel', 0, 100, 18), item('lo', 18, 100)])).toBe('Hello');
    expect(joinTextItems([item('a', 0, 100, 6, true), item('b', 6, 100)])).toBe('a\nb');
    expect(joinTextItems([])).toBe('');
  });
});

describe('readPdf', () => {
  it('records the page count and one segment per page with 1-based page numbers', async () => {
    const bytes = await makePdf(
      [
        ['Page one first line', 'page one second line', '', 'Page one paragraph two'],
        [],
        ['Page three text'],
      ],
      'Three Pages',
    );
    const doc = await readPdf({ source: 'three.pdf', bytes });
    expect(doc.kind).toBe('pdf');
    expect(doc.pages).toBe(3);
    expect(doc.title).toBe('Three Pages');
    expect(doc.sections).toHaveLength(1);
    expect(doc.sections[0]?.segments).toEqual([
      { page: 1, text: 'Page one first line\npage one second line\n\nPage one paragraph two' },
      { page: 2, text: '' },
      { page: 3, text: 'Page three text' },
    ]);
    const built = buildDocument(doc);
    expect(built.chunks.map((c) => c.page)).toEqual([1, 3]);
    expect(built.sections[0]).toMatchObject({ pageStart: 1, pageEnd: 3 });
  });

  it('takes the title from the first line when there is no Title metadata', async () => {
    const doc = await readPdf({ source: 'x.pdf', bytes: await makePdf([['Quarterly Report', 'body']]) });
    expect(doc.title).toBe('Quarterly Report');
  });

  it('does not detach the caller’s buffer', async () => {
    const bytes = await makePdf([['keep me']]);
    await readPdf({ source: 'x.pdf', bytes });
    expect(bytes.byteLength).toBeGreaterThan(0);
  });

  it('throws CORRUPT_FILE for a damaged PDF', async () => {
    for (const bytes of [
      new TextEncoder().encode('%PDF-1.7\nthis is not really a pdf'),
      new Uint8Array([1, 2, 3]),
    ]) {
      await expect(readPdf({ source: 'bad.pdf', bytes })).rejects.toSatisfy((e) =>
        isQuiverError(e, 'CORRUPT_FILE'),
      );
    }
  });

  it('reads the demo briefing: 3 pages, text on each, metadata', async () => {
    const bytes = await readFile(
      new URL('../../demo/corpus/climate/warming-causes-briefing.pdf', import.meta.url),
    );
    const doc = await readPdf({ source: 'climate/warming-causes-briefing.pdf', bytes });
    expect(doc.pages).toBe(3);
    expect(doc.title).toBe('What Is Warming the Planet? A Briefing on the Causes');
    expect(doc.meta['author']).toBe('Reading group notes');
    const pages = doc.sections[0]?.segments ?? [];
    expect(pages.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(pages[0]?.text).toContain('Fossil fuel carbon dioxide');
    expect(pages[1]?.text).toContain('Deforestation and land-use change');
    expect(pages[2]?.text).toContain('Black carbon');
  });
});
