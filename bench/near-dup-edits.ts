// Near-duplicate pairs for embedder geometry: a passage and a lightly edited copy (a sentence
// dropped, two words swapped, a number changed) or an unrelated passage. Shared by
// bench/embedders.ts and bench/embedder-candidates.ts so both measure the same pairs.
import { Prng } from '../src/quality/prng.js';

/** Passage length the edits aim at, in characters (one chunk). */
const CHUNK = 512;

export const sentencesOf = (text: string): string[] => text.split(/(?<=[.!?])\s+(?=[A-Z(])/);

/** Leading sentences of an abstract up to ~512 characters (at least 3 sentences), or undefined. */
export function passageOf(text: string): string[] | undefined {
  const out: string[] = [];
  let len = 0;
  for (const s of sentencesOf(text)) {
    if (len + s.length > CHUNK + 64 && out.length >= 3) break;
    out.push(s);
    len += s.length + 1;
    if (len >= CHUNK - 64 && out.length >= 3) break;
  }
  return out.length >= 3 && len >= 300 ? out : undefined;
}

export interface Edits {
  drop: [string, string][];
  swap: [string, string][];
  number: [string, string][];
  far: [string, string][];
}

export function makeEdits(docs: readonly { text: string }[], n: number): Edits {
  const rng = new Prng(42);
  const passages: string[][] = [];
  for (const d of docs) {
    const p = passageOf(d.text);
    if (p !== undefined) passages.push(p);
    if (passages.length >= n) break;
  }
  const edits: Edits = { drop: [], swap: [], number: [], far: [] };
  for (const [i, p] of passages.entries()) {
    const text = p.join(' ');
    const drop = rng.int(p.length);
    edits.drop.push([text, p.filter((_, j) => j !== drop).join(' ')]);
    const ws = text.split(' ');
    const a = rng.int(ws.length);
    let b = rng.int(ws.length - 1);
    if (b >= a) b++;
    [ws[a], ws[b]] = [ws[b]!, ws[a]!];
    edits.swap.push([text, ws.join(' ')]);
    const nums = [...text.matchAll(/\d+/g)];
    if (nums.length > 0) {
      const m = nums[rng.int(nums.length)]!;
      const changed = String(Number(m[0]) + 1 + rng.int(9));
      edits.number.push([text, text.slice(0, m.index) + changed + text.slice(m.index + m[0].length)]);
    }
    const j = (i + 1 + rng.int(passages.length - 1)) % passages.length;
    edits.far.push([text, passages[j]!.join(' ')]);
  }
  return edits;
}

/** Linear-interpolated quantile (q in 0..1); empty → NaN. */
export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}
