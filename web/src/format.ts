/** Small display helpers. Pure. */
import type { MeasurementJson, Pages } from './wire.js';

/** `p. 3` or `pp. 3–5`, or '' for a source without pages. */
export function pagesLabel(pages: Pages): string {
  if (pages === null) return '';
  return pages[0] === pages[1] ? `p. ${pages[0]}` : `pp. ${pages[0]}–${pages[1]}`;
}

/** A 0-based rank as a person counts it (`#1`), or `—` when absent. */
export function rankLabel(rank: number | null): string {
  return rank === null ? '—' : `#${rank + 1}`;
}

/** A measurement's value as a percentage, or `Undefined`. */
export function measurementLabel(m: MeasurementJson): string {
  return m.value === null ? 'Undefined' : `${Math.round(m.value * 100)}%`;
}

/** Milliseconds as `850 ms` or `1.2 s`. */
export function msLabel(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
