import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { mountPage, NOT_BUILT, PAGE_CSP } from './page.js';
import type { Env } from './route.js';

const built = mkdtempSync(join(tmpdir(), 'quiver-page-'));
const empty = mkdtempSync(join(tmpdir(), 'quiver-page-empty-'));
writeFileSync(join(built, 'index.html'), '<!doctype html><title>quiver</title>');
writeFileSync(join(built, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
mkdirSync(join(built, 'assets'));
writeFileSync(join(built, 'assets', 'index-abc123.js'), 'console.log(1)');
writeFileSync(join(built, 'assets', 'index-abc123.css'), 'body{}');
writeFileSync(join(tmpdir(), 'quiver-page-secret.txt'), 'secret');

afterAll(() => {
  rmSync(built, { recursive: true, force: true });
  rmSync(empty, { recursive: true, force: true });
  rmSync(join(tmpdir(), 'quiver-page-secret.txt'), { force: true });
});

function appOver(dir: string): Hono<Env> {
  const app = new Hono<Env>();
  mountPage(app, dir);
  return app;
}

describe('the web page routes', () => {
  const app = appOver(built);

  it('serves the page at / with the CSP, uncached, without a token', async () => {
    const res = await app.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.text()).toContain('<title>quiver</title>');
  });

  it('serves hashed assets with their types and a long, immutable cache', async () => {
    const js = await app.request('/assets/index-abc123.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await js.text()).toBe('console.log(1)');
    const css = await app.request('/assets/index-abc123.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const icon = await app.request('/favicon.svg');
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('answers 404 for a missing asset and never leaves the folder', async () => {
    expect((await app.request('/assets/nope.js')).status).toBe(404);
    for (const path of [
      '/assets/../../quiver-page-secret.txt',
      '/assets/%2e%2e/%2e%2e/quiver-page-secret.txt',
    ])
      expect(await (await app.request(path)).text()).not.toBe('secret');
    expect((await app.request('/assets/%E0%A4%A')).status).toBe(404);
  });

  it('sends text files gzip-compressed to a client that accepts it, and as they are to one that does not', async () => {
    const gz = { 'accept-encoding': 'gzip, deflate, br' };
    const js = await app.request('/assets/index-abc123.js', { headers: gz });
    expect(js.headers.get('content-encoding')).toBe('gzip');
    expect(js.headers.get('vary')).toBe('Accept-Encoding');
    expect(js.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(gunzipSync(new Uint8Array(await js.arrayBuffer())).toString()).toBe('console.log(1)');
    const plain = await app.request('/assets/index-abc123.js', {
      headers: { 'accept-encoding': 'gzip;q=0' },
    });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe('console.log(1)');
    const page = await app.request('/', { headers: gz });
    expect(gunzipSync(new Uint8Array(await page.arrayBuffer())).toString()).toContain(
      '<title>quiver</title>',
    );
  });

  it('compresses a rebuilt file anew (no stale compressed copy)', async () => {
    const own = mkdtempSync(join(tmpdir(), 'quiver-page-rebuilt-'));
    try {
      writeFileSync(join(own, 'index.html'), '<title>first</title>');
      const ownApp = appOver(own);
      const read = async (): Promise<string> =>
        gunzipSync(
          new Uint8Array(
            await (await ownApp.request('/', { headers: { 'accept-encoding': 'gzip' } })).arrayBuffer(),
          ),
        ).toString();
      expect(await read()).toBe('<title>first</title>');
      writeFileSync(join(own, 'index.html'), '<title>second build</title>');
      expect(await read()).toBe('<title>second build</title>');
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('says how to build the page when it was never built', async () => {
    const res = await appOver(empty).request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe(NOT_BUILT);
    expect(NOT_BUILT).toContain('npm run build');
  });
});
