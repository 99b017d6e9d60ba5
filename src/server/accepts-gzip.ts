/**
 * Whether an `Accept-Encoding` header lets the reply be gzip-compressed (RFC 9110 §12.5.3).
 *
 * The header is a comma-separated list of codings, each with an optional weight `;q=` from 0 to 1.
 * gzip is acceptable when `gzip` (or its alias `x-gzip`) is listed with q > 0, or when it is not
 * listed and `*` is, with q > 0. Edge cases: a missing or empty header accepts only `identity`
 * (false); `gzip;q=0` refuses gzip even if `*` allows everything; names are case-insensitive;
 * a weight that is not a number from 0 to 1 counts as 1 (a lenient reading of a malformed header
 * that never refuses what the client asked for); whitespace around items and parameters is ignored.
 */
export function acceptsGzip(header: string | null | undefined): boolean {
  if (header === null || header === undefined) return false;
  let gzip: number | null = null;
  let star: number | null = null;
  for (const item of header.split(',')) {
    const [rawName = '', ...params] = item.split(';');
    const name = rawName.trim().toLowerCase();
    if (name === '') continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m === null) continue;
      const v = Number(m[1]);
      if (Number.isFinite(v) && v >= 0 && v <= 1) q = v;
    }
    if (name === 'gzip' || name === 'x-gzip') gzip = Math.max(gzip ?? 0, q);
    else if (name === '*') star = Math.max(star ?? 0, q);
  }
  if (gzip !== null) return gzip > 0;
  return star !== null && star > 0;
}
