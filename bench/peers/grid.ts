// The option grids the peers are tuned over (on the SciFact tuning queries).

/** Title boosts tried for every library that weights fields. */
export const TITLE_BOOSTS = [1, 2, 3] as const;

/** BM25 parameters tried where a library exposes them: its own defaults, then Anserini's. */
export type Bm25Choice = 'library defaults' | { k1: number; b: number };
export const BM25_CHOICES: readonly Bm25Choice[] = ['library defaults', { k1: 0.9, b: 0.4 }];

export function describeBm25(c: Bm25Choice): string {
  return c === 'library defaults' ? 'BM25 library defaults' : `BM25 k1 ${c.k1}, b ${c.b}`;
}

/** Every combination of the given option lists, the first list varying slowest. */
export function product<T extends readonly unknown[]>(...lists: { [K in keyof T]: readonly T[K][] }): T[] {
  let out: unknown[][] = [[]];
  for (const list of lists as readonly (readonly unknown[])[])
    out = out.flatMap((prefix) => list.map((x) => [...prefix, x]));
  return out as unknown as T[];
}
