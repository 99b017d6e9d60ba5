/**
 * The web page of `quiver serve`: the files Vite builds into `dist/web` (`npm run build`), served
 * without a token (they hold no data; the page asks the API with the user's token). `/` is the
 * page; `/assets/*` are its hashed bundles, cached for a year since a new build has new names;
 * every reply carries a Content-Security-Policy that allows only this origin. Text files go out
 * gzip-compressed to a client that accepts it (compressed once per file version, then kept). In a
 * checkout that never built the page, `/` says how to build it instead of failing.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Hono } from 'hono';
import { acceptsGzip } from './accepts-gzip.js';
import type { Env } from './route.js';

/** Only this origin, for everything; no inline script or style, no frames, no plugins. */
export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Content types of the files a Vite build writes. */
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** The types worth compressing (the images and fonts a build writes are compressed already). */
const TEXT = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt']);

/** The message `/` answers when the page was never built. */
export const NOT_BUILT =
  'quiver: the web page is not built in this checkout. Run `npm run build` (it writes dist/web), then reload.\n' +
  'The HTTP API works without it; its description is at /docs.\n';

/**
 * Where the built page is: `dist/web` of the package, found from this module whether it runs from
 * `src/server` (tsx, tests), `dist/server` (tsc) or `dist/cli-bundle` (the bundled CLI).
 */
export function defaultWebDir(): string {
  const candidates = ['../web/', '../../dist/web/'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  return candidates.find((d) => existsSync(join(d, 'index.html'))) ?? candidates[candidates.length - 1]!;
}

/** The file under `dir` a request path names, or null when it would leave `dir`. */
function fileUnder(dir: string, path: string): string | null {
  const root = normalize(dir.endsWith(sep) ? dir : dir + sep);
  let name: string;
  try {
    name = decodeURIComponent(path);
  } catch {
    return null;
  }
  const file = normalize(join(root, name));
  return file.startsWith(root) && !name.includes('\0') ? file : null;
}

function security(): Record<string, string> {
  return {
    'Content-Security-Policy': PAGE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
}

/**
 * Add the page's routes to `app`: `GET /` (the page, never cached, so a new build shows at once),
 * `GET /assets/*` (immutable) and the few root files of the build (`/favicon.svg`). Reads the files
 * from `dir` on each request, so a rebuild needs no restart.
 */
export function mountPage(app: Hono<Env>, dir: string = defaultWebDir()): void {
  // Compressed bodies by file, kept while the file's size and time are the same (a rebuild
  // writes new ones).
  const packed = new Map<string, { version: string; body: Uint8Array<ArrayBuffer> }>();
  const gzipped = (file: string, body: Buffer): Uint8Array<ArrayBuffer> => {
    const s = statSync(file);
    const version = `${s.size}:${s.mtimeMs}`;
    const kept = packed.get(file);
    if (kept?.version === version) return kept.body;
    const fresh = new Uint8Array(gzipSync(body, { level: 9 }));
    packed.set(file, { version, body: fresh });
    return fresh;
  };
  const send = (path: string, cache: string, acceptEncoding: string | undefined): Response | null => {
    const file = fileUnder(dir, path);
    if (file === null || !existsSync(file)) return null;
    let body: Buffer;
    try {
      body = readFileSync(file);
    } catch {
      return null;
    }
    const compress = TEXT.has(extname(file));
    const gzip = compress && acceptsGzip(acceptEncoding);
    return new Response(gzip ? gzipped(file, body) : new Uint8Array(body), {
      headers: {
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Cache-Control': cache,
        ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
        ...(compress ? { Vary: 'Accept-Encoding' } : {}),
        ...security(),
      },
    });
  };
  app.get('/', (c) => {
    const page = send('index.html', 'no-cache', c.req.header('accept-encoding'));
    if (page !== null) return page;
    return new Response(NOT_BUILT, {
      headers: { 'Content-Type': 'text/plain; charset=utf-8', ...security() },
    });
  });
  app.get(
    '/favicon.svg',
    (c) => send('favicon.svg', 'public, max-age=86400', c.req.header('accept-encoding')) ?? c.notFound(),
  );
  app.get(
    '/assets/*',
    (c) =>
      send(c.req.path.slice(1), 'public, max-age=31536000, immutable', c.req.header('accept-encoding')) ??
      c.notFound(),
  );
}
