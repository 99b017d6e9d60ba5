/**
 * A small randomized truncated SVD (Halko, Martinsson & Tropp 2011, algorithms 4.4 + 5.1) for the
 * embedder-candidates bench: Gaussian range finder, power iterations with re-orthonormalisation,
 * and a dense eigen-decomposition of the small ℓ×ℓ Gram matrix (cyclic Jacobi). Bench-only code.
 *
 * Dense matrices are row-major Float64Arrays with an explicit column count.
 */
import { Prng } from '../../src/quality/prng.js';

/** A linear operator A (rows × cols) applied to dense row-major blocks of ℓ columns. */
export interface LinearOperator {
  rows: number;
  cols: number;
  /** A·X, X cols×ℓ → rows×ℓ. */
  mul(x: Float64Array, l: number): Float64Array;
  /** Aᵀ·X, X rows×ℓ → cols×ℓ. */
  mulT(x: Float64Array, l: number): Float64Array;
}

/** Compressed sparse rows. */
export interface Csr {
  rows: number;
  cols: number;
  indptr: Int32Array;
  indices: Int32Array;
  values: Float64Array;
}

/** A CSR matrix as a linear operator (Aᵀ·X scatters row by row, no transposed copy). */
export function csrOperator(a: Csr): LinearOperator {
  return {
    rows: a.rows,
    cols: a.cols,
    mul(x, l) {
      const out = new Float64Array(a.rows * l);
      for (let i = 0; i < a.rows; i++) {
        const o = i * l;
        for (let p = a.indptr[i]!; p < a.indptr[i + 1]!; p++) {
          const v = a.values[p]!;
          const xo = a.indices[p]! * l;
          for (let c = 0; c < l; c++) out[o + c]! += v * x[xo + c]!;
        }
      }
      return out;
    },
    mulT(x, l) {
      const out = new Float64Array(a.cols * l);
      for (let i = 0; i < a.rows; i++) {
        const xo = i * l;
        for (let p = a.indptr[i]!; p < a.indptr[i + 1]!; p++) {
          const v = a.values[p]!;
          const o = a.indices[p]! * l;
          for (let c = 0; c < l; c++) out[o + c]! += v * x[xo + c]!;
        }
      }
      return out;
    },
  };
}

/** A dense rows×cols matrix as a linear operator (for the self-check). */
export function denseOperator(a: Float64Array, rows: number, cols: number): LinearOperator {
  return csrOperator(denseToCsr(a, rows, cols));
}

function denseToCsr(a: Float64Array, rows: number, cols: number): Csr {
  const indptr = new Int32Array(rows + 1);
  const indices: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const v = a[i * cols + j]!;
      if (v !== 0) {
        indices.push(j);
        values.push(v);
      }
    }
    indptr[i + 1] = indices.length;
  }
  return { rows, cols, indptr, indices: Int32Array.from(indices), values: Float64Array.from(values) };
}

/** XᵀX of a row-major n×l matrix (l×l, symmetric). */
export function gram(x: Float64Array, n: number, l: number): Float64Array {
  const g = new Float64Array(l * l);
  for (let i = 0; i < n; i++) {
    const o = i * l;
    for (let a = 0; a < l; a++) {
      const xa = x[o + a]!;
      if (xa === 0) continue;
      const ga = a * l;
      for (let b = a; b < l; b++) g[ga + b]! += xa * x[o + b]!;
    }
  }
  for (let a = 0; a < l; a++) for (let b = 0; b < a; b++) g[a * l + b] = g[b * l + a]!;
  return g;
}

/** X·W for row-major X (n×l) and W (l×m) → n×m. */
export function matmul(x: Float64Array, n: number, l: number, w: Float64Array, m: number): Float64Array {
  const out = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    const xo = i * l;
    const oo = i * m;
    for (let a = 0; a < l; a++) {
      const xa = x[xo + a]!;
      if (xa === 0) continue;
      const wo = a * m;
      for (let c = 0; c < m; c++) out[oo + c]! += xa * w[wo + c]!;
    }
  }
  return out;
}

/**
 * Eigen-decomposition of a symmetric n×n matrix by cyclic Jacobi rotations: returns eigenvalues
 * descending and the eigenvectors as the columns of a row-major n×n matrix. Stops when the
 * off-diagonal mass is below 1e-22 of the total (or after 60 sweeps).
 */
export function symmetricEigen(s: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(s);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  let total = 0;
  for (let i = 0; i < n * n; i++) total += a[i]! * a[i]!;
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q]! * a[p * n + q]!;
    if (off <= 1e-22 * total || off === 0) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const app = a[p * n + p]!;
        const aqq = a[q * n + q]!;
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const sn = t * c;
        // A ← Jᵀ A J on rows/columns p, q.
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = c * akp - sn * akq;
          a[k * n + q] = sn * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - sn * aqk;
          a[q * n + k] = sn * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - sn * vkq;
          v[k * n + q] = sn * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => a[j * n + j]! - a[i * n + i]!);
  const values = Float64Array.from(order, (i) => a[i * n + i]!);
  const vectors = new Float64Array(n * n);
  for (let r = 0; r < n; r++) for (const [c, i] of order.entries()) vectors[r * n + c] = v[r * n + i]!;
  return { values, vectors };
}

/**
 * Orthonormal basis of the column space of X (n×l) by SVQB (Stathopoulos & Wu 2002), twice:
 * G = XᵀX = W Λ Wᵀ, Q = X W Λ^{-1/2}, dropping directions with λ < 1e-12·λ_max (so a rank-deficient
 * X gives fewer columns rather than a failure). Returns Q and its column count.
 */
export function orthonormalize(x: Float64Array, n: number, l: number): { q: Float64Array; l: number } {
  let q = x;
  let cols = l;
  for (let pass = 0; pass < 2; pass++) {
    const { values, vectors } = symmetricEigen(gram(q, n, cols), cols);
    const max = values[0] ?? 0;
    let keep = 0;
    while (keep < cols && values[keep]! > 1e-12 * max && values[keep]! > 0) keep++;
    const w = new Float64Array(cols * keep);
    for (let r = 0; r < cols; r++)
      for (let c = 0; c < keep; c++) w[r * keep + c] = vectors[r * cols + c]! / Math.sqrt(values[c]!);
    q = matmul(q, n, cols, w, keep);
    cols = keep;
  }
  return { q, l: cols };
}

export interface TruncatedSvd {
  /** rows×k left singular vectors, row-major. */
  u: Float64Array;
  /** k singular values, descending. */
  s: Float64Array;
  /** cols×k right singular vectors, row-major. */
  v: Float64Array;
  k: number;
}

export interface RsvdOptions {
  /** Extra random directions beyond k (default 16). */
  oversample?: number;
  /** Power iterations (default 2). */
  powerIterations?: number;
  seed?: number;
}

/** Rank-k truncated SVD A ≈ U diag(s) Vᵀ by randomized range finding with power iterations. */
export function randomizedSvd(a: LinearOperator, k: number, options: RsvdOptions = {}): TruncatedSvd {
  const rng = new Prng(options.seed ?? 1);
  let l = Math.min(k + (options.oversample ?? 16), a.rows, a.cols);
  const omega = new Float64Array(a.cols * l);
  for (let i = 0; i < omega.length; i++) omega[i] = rng.normal();
  let basis = orthonormalize(a.mul(omega, l), a.rows, l);
  for (let it = 0; it < (options.powerIterations ?? 2); it++) {
    const z = orthonormalize(a.mulT(basis.q, basis.l), a.cols, basis.l);
    basis = orthonormalize(a.mul(z.q, z.l), a.rows, z.l);
  }
  l = basis.l;
  // B = Qᵀ A (l×cols); Bt = Aᵀ Q. B Bᵀ = Btᵀ Bt = W Λ Wᵀ; U = Q W, s = √λ, V = Bt W / s.
  const bt = a.mulT(basis.q, l);
  const { values, vectors } = symmetricEigen(gram(bt, a.cols, l), l);
  const kk = Math.min(k, l);
  const w = new Float64Array(l * kk);
  for (let r = 0; r < l; r++) for (let c = 0; c < kk; c++) w[r * kk + c] = vectors[r * l + c]!;
  const s = Float64Array.from({ length: kk }, (_, c) => Math.sqrt(Math.max(0, values[c]!)));
  const u = matmul(basis.q, a.rows, l, w, kk);
  const v = matmul(bt, a.cols, l, w, kk);
  for (let r = 0; r < a.cols; r++)
    for (let c = 0; c < kk; c++) v[r * kk + c] = s[c]! > 0 ? v[r * kk + c]! / s[c]! : 0;
  return { u, s, v, k: kk };
}

/**
 * Self-check of `randomizedSvd` on a synthetic matrix with known spectrum: A = P diag(σ) Rᵀ
 * (60×45, rank 12, σ_i = 2^{-i/2}, P and R random orthonormal) plus, in the second case, noise of
 * norm ~1e-3. Returns the relative reconstruction errors ‖A − U S Vᵀ‖_F / ‖A‖_F, the largest
 * relative singular-value error and ‖UᵀU − I‖_max; throws when the exact-rank case is not exact.
 */
export function rsvdSelfCheck(): { exactErr: number; noisyErr: number; sigmaErr: number; orthoErr: number } {
  const rng = new Prng(7);
  const n = 60;
  const m = 45;
  const r = 12;
  const rand = (rows: number, cols: number): Float64Array =>
    Float64Array.from({ length: rows * cols }, () => rng.normal());
  const p = orthonormalize(rand(n, r), n, r).q;
  const q = orthonormalize(rand(m, r), m, r).q;
  const sigma = Float64Array.from({ length: r }, (_, i) => 2 ** (-i / 2));
  const a = new Float64Array(n * m);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < m; j++) {
      let x = 0;
      for (let c = 0; c < r; c++) x += p[i * r + c]! * sigma[c]! * q[j * r + c]!;
      a[i * m + j] = x;
    }
  const relErr = (mat: Float64Array, svd: TruncatedSvd): number => {
    let num = 0;
    let den = 0;
    for (let i = 0; i < n; i++)
      for (let j = 0; j < m; j++) {
        let x = 0;
        for (let c = 0; c < svd.k; c++) x += svd.u[i * svd.k + c]! * svd.s[c]! * svd.v[j * svd.k + c]!;
        num += (mat[i * m + j]! - x) ** 2;
        den += mat[i * m + j]! ** 2;
      }
    return Math.sqrt(num / den);
  };
  const exact = randomizedSvd(denseOperator(a, n, m), r, { oversample: 5 });
  const exactErr = relErr(a, exact);
  let sigmaErr = 0;
  for (let c = 0; c < r; c++) sigmaErr = Math.max(sigmaErr, Math.abs(exact.s[c]! - sigma[c]!) / sigma[c]!);
  const g = gram(exact.u, n, exact.k);
  let orthoErr = 0;
  for (let i = 0; i < exact.k; i++)
    for (let j = 0; j < exact.k; j++)
      orthoErr = Math.max(orthoErr, Math.abs(g[i * exact.k + j]! - (i === j ? 1 : 0)));
  const noisy = Float64Array.from(a, (x) => x + (1e-3 * rng.normal()) / Math.sqrt(n));
  const noisyErr = relErr(noisy, randomizedSvd(denseOperator(noisy, n, m), r, { oversample: 8 }));
  if (!(exactErr < 1e-8 && sigmaErr < 1e-8 && orthoErr < 1e-8 && noisyErr < 0.01))
    throw new Error(
      `randomized SVD self-check failed: exact ${exactErr}, σ ${sigmaErr}, orthogonality ${orthoErr}, noisy ${noisyErr}`,
    );
  return { exactErr, noisyErr, sigmaErr, orthoErr };
}
