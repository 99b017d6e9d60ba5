/**
 * Small inline-SVG charts for the HTML eval report: a bar chart with confidence whiskers and a box
 * plot. Pure string builders; every label is escaped. No scripts, no external resources.
 */

/** Escape text for HTML element content and double- or single-quoted attributes. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Series colours, by config index (repeats after 8). */
export const REPORT_PALETTE = [
  '#3b6fb6',
  '#d9822b',
  '#3a9d5d',
  '#b8404b',
  '#7a5cb0',
  '#8c6d4f',
  '#c45fa0',
  '#6b7b8c',
];

export function colorAt(i: number): string {
  return REPORT_PALETTE[i % REPORT_PALETTE.length]!;
}

/** 3 decimals, or "Undefined" for null/NaN. */
export function fmt3(x: number | null | undefined): string {
  return x === null || x === undefined || Number.isNaN(x) ? 'Undefined' : x.toFixed(3);
}

/** Round to at most 3 decimals for SVG coordinates. */
const c = (x: number): string => String(Math.round(x * 1000) / 1000);

/** A "nice" upper bound ≥ x: 1, 2 or 5 times a power of ten. */
export function niceCeil(x: number): number {
  if (!(x > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p;
  return 10 * p;
}

export interface Bar {
  label: string;
  value: number | null;
  ci: [number, number] | null;
  color: string;
}

/**
 * Vertical bars (one per config) with CI whiskers. The axis runs from min(0, lowest) to 1 when all
 * values fit in [0, 1], else to a nice bound. An Undefined bar is drawn as a dashed outline
 * labelled "Undefined". Each bar carries a `<title>` with its exact numbers.
 */
export function barChartSvg(title: string, bars: readonly Bar[]): string {
  const width = Math.max(220, 70 * bars.length + 60);
  const height = 190;
  const left = 42;
  const top = 24;
  const plotH = 120;
  const numbers = bars.flatMap((b) => [b.value ?? 0, ...(b.ci ?? [])]);
  const hiRaw = Math.max(0, ...numbers);
  const lo = Math.min(0, ...numbers);
  const hi = hiRaw <= 1 && lo >= 0 ? 1 : niceCeil(hiRaw);
  const y = (v: number): number => top + plotH - ((v - lo) / (hi - lo || 1)) * plotH;
  const slot = (width - left - 10) / Math.max(1, bars.length);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<title>${escapeHtml(title)}</title>`,
    `<text x="${left}" y="14" class="chart-title">${escapeHtml(title)}</text>`,
  ];
  for (const t of [lo, (lo + hi) / 2, hi]) {
    parts.push(
      `<line x1="${left}" x2="${width - 10}" y1="${c(y(t))}" y2="${c(y(t))}" class="grid"/>`,
      `<text x="${left - 4}" y="${c(y(t) + 4)}" class="tick" text-anchor="end">${escapeHtml(trimNum(t))}</text>`,
    );
  }
  bars.forEach((b, i) => {
    const x = left + i * slot + slot * 0.2;
    const w = slot * 0.6;
    const label = `<text x="${c(x + w / 2)}" y="${top + plotH + 14}" class="tick" text-anchor="middle">${escapeHtml(shorten(b.label))}</text>`;
    if (b.value === null) {
      parts.push(
        `<g><title>${escapeHtml(`${b.label}: Undefined`)}</title>`,
        `<rect x="${c(x)}" y="${top}" width="${c(w)}" height="${plotH}" class="undef-bar"/>`,
        `<text x="${c(x + w / 2)}" y="${top + plotH / 2}" class="tick" text-anchor="middle">Undefined</text></g>`,
        label,
      );
      return;
    }
    const y0 = y(Math.max(0, lo));
    const yv = y(b.value);
    const ci = b.ci === null ? '' : ` [${fmt3(b.ci[0])}, ${fmt3(b.ci[1])}]`;
    parts.push(
      `<g><title>${escapeHtml(`${b.label}: ${fmt3(b.value)}${ci}`)}</title>`,
      `<rect x="${c(x)}" y="${c(Math.min(y0, yv))}" width="${c(w)}" height="${c(Math.abs(y0 - yv))}" fill="${b.color}"/>`,
    );
    if (b.ci !== null) {
      const xm = x + w / 2;
      const [a, z] = [y(b.ci[0]), y(b.ci[1])];
      parts.push(
        `<line x1="${c(xm)}" x2="${c(xm)}" y1="${c(a)}" y2="${c(z)}" class="whisker"/>`,
        `<line x1="${c(xm - 6)}" x2="${c(xm + 6)}" y1="${c(a)}" y2="${c(a)}" class="whisker"/>`,
        `<line x1="${c(xm - 6)}" x2="${c(xm + 6)}" y1="${c(z)}" y2="${c(z)}" class="whisker"/>`,
      );
    }
    parts.push(
      `<text x="${c(x + w / 2)}" y="${c(Math.min(y0, yv, b.ci === null ? yv : y(b.ci[1])) - 3)}" class="value" text-anchor="middle">${fmt3(b.value)}</text></g>`,
      label,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}

/** Five-number summary used by the box plot. */
export interface BoxStats {
  min: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
  n: number;
}

export interface Box {
  label: string;
  stats: BoxStats | null;
  color: string;
}

/**
 * Horizontal box plots on a shared millisecond axis from 0: whiskers at min and max, box from q1
 * to q3, a line at the median. A config without data for the stage shows "no data".
 */
export function boxPlotSvg(title: string, boxes: readonly Box[]): string {
  const width = 520;
  const rowH = 26;
  const left = 110;
  const right = 20;
  const top = 24;
  const height = top + rowH * boxes.length + 28;
  const max = niceCeil(Math.max(0, ...boxes.map((b) => b.stats?.max ?? 0)));
  const x = (v: number): number => left + (v / max) * (width - left - right);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<title>${escapeHtml(title)}</title>`,
    `<text x="4" y="14" class="chart-title">${escapeHtml(title)}</text>`,
  ];
  const axisY = top + rowH * boxes.length + 4;
  parts.push(`<line x1="${left}" x2="${width - right}" y1="${axisY}" y2="${axisY}" class="grid"/>`);
  for (const t of [0, max / 2, max]) {
    parts.push(
      `<text x="${c(x(t))}" y="${axisY + 14}" class="tick" text-anchor="middle">${escapeHtml(trimNum(t))} ms</text>`,
    );
  }
  boxes.forEach((b, i) => {
    const cy = top + i * rowH + rowH / 2;
    parts.push(
      `<text x="${left - 6}" y="${c(cy + 4)}" class="tick" text-anchor="end">${escapeHtml(shorten(b.label))}</text>`,
    );
    const s = b.stats;
    if (s === null) {
      parts.push(`<text x="${left + 4}" y="${c(cy + 4)}" class="tick">no data</text>`);
      return;
    }
    const tip = `${b.label}: n=${s.n}, min ${trimNum(s.min)}, q1 ${trimNum(s.q1)}, median ${trimNum(s.median)}, q3 ${trimNum(s.q3)}, max ${trimNum(s.max)} ms`;
    parts.push(
      `<g><title>${escapeHtml(tip)}</title>`,
      `<line x1="${c(x(s.min))}" x2="${c(x(s.max))}" y1="${c(cy)}" y2="${c(cy)}" class="whisker"/>`,
      `<rect x="${c(x(s.q1))}" y="${c(cy - 8)}" width="${c(Math.max(1, x(s.q3) - x(s.q1)))}" height="16" fill="${b.color}" fill-opacity="0.55" stroke="${b.color}"/>`,
      `<line x1="${c(x(s.median))}" x2="${c(x(s.median))}" y1="${c(cy - 9)}" y2="${c(cy + 9)}" class="median"/></g>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}

function trimNum(x: number): string {
  return Number.isInteger(x) ? String(x) : String(Math.round(x * 1000) / 1000);
}

function shorten(label: string): string {
  return label.length > 18 ? `${label.slice(0, 17)}…` : label;
}
