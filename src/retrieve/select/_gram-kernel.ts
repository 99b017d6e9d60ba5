/**
 * Internal: the WebAssembly SIMD module behind `_gram.ts`, encoded by hand (no build step, no
 * dependency). Two functions over an imported memory `env.mem`, both in float64 (`v128` holds two
 * f64 lanes; every address is a byte offset; `ds` is even, so rows are 16-byte aligned):
 *
 *   (func (export "normalize") (param $u i32) (param $rows i32) (param $ds i32)
 *     $rb = $ds * 8
 *     do { ;; row r
 *       $a = $u + $r*$rb ; $acc = 0 ; $t = 0
 *       do { $x = load($a+$t) ; $acc += $x*$x ; $t += 16 } while ($t < $rb)
 *       $norm = sqrt(lane0($acc) + lane1($acc))
 *       if ($norm > 0) { $t = 0 ; do { [$a+$t] = load($a+$t) / splat($norm) ; $t += 16 } while ($t < $rb) }
 *       $r += 1
 *     } while ($r < $rows))
 *
 *   (func (export "gram") (param $u i32) (param $np i32) (param $ds i32) (param $g i32)
 *     $rb = $ds * 8
 *     do { ;; rows i, i+1
 *       $a0 = $u + $i*$rb ; $a1 = $a0 + $rb ; $j = $i & ~3
 *       do { ;; columns j..j+3: a 2×4 block of f64x2 accumulators s_rc
 *         $b0 = $u + $j*$rb ; $b1 = $b0 + $rb ; $b2 = … ; $b3 = … ; s_rc = 0 ; $t = 0
 *         do {
 *           $x0 = load($a0+$t) ; $x1 = load($a1+$t)
 *           for c in 0..3: $y = load($bc+$t) ; s_0c += $x0*$y ; s_1c += $x1*$y
 *           $t += 16
 *         } while ($t < $rb)
 *         $o = $g + ($i*$np + $j)*8
 *         for c in 0..3: f64 [$o + 8c] = lane0(s_0c) + lane1(s_0c)
 *         $o += $np*8
 *         for c in 0..3: f64 [$o + 8c] = lane0(s_1c) + lane1(s_1c)
 *         $j += 4
 *       } while ($j < $np)
 *       $i += 2
 *     } while ($i < $np))
 *
 * So every sum is `(Σ over even t) + (Σ over odd t)`, each half left to right, which the JS twin
 * in `_gram.ts` reproduces bit for bit. In `gram`, entries left of the diagonal in a block (j < i)
 * are computed and ignored; `np` is a multiple of 4, so row i+1 always exists. Not re-exported.
 */

import { code, F64, I32, MAGIC, name, op, section, V128 } from '../../math/wasm-encode.js';

/** `dst = x + y` on i32 locals. */
const addTo = (dst: number, x: number, y: number) => [
  ...op.get(x),
  ...op.get(y),
  ...op.i32Add,
  ...op.set(dst),
];
/** `dst = base + index * stride` on i32 locals. */
const mulAdd = (dst: number, base: number, index: number, stride: number) => [
  ...op.get(base), ...op.get(index), ...op.get(stride), ...op.i32Mul, ...op.i32Add, ...op.set(dst),
]; // prettier-ignore
/** `dst = ds * 8`: row bytes. */
const rowBytes = (dst: number, ds: number) => [...op.get(ds), ...op.i32(3), ...op.i32Shl, ...op.set(dst)];
/** Pushes `v128 at (base + t)`. */
const load = (base: number, t: number) => [...op.get(base), ...op.get(t), ...op.i32Add, ...op.v128Load];
/** `s += x * y` on v128 locals. */
const madd = (s: number, x: number, y: number) => [
  ...op.get(s), ...op.get(x), ...op.get(y), ...op.f64x2Mul, ...op.f64x2Add, ...op.set(s),
]; // prettier-ignore
/** Pushes `lane0(s) + lane1(s)`. */
const laneSum = (s: number) => [
  ...op.get(s),
  ...op.f64x2Lane(0),
  ...op.get(s),
  ...op.f64x2Lane(1),
  ...op.f64Add,
];
/** `local += step; br_if 0 (local < limit)`: the tail of a do-while loop. */
const stepWhile = (local: number, step: number, limit: number) => [
  ...op.get(local), ...op.i32(step), ...op.i32Add, ...op.set(local),
  ...op.get(local), ...op.get(limit), ...op.i32LtU, ...op.brIf(0),
]; // prettier-ignore

/** `normalize(u, rows, ds)`: locals after the 3 parameters: 4 × i32, 3 × v128, 1 × f64. */
function normalizeBody(): number[] {
  const [U, ROWS, DS, R, RB, A, T, ACC, X, VN, NORM] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;
  // prettier-ignore
  return [
    3, 4, I32, 3, V128, 1, F64,
    ...rowBytes(RB, DS),
    ...op.loop, // rows
    ...mulAdd(A, U, R, RB),
    ...op.v128Zero, ...op.set(ACC), ...op.i32(0), ...op.set(T),
    ...op.loop, // sum of squares, two lanes
    ...load(A, T), ...op.set(X), ...madd(ACC, X, X),
    ...stepWhile(T, 16, RB),
    ...op.end,
    ...laneSum(ACC), ...op.f64Sqrt, ...op.set(NORM),
    ...op.get(NORM), ...op.f64Zero, ...op.f64Gt,
    ...op.if,
    ...op.get(NORM), ...op.f64x2Splat, ...op.set(VN), ...op.i32(0), ...op.set(T),
    ...op.loop, // divide
    ...op.get(A), ...op.get(T), ...op.i32Add, ...load(A, T), ...op.get(VN), ...op.f64x2Div, ...op.v128Store,
    ...stepWhile(T, 16, RB),
    ...op.end,
    ...op.end, // if
    ...stepWhile(R, 1, ROWS),
    ...op.end,
    ...op.end, // function
  ];
}

/** `gram(u, np, ds, g)`: locals after the 4 parameters: 11 × i32, 11 × v128. */
function gramBody(): number[] {
  const [U, NP, DS, G, I, J, T, RB, A0, A1, O] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;
  const B = [11, 12, 13, 14] as const;
  const S0 = [15, 16, 17, 18] as const; // accumulators of row i
  const S1 = [19, 20, 21, 22] as const; // accumulators of row i+1
  const [X0, X1, Y] = [23, 24, 25] as const;
  /** `f64[o + 8c] = lane0(s) + lane1(s)` for each accumulator s of a row. */
  const storeRow = (S: readonly number[]) =>
    S.flatMap((s, c) => [...op.get(O), ...laneSum(s), ...op.f64Store(8 * c)]);
  // prettier-ignore
  return [
    2, 11, I32, 11, V128,
    ...rowBytes(RB, DS),
    ...op.loop, // rows i, i+1
    ...mulAdd(A0, U, I, RB), ...addTo(A1, A0, RB),
    ...op.get(I), ...op.i32(-4), ...op.i32And, ...op.set(J),
    ...op.loop, // column blocks j..j+3
    ...mulAdd(B[0], U, J, RB), ...addTo(B[1], B[0], RB), ...addTo(B[2], B[1], RB), ...addTo(B[3], B[2], RB),
    ...[...S0, ...S1].flatMap((s) => [...op.v128Zero, ...op.set(s)]),
    ...op.i32(0), ...op.set(T),
    ...op.loop, // dimensions, two at a time
    ...load(A0, T), ...op.set(X0), ...load(A1, T), ...op.set(X1),
    ...B.flatMap((b, c) => [...load(b, T), ...op.set(Y), ...madd(S0[c]!, X0, Y), ...madd(S1[c]!, X1, Y)]),
    ...stepWhile(T, 16, RB),
    ...op.end,
    // o = g + (i*np + j)*8
    ...op.get(G), ...op.get(I), ...op.get(NP), ...op.i32Mul, ...op.get(J), ...op.i32Add,
    ...op.i32(3), ...op.i32Shl, ...op.i32Add, ...op.set(O),
    ...storeRow(S0),
    ...op.get(O), ...op.get(NP), ...op.i32(3), ...op.i32Shl, ...op.i32Add, ...op.set(O),
    ...storeRow(S1),
    ...stepWhile(J, 4, NP),
    ...op.end,
    ...stepWhile(I, 2, NP),
    ...op.end,
    ...op.end, // function
  ];
}

/** The whole module: two types, the imported memory `env.mem`, and the two exported functions. */
export function kernelBytes(): Uint8Array<ArrayBuffer> {
  return new Uint8Array([
    ...MAGIC,
    ...section(1, [2, 0x60, 3, I32, I32, I32, 0, 0x60, 4, I32, I32, I32, I32, 0]), // (i32 ×3) → (), (i32 ×4) → ()
    ...section(2, [1, ...name('env'), ...name('mem'), 0x02, 0x00, 0x00]), // import memory, min 0 pages
    ...section(3, [2, 0, 1]), // function 0 has type 0, function 1 type 1
    ...section(7, [2, ...name('normalize'), 0x00, 0, ...name('gram'), 0x00, 1]),
    ...section(10, [2, ...code(normalizeBody()), ...code(gramBody())]),
  ]);
}
