// Query latency at top 10 with the systems interleaved in one process: for each query every system
// runs once, in an order rotated per query, so drifts of the machine spread over all of them.

export interface Timed {
  name: string;
  search(query: string, k: number): Promise<unknown>;
}

/** Latency depth: what a person asks for. */
export const LATENCY_DEPTH = 10;

function rotated<T>(xs: readonly T[], by: number): T[] {
  const s = xs.length === 0 ? 0 : by % xs.length;
  return [...xs.slice(s), ...xs.slice(0, s)];
}

/**
 * Milliseconds per timed query for each system (by name), after one untimed pass over `warmup`. A
 * system whose search throws is dropped from the pass and reported in `errors`.
 */
export async function interleavedLatency(
  systems: readonly Timed[],
  warmup: readonly string[],
  timed: readonly string[],
): Promise<{ times: Map<string, number[]>; errors: Map<string, string> }> {
  const times = new Map<string, number[]>(systems.map((s) => [s.name, []]));
  const errors = new Map<string, string>();
  const run = async (s: Timed, q: string): Promise<number | null> => {
    if (errors.has(s.name)) return null;
    const t = performance.now();
    try {
      await s.search(q, LATENCY_DEPTH);
    } catch (e) {
      errors.set(s.name, e instanceof Error ? e.message : String(e));
      return null;
    }
    return performance.now() - t;
  };
  for (const [i, q] of warmup.entries()) for (const s of rotated(systems, i)) await run(s, q);
  for (const [i, q] of timed.entries()) {
    for (const s of rotated(systems, i)) {
      const ms = await run(s, q);
      if (ms !== null) times.get(s.name)!.push(ms);
    }
  }
  return { times, errors };
}
