import { codePointLength } from '../text/tokens.js';

/** A plain-text table: columns padded to their widest cell, cells cut to `max` characters. */
export function table(headers: string[], rows: (string | number | null)[][], max = 60): string {
  const cut = (v: string | number | null): string => {
    const s = v === null ? '' : String(v).replace(/\s+/g, ' ');
    return codePointLength(s) > max ? `${[...s].slice(0, max - 1).join('')}…` : s;
  };
  const cells = [headers.map(cut), ...rows.map((r) => r.map(cut))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => codePointLength(r[i] ?? ''))));
  const line = (r: string[]): string =>
    r
      .map((c, i) => c + ' '.repeat(widths[i]! - codePointLength(c)))
      .join('  ')
      .trimEnd();
  return (
    [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n') +
    '\n'
  );
}

/** Bytes as mebibytes with one decimal: `12.3 MB`. */
export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
