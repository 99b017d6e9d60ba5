import fc from 'fast-check';
import { parse } from 'parse5';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi.js';
import { escapeHtml, referencePage, typeLabel } from './reference-page.js';
import { ROUTES } from './routes/index.js';

type Node = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Every element of a parsed page, in document order. */
function elements(node: Node, out: Node[] = []): Node[] {
  if (typeof node.tagName === 'string') out.push(node);
  for (const child of (node.childNodes ?? []) as Node[]) elements(child, out);
  return out;
}
const text = (node: Node): string =>
  node.nodeName === '#text' ? (node.value as string) : ((node.childNodes ?? []) as Node[]).map(text).join('');
const attr = (node: Node, name: string): string | undefined =>
  ((node.attrs ?? []) as { name: string; value: string }[]).find((a) => a.name === name)?.value;
const hasClass = (node: Node, c: string): boolean => (attr(node, 'class') ?? '').split(' ').includes(c);

/** The elements and attributes the renderer writes; anything else came from the document's text. */
const TAGS = new Set(
  'html head body meta title style header div h1 h2 h3 h4 p span a nav ul li code main section article table thead tbody tr th td dl dt dd br'.split(
    ' ',
  ),
);
const ATTRS = new Set(['lang', 'charset', 'name', 'content', 'class', 'id', 'href', 'aria-label', 'colspan']);
/** What an HTML parser does to text anyway (line ends, NUL), so a comparison ignores it. */
const norm = (s: string): string =>
  s.replace(/\r\n?/g, '\n').replaceAll('\u0000', '').replaceAll('\ufffd', '');
/** The text `prose` shows: paired backticks become <code>, so they are not in the text. */
const shown = (s: string): string => s.replace(/`([^`]+)`/g, '$1');

/** Text rich in what matters to HTML (`< > & " '`, backticks, line ends, NUL) among any code points. */
const htmlish = (maxLength: number) =>
  fc.string({
    unit: fc.oneof(
      fc.constantFrom('<', '>', '&', '"', "'", '`', '/', '=', '\r', '\u0000', ' '),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    ),
    maxLength,
  });

describe('escapeHtml', () => {
  it('escapes the five characters that matter', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;',
    );
  });
  it('never lets text open a tag or close an attribute', () => {
    fc.assert(
      fc.property(
        htmlish(40),
        (s) =>
          !/[<>"']/.test(escapeHtml(s)) &&
          escapeHtml(s)
            .replace(/&#\d+;/g, '')
            .indexOf('&') === -1,
      ),
      { seed: 3, numRuns: 500 },
    );
  });
});

describe('typeLabel', () => {
  it('reads ranges, enums, arrays and formats', () => {
    expect(typeLabel({ type: 'integer', minimum: 1, maximum: 100 })).toBe('integer 1–100');
    expect(typeLabel({ type: 'number', minimum: -1, maximum: 1 })).toBe('number −1 to 1');
    expect(typeLabel({ type: 'number', exclusiveMinimum: 0, maximum: 10 })).toBe('number > 0, ≤ 10');
    expect(typeLabel({ type: 'string', maxLength: 10 })).toBe('string, ≤ 10 chars');
    expect(typeLabel({ type: 'string', minLength: 1, maxLength: 10_000 })).toBe('string, 1–10,000 chars');
    expect(typeLabel({ enum: ['topk', 'mmr'] })).toBe('"topk" | "mmr"');
    expect(typeLabel({ type: 'array', items: { type: 'string' } })).toBe('array of string');
    expect(typeLabel({ type: 'array', maxItems: 5, items: { type: 'boolean' } })).toBe(
      'array of boolean; ≤ 5 items',
    );
    expect(typeLabel({ type: 'string', format: 'date-time' })).toBe('string (date-time)');
    expect(typeLabel({ type: 'string', format: 'binary' })).toBe('file (binary)');
    expect(typeLabel({ type: 'integer', minimum: -9007199254740991, maximum: 3 })).toBe('integer ≤ 3');
    expect(typeLabel(undefined)).toBe('any');
  });
});

describe('referencePage', () => {
  const doc = openApiDocument(ROUTES, { version: '1.2.3' }) as Node;
  const page = referencePage(doc);
  const els = elements(parse(page) as Node);

  it('shows every operation with its method, path, role, summary and anchor in the side list', () => {
    const ops = els.filter((e) => e.tagName === 'article');
    expect(ops.length).toBe(ROUTES.length + 3); // + /healthz, /openapi.json, /docs
    for (const r of ROUTES) {
      const path = r.path.replace(/:(\w+)/g, '{$1}');
      const op = doc.paths[path][r.method.toLowerCase()] as Node;
      const card = ops.find((o) => attr(o, 'id') === op.operationId)!;
      expect(card, `${r.method} ${r.path}`).toBeDefined();
      const head = elements(card).find((e) => hasClass(e, 'op-head'))!;
      expect(text(head)).toBe(`${r.method}${path}${r.role}`);
      expect(text(elements(card).find((e) => hasClass(e, 'summary'))!)).toBe(shown(r.summary));
      expect(els.some((e) => e.tagName === 'a' && attr(e, 'href') === `#${op.operationId}`)).toBe(true);
    }
    expect(page).toContain('<span class="ver">1.2.3</span>');
  });

  it('lists every body field and query parameter', () => {
    const cells = new Set(els.filter((e) => hasClass(e, 'name')).map((e) => text(e.childNodes[0])));
    for (const r of ROUTES) {
      for (const q of Object.keys(r.query ?? {})) expect(cells.has(q)).toBe(true);
      const shape = (r.body as unknown as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
      for (const k of Object.keys(shape)) expect(cells.has(k), `${r.path} ${k}`).toBe(true);
    }
    expect(cells.has('texts[].text')).toBe(true);
    expect(cells.has('select.lambda')).toBe(true);
  });

  it('is self-contained: no script, no external stylesheet or image, no link off the page', () => {
    for (const e of els) {
      expect(TAGS.has(e.tagName as string), e.tagName).toBe(true);
      const href = attr(e, 'href');
      if (href !== undefined) expect(href === 'openapi.json' || href.startsWith('#')).toBe(true);
    }
    expect(page).not.toMatch(/https?:\/\//);
  });

  it('escapes what the document says', () => {
    const evil = referencePage({
      info: { title: '<script>alert(1)</script>', version: '"1' },
      paths: {
        '/x': { get: { summary: '<img src=x onerror=alert(1)>', tags: ['<b>'], operationId: '"><i>' } },
      },
    });
    expect(evil).not.toContain('<script>alert');
    expect(evil).not.toContain('<img src=x');
    expect(evil).not.toContain('<b>');
    expect(evil).not.toContain('<i>');
  });

  // Every text slot of a document filled with arbitrary text (and known attacks): the parsed page
  // has only the renderer's elements and attributes, its one style sheet, and shows the text as given.
  const attack = fc.constantFrom(
    '<script>alert(1)</script>',
    '"><img src=x onerror=alert(1)>',
    "' onmouseover='alert(1)",
    '</style><b>x</b>',
    '</title><b>',
    '<!-- ',
    ']]><svg onload=alert(1)>',
    '`<b>code</b>`',
    '&lt;b&gt; &amp;',
    '{<i>}',
    'javascript:alert(1)',
  );
  const any = fc.oneof(htmlish(30), attack, fc.string({ maxLength: 8 }));
  const schema = fc.record(
    {
      type: fc.oneof(fc.constantFrom('string', 'object', 'array', 'integer'), any),
      description: any,
      enum: fc.array(any, { maxLength: 3 }),
      format: any,
      properties: fc.dictionary(any, fc.record({ type: any, description: any }), { maxKeys: 3 }),
      required: fc.array(any, { maxLength: 2 }),
    },
    { requiredKeys: ['type'] },
  );
  const operation = fc.record(
    {
      operationId: any,
      summary: any,
      description: any,
      tags: fc.array(any, { maxLength: 2 }),
      'x-quiver-role': any,
      security: fc.constantFrom([], [{ bearer: [] }]),
      parameters: fc.array(
        fc.record({ name: any, in: any, description: any, required: fc.boolean(), schema }),
        { maxLength: 3 },
      ),
      requestBody: fc.record({ content: fc.dictionary(any, fc.record({ schema }), { maxKeys: 2 }) }),
      responses: fc.dictionary(
        fc.oneof(fc.constantFrom('200', '202', '404'), any),
        fc.record({ description: any, content: fc.dictionary(any, fc.constant({}), { maxKeys: 2 }) }),
        { maxKeys: 3 },
      ),
    },
    { requiredKeys: ['summary'] },
  );
  const document = fc.record({
    openapi: any,
    info: fc.record({ title: any, version: any, description: any }),
    tags: fc.array(fc.record({ name: any, description: any }), { maxLength: 3 }),
    paths: fc.dictionary(
      any,
      fc.dictionary(fc.oneof(fc.constantFrom('get', 'post', 'delete'), any), operation, { maxKeys: 2 }),
      { maxKeys: 3 },
    ),
  });

  it('no text in the document can inject an element, an attribute or a style', () => {
    fc.assert(
      fc.property(document, (d) => {
        const html = referencePage(d as unknown as Node);
        const all = elements(parse(html) as Node);
        for (const e of all) {
          expect(TAGS.has(e.tagName as string), `<${e.tagName as string}>`).toBe(true);
          for (const a of e.attrs as { name: string; value: string }[]) {
            expect(ATTRS.has(a.name), a.name).toBe(true);
            if (a.name === 'id') expect(a.value).toMatch(/^[A-Za-z0-9_-]*$/);
            if (a.name === 'href')
              expect(a.value === 'openapi.json' || /^#[A-Za-z0-9_-]*$/.test(a.value)).toBe(true);
          }
        }
        // One style sheet, the renderer's own, in the head.
        const styles = all.filter((e) => e.tagName === 'style');
        expect(styles.length).toBe(1);
        expect(referencePage({}).includes(`<style>${text(styles[0]!)}</style>`)).toBe(true);
        // The text comes back as it was given (nothing dropped, nothing double-escaped).
        const title = all.find((e) => e.tagName === 'title')!;
        expect(norm(text(title))).toBe(norm(`${d.info.title} API ${d.info.version}`.trim()));
        const summaries = all.filter((e) => hasClass(e, 'summary')).map((e) => norm(text(e)));
        const given = Object.values(d.paths).flatMap((item) => Object.values(item).map((op) => op.summary));
        expect(summaries.sort()).toEqual(given.map((s) => norm(shown(s))).sort());
      }),
      { seed: 5, numRuns: 300 },
    );
  });
});
