import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  askOptionsOf,
  checkConfigNames,
  parseEvalConfig,
  parseVariant,
  parseVariants,
  readEvalConfig,
  searchOptionsOf,
} from './eval-config.js';

describe('variants', () => {
  it('names a variant by its text and maps it to settings', () => {
    expect(parseVariant('select=mmr')).toEqual({ name: 'select=mmr', settings: { select: 'mmr' } });
    expect(parseVariant('select=mmr, legs=lexical,limit=100')).toEqual({
      name: 'select=mmr,legs=lexical,limit=100',
      settings: { select: 'mmr', legs: 'lexical', limit: 100 },
    });
    expect(parseVariant('vector-weight=0.3').settings).toEqual({ vectorWeight: 0.3 });
  });

  it('sets selection options with select.<option>', () => {
    expect(parseVariant('select=mmr,select.lambda=0.7').settings).toEqual({
      select: { method: 'mmr', lambda: 0.7 },
    });
    expect(parseVariant('select.sigma=0.2').settings).toEqual({ select: { sigma: 0.2 } });
    expect(parseVariant('select.foldNearCopies=false').settings).toEqual({
      select: { foldNearCopies: false },
    });
  });

  it('expands --variants into one config per value', () => {
    expect(parseVariants('select=topk,mmr,dartboard')).toEqual([
      { name: 'select=topk', settings: { select: 'topk' } },
      { name: 'select=mmr', settings: { select: 'mmr' } },
      { name: 'select=dartboard', settings: { select: 'dartboard' } },
    ]);
  });

  it.each([
    ['select=random', /select/],
    ['colour=blue', /colour|Unrecognized/i],
    ['limit=0', /limit/],
    ['limit=ten', /limit/],
    ['mmr', /key=value/],
    ['', /key=value/],
  ])('rejects %j', (spec, message) => {
    expect(() => parseVariant(spec)).toThrow(message);
  });

  it('rejects an empty value list', () => {
    expect(() => parseVariants('select=')).toThrow(/lists no values/);
  });
});

describe('config files', () => {
  it('reads {name, settings} and rejects unknown keys and bad JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'quiver-cfg-'));
    try {
      const good = join(dir, 'a.json');
      writeFileSync(
        good,
        JSON.stringify({ name: 'fused', settings: { legs: 'both', vectorWeight: 0.3, judge: 'fact-id' } }),
      );
      expect(readEvalConfig(good)).toEqual({
        name: 'fused',
        settings: { legs: 'both', vectorWeight: 0.3, judge: 'fact-id' },
      });
      const bad = join(dir, 'b.json');
      writeFileSync(bad, '{"name": "x", "settings": {"legz": "both"}}');
      expect(() => readEvalConfig(bad)).toThrow(/b\.json/);
      writeFileSync(bad, '{"name": ');
      expect(() => readEvalConfig(bad)).toThrow(/not JSON/);
      expect(() => readEvalConfig(join(dir, 'missing.json'))).toThrow(/cannot read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(parseEvalConfig({ name: 'plain' })).toEqual({ name: 'plain', settings: {} });
    expect(() => parseEvalConfig({ settings: {} })).toThrow(/name/);
  });

  it('rejects two configs with one name', () => {
    expect(() => checkConfigNames([parseVariant('select=mmr'), parseVariant('select=mmr')])).toThrow(
      /two configs/,
    );
  });
});

describe('settings → vault options', () => {
  it('maps retrieval settings onto SearchOptions', () => {
    expect(
      searchOptionsOf({
        select: 'mmr',
        mode: 'all',
        legs: 'lexical',
        vectorWeight: 0.2,
        lexicalWeight: 1,
        limit: 50,
      }),
    ).toEqual({
      select: { method: 'mmr' },
      mode: 'all',
      legs: 'lexical',
      vectorWeight: 0.2,
      lexicalWeight: 1,
      limit: 50,
    });
    expect(searchOptionsOf({})).toEqual({});
  });

  it('asks with the context size, not the retrieval limit', () => {
    expect(askOptionsOf({ limit: 100, select: 'topk', generator: 'extractive' })).toEqual({
      select: { method: 'topk' },
      generator: 'extractive',
    });
    expect(askOptionsOf({ limit: 100, contextSections: 4 })).toEqual({ limit: 4 });
  });
});
