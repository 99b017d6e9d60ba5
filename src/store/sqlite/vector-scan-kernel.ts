/**
 * Internal: the WebAssembly SIMD module behind `vector-scan.ts`, encoded by hand from named opcodes
 * (`math/wasm-encode.ts`). One function over an imported memory `env.mem`; every address is a byte
 * offset. The matrix is float32, row-major with stride `dims` (rows need not be 16-byte aligned);
 * the query is float64 (the float32 query widened once), at a 16-byte aligned address; one float64
 * score per row goes to `out`. Each float32 is widened to float64 before it is multiplied, so every
 * product is exact (24 + 24 significant bits) and only the additions round:
 *
 *   (func (export "dots") (param $q i32) (param $m i32) (param $rows i32) (param $dims i32) (param $out i32)
 *     $rb = $dims * 4 ; $b8 = ($dims & ~7) * 4 ; $a = $m
 *     block $none  br_if $none ($rows == 0)
 *     loop $row
 *       $s0 = $s1 = $s2 = $s3 = f64x2(0) ; $p = $a ; $pq = $q ; $end8 = $a + $b8 ; $end = $a + $rb
 *       block  loop                              ;; dimensions t .. t+7
 *         br_if 1 ($p >= $end8)
 *         $s0 += promote_low(load64_zero($p + 0))  * load($pq + 0)   ;; lanes t, t+1
 *         $s1 += promote_low(load64_zero($p + 8))  * load($pq + 16)  ;; lanes t+2, t+3
 *         $s2 += promote_low(load64_zero($p + 16)) * load($pq + 32)  ;; lanes t+4, t+5
 *         $s3 += promote_low(load64_zero($p + 24)) * load($pq + 48)  ;; lanes t+6, t+7
 *         $p += 32 ; $pq += 64 ; br 0
 *       end  end
 *       $rest = 0
 *       block  loop                              ;; the last dims mod 8 dimensions, one at a time
 *         br_if 1 ($p >= $end)
 *         $rest += f64(f32 [$p]) * f64 [$pq] ; $p += 4 ; $pq += 8 ; br 0
 *       end  end
 *       $s0 = ($s0 + $s1) + ($s2 + $s3)
 *       f64 [$out] = (lane0($s0) + lane1($s0)) + $rest
 *       $out += 8 ; $a = $end ; $r += 1
 *       br_if $row ($r < $rows)
 *     end
 *     end)
 *
 * So with e_k = Σ over t ≡ k (mod 8), t < dims & ~7, of q_t·x_t (each left to right), a row's score
 * is `(((e0 + e2) + (e4 + e6)) + ((e1 + e3) + (e5 + e7))) + rest`, rest being the tail left to right;
 * `dotsJs` in `vector-scan.ts` reproduces it bit for bit. Not re-exported.
 */
import { code, F64, I32, MAGIC, name, op, section, V128 } from '../../math/wasm-encode.js';

/** `dst = x + y` on i32 locals. */
const addTo = (dst: number, x: number, y: number) => [
  ...op.get(x),
  ...op.get(y),
  ...op.i32Add,
  ...op.set(dst),
];
/** `local += step` on an i32 local. */
const bump = (local: number, step: number) => [
  ...op.get(local),
  ...op.i32(step),
  ...op.i32Add,
  ...op.set(local),
];
/** `br_if depth (a >= b)` on i32 locals (unsigned). */
const exitIfGe = (a: number, b: number, depth: number) => [
  ...op.get(a),
  ...op.get(b),
  ...op.i32GeU,
  ...op.brIf(depth),
];
/** `s += promote_low(load64_zero(p + pOff)) * load(pq + qOff)` on v128 locals. */
const madd = (s: number, p: number, pOff: number, pq: number, qOff: number) => [
  ...op.get(s),
  ...op.get(p), ...op.v128Load64Zero(pOff), ...op.f64x2PromoteLowF32x4,
  ...op.get(pq), ...op.v128LoadAt(qOff),
  ...op.f64x2Mul, ...op.f64x2Add, ...op.set(s),
]; // prettier-ignore

/** `dots(q, m, rows, dims, out)`: locals after the 5 parameters: 8 × i32, 4 × v128, 1 × f64. */
function dotsBody(): number[] {
  const [Q, M, ROWS, DIMS, OUT] = [0, 1, 2, 3, 4] as const;
  const [R, RB, B8, A, P, PQ, END8, END] = [5, 6, 7, 8, 9, 10, 11, 12] as const;
  const [S0, S1, S2, S3] = [13, 14, 15, 16] as const;
  const REST = 17;
  const v2 = (a: number, b: number, f: number[]) => [...op.get(a), ...op.get(b), ...f]; // push a ∘ b
  // prettier-ignore
  return [
    3, 8, I32, 4, V128, 1, F64,
    ...op.get(DIMS), ...op.i32(2), ...op.i32Shl, ...op.set(RB),
    ...op.get(DIMS), ...op.i32(-8), ...op.i32And, ...op.i32(2), ...op.i32Shl, ...op.set(B8),
    ...op.get(M), ...op.set(A),
    ...op.block, // no rows: nothing to do
    ...op.get(ROWS), ...op.i32Eqz, ...op.brIf(0),
    ...op.loop, // rows
    ...[S0, S1, S2, S3].flatMap((s) => [...op.v128Zero, ...op.set(s)]),
    ...op.get(A), ...op.set(P), ...op.get(Q), ...op.set(PQ),
    ...addTo(END8, A, B8), ...addTo(END, A, RB),
    ...op.block, ...op.loop, // eight dimensions at a time
    ...exitIfGe(P, END8, 1),
    ...madd(S0, P, 0, PQ, 0), ...madd(S1, P, 8, PQ, 16), ...madd(S2, P, 16, PQ, 32), ...madd(S3, P, 24, PQ, 48),
    ...bump(P, 32), ...bump(PQ, 64), ...op.br(0),
    ...op.end, ...op.end,
    ...op.f64Zero, ...op.set(REST),
    ...op.block, ...op.loop, // the tail, one dimension at a time
    ...exitIfGe(P, END, 1),
    ...op.get(REST),
    ...op.get(P), ...op.f32Load(0), ...op.f64PromoteF32, ...op.get(PQ), ...op.f64Load(0), ...op.f64Mul,
    ...op.f64Add, ...op.set(REST),
    ...bump(P, 4), ...bump(PQ, 8), ...op.br(0),
    ...op.end, ...op.end,
    ...v2(S0, S1, op.f64x2Add), ...v2(S2, S3, op.f64x2Add), ...op.f64x2Add, ...op.set(S0),
    ...op.get(OUT),
    ...op.get(S0), ...op.f64x2Lane(0), ...op.get(S0), ...op.f64x2Lane(1), ...op.f64Add,
    ...op.get(REST), ...op.f64Add,
    ...op.f64Store(0),
    ...bump(OUT, 8), ...op.get(END), ...op.set(A), ...bump(R, 1),
    ...op.get(R), ...op.get(ROWS), ...op.i32LtU, ...op.brIf(0),
    ...op.end, // rows
    ...op.end, // block
    ...op.end, // function
  ];
}

/** The whole module: one type (i32 ×5) → (), the imported memory `env.mem`, the exported `dots`. */
export function scanKernelBytes(): Uint8Array<ArrayBuffer> {
  return new Uint8Array([
    ...MAGIC,
    ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]),
    ...section(2, [1, ...name('env'), ...name('mem'), 0x02, 0x00, 0x00]), // import memory, min 0 pages
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('dots'), 0x00, 0]),
    ...section(10, [1, ...code(dotsBody())]),
  ]);
}
