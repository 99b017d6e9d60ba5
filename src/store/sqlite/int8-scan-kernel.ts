/**
 * Internal: the WebAssembly SIMD module behind `int8-scan.ts`, encoded by hand from named opcodes
 * (`math/wasm-encode.ts`). One function over an imported memory `env.mem`; addresses are byte
 * offsets. The matrix is int8, row-major with stride `dims` (a multiple of 16, rows zero-padded);
 * the query is int8 of the same length; one int32 dot product per row goes to `out`. Products of
 * two int8 fit int16 (|p| ≤ 16,384) and a row's sum fits int32 for any `dims` below 131,072, so the
 * result is exact integer arithmetic, whatever the order:
 *
 *   (func (export "dots8") (param $q i32) (param $m i32) (param $rows i32) (param $dims i32) (param $out i32)
 *     $p = $m
 *     block $none  br_if $none ($rows == 0)
 *     loop $row
 *       $acc = i32x4(0) ; $pq = $q ; $end = $p + $dims
 *       block  loop                                 ;; sixteen dimensions at a time
 *         br_if 1 ($p >= $end)
 *         $x = load($p) ; $y = load($pq)
 *         $acc += extadd_pairwise_s(extmul_low_s($x, $y))
 *         $acc += extadd_pairwise_s(extmul_high_s($x, $y))
 *         $p += 16 ; $pq += 16 ; br 0
 *       end  end
 *       i32 [$out] = lane0($acc) + lane1($acc) + lane2($acc) + lane3($acc)
 *       $out += 4 ; $r += 1
 *       br_if $row ($r < $rows)
 *     end
 *     end)
 *
 * Not re-exported.
 */
import { code, I32, MAGIC, name, op, section, V128 } from '../../math/wasm-encode.js';

/** `dots8(q, m, rows, dims, out)`: locals after the 5 parameters: 4 × i32, 3 × v128. */
function dots8Body(): number[] {
  const [Q, M, ROWS, DIMS, OUT] = [0, 1, 2, 3, 4] as const;
  const [R, P, PQ, END] = [5, 6, 7, 8] as const;
  const [ACC, X, Y] = [9, 10, 11] as const;
  const half = (extmul: number[]) => [
    ...op.get(ACC),
    ...op.get(X), ...op.get(Y), ...extmul, ...op.i32x4ExtaddPairwiseI16x8S,
    ...op.i32x4Add, ...op.set(ACC),
  ]; // prettier-ignore
  // prettier-ignore
  return [
    2, 4, I32, 3, V128,
    ...op.get(M), ...op.set(P),
    ...op.block, // no rows: nothing to do
    ...op.get(ROWS), ...op.i32Eqz, ...op.brIf(0),
    ...op.loop, // rows
    ...op.v128Zero, ...op.set(ACC),
    ...op.get(Q), ...op.set(PQ),
    ...op.get(P), ...op.get(DIMS), ...op.i32Add, ...op.set(END),
    ...op.block, ...op.loop, // sixteen dimensions at a time
    ...op.get(P), ...op.get(END), ...op.i32GeU, ...op.brIf(1),
    ...op.get(P), ...op.v128Load, ...op.set(X),
    ...op.get(PQ), ...op.v128Load, ...op.set(Y),
    ...half(op.i16x8ExtmulLowI8x16S),
    ...half(op.i16x8ExtmulHighI8x16S),
    ...op.get(P), ...op.i32(16), ...op.i32Add, ...op.set(P),
    ...op.get(PQ), ...op.i32(16), ...op.i32Add, ...op.set(PQ),
    ...op.br(0),
    ...op.end, ...op.end,
    ...op.get(OUT),
    ...op.get(ACC), ...op.i32x4Lane(0), ...op.get(ACC), ...op.i32x4Lane(1), ...op.i32Add,
    ...op.get(ACC), ...op.i32x4Lane(2), ...op.i32Add, ...op.get(ACC), ...op.i32x4Lane(3), ...op.i32Add,
    ...op.i32Store(0),
    ...op.get(OUT), ...op.i32(4), ...op.i32Add, ...op.set(OUT),
    ...op.get(R), ...op.i32(1), ...op.i32Add, ...op.set(R),
    ...op.get(R), ...op.get(ROWS), ...op.i32LtU, ...op.brIf(0),
    ...op.end, // rows
    ...op.end, // block
    ...op.end, // function
  ];
}

/** The whole module: one type (i32 ×5) → (), the imported memory `env.mem`, the exported `dots8`. */
export function int8KernelBytes(): Uint8Array<ArrayBuffer> {
  return new Uint8Array([
    ...MAGIC,
    ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]),
    ...section(2, [1, ...name('env'), ...name('mem'), 0x02, 0x00, 0x00]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('dots8'), 0x00, 0]),
    ...section(10, [1, ...code(dots8Body())]),
  ]);
}
