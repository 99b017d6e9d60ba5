/**
 * The Embedder contract: one vitest suite every implementation runs (`runEmbedderContract(name,
 * make)` from its own test file). `make` is called per test, so implementations must give equal
 * vectors for equal texts across instances with the same options.
 */
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { norm } from '../math/vector.js';
import type { Embedder } from './embedder.js';

const TEXTS = [
  'Cerebral white matter develops rapidly in preterm infants.',
  'The mitochondrial membrane potential collapses during apoptosis.',
  'Vitamin D supplementation did not reduce fracture risk in older adults.',
];

export function runEmbedderContract(name: string, make: () => Promise<Embedder>): void {
  describe(`Embedder contract: ${name}`, () => {
    it('returns one vector per text, each of length dims', async () => {
      const e = await make();
      expect(Number.isInteger(e.dims) && e.dims > 0).toBe(true);
      const vs = await e.embed(TEXTS);
      expect(vs).toHaveLength(TEXTS.length);
      for (const v of vs) {
        expect(v).toBeInstanceOf(Float32Array);
        expect(v).toHaveLength(e.dims);
      }
    });

    it('returns unit vectors for text and a zero vector for empty or blank text', async () => {
      const e = await make();
      const vs = await e.embed([...TEXTS, '', '   \n\t']);
      for (const v of vs.slice(0, TEXTS.length)) expect(norm(v)).toBeCloseTo(1, 5);
      for (const v of vs.slice(TEXTS.length)) {
        expect(v).toHaveLength(e.dims);
        expect(v.every((x) => x === 0)).toBe(true);
      }
    });

    it('is deterministic: the same text twice, in one call or two, gives identical vectors', async () => {
      const e = await make();
      const [a, b] = await e.embed([TEXTS[0]!, TEXTS[0]!]);
      const [c] = await (await make()).embed([TEXTS[0]!]);
      expect(Array.from(a!)).toEqual(Array.from(b!));
      expect(Array.from(a!)).toEqual(Array.from(c!));
    });

    it('does not depend on input order', async () => {
      const e = await make();
      const [a, b] = await e.embed([TEXTS[0]!, TEXTS[1]!]);
      const [b2, a2] = await e.embed([TEXTS[1]!, TEXTS[0]!]);
      expect(Array.from(a2!)).toEqual(Array.from(a!));
      expect(Array.from(b2!)).toEqual(Array.from(b!));
      expect(Array.from(a!)).not.toEqual(Array.from(b!));
    });

    it('returns [] for no texts', async () => {
      const e = await make();
      expect(await e.embed([])).toEqual([]);
    });

    it('rejects with ABORTED when the signal is already aborted', async () => {
      const e = await make();
      const ac = new AbortController();
      ac.abort(new Error('stop'));
      const err: unknown = await e.embed(TEXTS, { signal: ac.signal }).catch((x: unknown) => x);
      expect(isQuiverError(err, 'ABORTED')).toBe(true);
    });

    it('reports progress ending at (total, total)', async () => {
      const e = await make();
      const seen: [number, number][] = [];
      await e.embed(TEXTS, { onProgress: (done, total) => seen.push([done, total]) });
      expect(seen.at(-1)).toEqual([TEXTS.length, TEXTS.length]);
      for (let i = 1; i < seen.length; i++) expect(seen[i]![0]).toBeGreaterThanOrEqual(seen[i - 1]![0]);
    });

    it('has a stable, non-empty id that names its dims', async () => {
      const a = await make();
      const b = await make();
      expect(a.id).toBe(b.id);
      expect(a.id).toMatch(/\S/);
      expect(a.id.split(':')).toContain(String(a.dims));
      await a.embed(TEXTS);
      expect(a.id).toBe(b.id);
    });

    it("declares its similarity as 'surface', 'semantic' or not at all", async () => {
      expect([undefined, 'surface', 'semantic']).toContain((await make()).similarity);
    });
  });
}
