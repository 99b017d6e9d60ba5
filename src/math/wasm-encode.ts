/**
 * Internal: the few pieces needed to encode small WebAssembly modules by hand (no build step, no
 * dependency): LEB128 integers, named opcodes (the SIMD ones included), value types and the module
 * framing. Used by the hand-written SIMD kernels (`retrieve/select/_gram-kernel.ts`,
 * `store/sqlite/vector-scan-kernel.ts`, `store/sqlite/int8-scan-kernel.ts`). Each kernel documents
 * its own code as WAT beside it.
 */

/** Value types. */
export const I32 = 0x7f;
export const F64 = 0x7c;
export const V128 = 0x7b;

/**
 * Opcodes as byte arrays, spread into a function body. A memory access takes `memarg` = (log2
 * alignment, byte offset); the alignment is a hint, any address works.
 */
export const op = {
  block: [0x02, 0x40], // block with an empty block type
  loop: [0x03, 0x40], // loop with an empty block type
  if: [0x04, 0x40],
  end: [0x0b],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
  get: (l: number) => [0x20, l],
  set: (l: number) => [0x21, l],
  tee: (l: number) => [0x22, l],
  f32Load: (offset: number) => [0x2a, 2, ...uleb(offset)], // align 2^2
  f64Load: (offset: number) => [0x2b, 3, ...uleb(offset)], // align 2^3
  i32: (v: number) => [0x41, ...sleb(v)],
  f64Zero: [0x44, 0, 0, 0, 0, 0, 0, 0, 0],
  i32Eqz: [0x45],
  i32LtU: [0x49],
  i32GeU: [0x4f],
  f64Gt: [0x64],
  i32Add: [0x6a],
  i32Mul: [0x6c],
  i32And: [0x71],
  i32Shl: [0x74],
  f64Sqrt: [0x9f],
  f64Add: [0xa0],
  f64Mul: [0xa2],
  f64PromoteF32: [0xbb],
  f64Store: (offset: number) => [0x39, 3, ...uleb(offset)], // align 2^3
  v128Load: [0xfd, 0x00, 4, 0], // align 2^4, offset 0
  v128LoadAt: (offset: number) => [0xfd, 0x00, 4, ...uleb(offset)], // align 2^4
  v128Load64Zero: (offset: number) => [0xfd, 0x5d, 2, ...uleb(offset)], // 8 bytes, align 2^2
  v128Store: [0xfd, 0x0b, 4, 0],
  v128Zero: [0xfd, 0x0c, ...new Array<number>(16).fill(0)],
  f64x2Splat: [0xfd, 0x14],
  f64x2Lane: (lane: number) => [0xfd, 0x21, lane],
  f64x2PromoteLowF32x4: [0xfd, 0x5f],
  f64x2Add: [0xfd, 0xf0, 0x01],
  f64x2Mul: [0xfd, 0xf2, 0x01],
  f64x2Div: [0xfd, 0xf3, 0x01],
  i32Store: (offset: number) => [0x36, 2, ...uleb(offset)], // align 2^2
  i32x4Lane: (lane: number) => [0xfd, 0x1b, lane],
  i32x4Add: [0xfd, 0xae, 0x01],
  i32x4ExtaddPairwiseI16x8S: [0xfd, 0x7e],
  i16x8ExtmulLowI8x16S: [0xfd, 0x9c, 0x01],
  i16x8ExtmulHighI8x16S: [0xfd, 0x9d, 0x01],
};

/** A name (import module, field, export): length-prefixed ASCII. */
export const name = (s: string): number[] => [s.length, ...Array.from(s, (ch) => ch.charCodeAt(0))];
/** A section: id, byte length, content. */
export const section = (id: number, content: number[]): number[] => [id, ...uleb(content.length), ...content];
/** A function body in the code section: byte length, then locals and code. */
export const code = (body: number[]): number[] => [...uleb(body.length), ...body];
/** The module header: "\0asm", version 1. */
export const MAGIC = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

/** Unsigned LEB128 of a non-negative 32-bit integer. */
export function uleb(v: number): number[] {
  const out: number[] = [];
  do {
    const byte = v & 0x7f;
    v >>>= 7;
    out.push(v === 0 ? byte : byte | 0x80);
  } while (v !== 0);
  return out;
}

/** Signed LEB128 of a 32-bit integer. */
export function sleb(v: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/**
 * A module compiled on first use and kept: `get()` compiles `bytes()` once, or gives null when
 * this runtime cannot (no WebAssembly, or no SIMD: the module does not validate), so callers fall
 * back to their JS twins.
 */
export function compiledOnce(bytes: () => Uint8Array<ArrayBuffer>): () => WebAssembly.Module | null {
  let compiled: WebAssembly.Module | null | undefined;
  return () => {
    if (compiled === undefined) {
      const b = bytes();
      compiled =
        typeof WebAssembly === 'object' && WebAssembly.validate(b) ? new WebAssembly.Module(b) : null;
    }
    return compiled;
  };
}
