import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, type Config } from '../config.js';
import { transcriptConfig } from './transcript-config.js';

describe('transcriptConfig', () => {
  const base = Object.fromEntries(Object.entries(CONFIG_KEYS).map(([k, v]) => [k, v.default])) as Config;
  it('drops secret-named keys and redacts credentials in URLs', () => {
    const c = {
      ...base,
      'generator.baseURL': 'https://user:pw@llm.example/v1',
      'x.apiKey': 'k',
      'y.password': 'p',
    } as typeof base;
    const { config } = transcriptConfig(c);
    expect(config['generator.baseURL']).toBe('https://***@llm.example/v1');
    expect('x.apiKey' in config).toBe(false);
    expect('y.password' in config).toBe(false);
  });
  it('redacts a password given as a URL parameter (a store URL)', () => {
    const c = {
      ...base,
      store: 'postgres://db.example/vault?sslmode=require&password=s3cret',
    } as typeof base;
    expect(transcriptConfig(c).config['store']).toBe(
      'postgres://db.example/vault?sslmode=require&password=***',
    );
  });
  it('leaves URLs without credentials as they are', () => {
    const c = { ...base, 'generator.baseURL': 'http://127.0.0.1:11434/v1' } as typeof base;
    expect(transcriptConfig(c).config['generator.baseURL']).toBe('http://127.0.0.1:11434/v1');
  });
  it('fingerprints the recorded object: the same settings in any key order agree, a change differs', () => {
    const reversed = Object.fromEntries(Object.entries(base).reverse()) as typeof base;
    expect(transcriptConfig(reversed).fingerprint).toBe(transcriptConfig(base).fingerprint);
    expect(transcriptConfig({ ...base, 'search.rrfK': 61 }).fingerprint).not.toBe(
      transcriptConfig(base).fingerprint,
    );
    expect(transcriptConfig(base).fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });
});
