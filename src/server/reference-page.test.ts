import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi.js';
import { escapeHtml, referencePage, typeLabel } from './reference-page.js';
import { ROUTES } from './routes/index.js';

describe('escapeHtml', () => {
  it('escapes the five characters that matter', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;',
    );
  });
  it('never lets text open a tag or close an attribute', () => {
    fc.assert(fc.property(fc.string(), (s) => !/[<>"']/.test(escapeHtml(s))));
  });
});

describe('typeLabel', () => {
  it('reads ranges, enums, arrays and formats', () => {
    expect(typeLabel({ type: 'integer', minimum: 1, maximum: 100 })).toBe('integer 1–100');
    expect(typeLabel({ type: 'string', maxLength: 10 })).toBe('string ≤ 10');
    expect(typeLabel({ enum: ['topk', 'mmr'] })).toBe('"topk" | "mmr"');
    expect(typeLabel({ type: 'array', items: { type: 'string' } })).toBe('array of string');
    expect(typeLabel({ type: 'string', format: 'date-time' })).toBe('string (date-time)');
    expect(typeLabel({ type: 'integer', minimum: -9007199254740991, maximum: 3 })).toBe('integer ≤ 3');
    expect(typeLabel(undefined)).toBe('any');
  });
});

describe('referencePage', () => {
  const page = referencePage(openApiDocument(ROUTES, { version: '1.2.3' }));
  it('shows every route with its method and path', () => {
    for (const r of ROUTES)
      expect(page).toContain(`<code class="path">${escapeHtml(r.path.replace(/:(\w+)/g, '{$1}'))}</code>`);
    expect(page).toContain('API <small>1.2.3</small>');
  });
  it('escapes what the document says', () => {
    const evil = referencePage({
      info: { title: '<script>alert(1)</script>', version: '"1' },
      paths: { '/x': { get: { summary: '<img src=x onerror=alert(1)>', tags: ['<b>'] } } },
    });
    expect(evil).not.toContain('<script>alert');
    expect(evil).not.toContain('<img src=x');
    expect(evil).not.toContain('<b>');
  });
});
