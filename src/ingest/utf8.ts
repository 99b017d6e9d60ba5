/**
 * Where UTF-8 goes wrong: a byte-exact validator, used to name the offset of the first bad byte
 * when a fatal `TextDecoder` refuses a chunk (the decoder itself says only that something failed).
 */

/**
 * Index of the first byte of the first ill-formed UTF-8 sequence in `bytes`, or -1 when there is
 * none. Well-formed means the Unicode Standard's table 3-7: no overlong forms (C0, C1, E0 80–9F,
 * F0 80–8F), no surrogates (ED A0–BF), nothing above U+10FFFF (F4 90–, F5–FF), no stray
 * continuation bytes. A sequence cut off by the end of `bytes` is ill-formed only when `final`
 * (more bytes may follow otherwise). Empty input → -1.
 *
 * @example invalidUtf8Offset(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), true) // 3
 */
export function invalidUtf8Offset(bytes: Uint8Array, final: boolean): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let len: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) len = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      len = 3;
      if (b === 0xe0) lo = 0xa0;
      else if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      len = 4;
      if (b === 0xf0) lo = 0x90;
      else if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k < len; k++) {
      if (i + k >= n) return final ? i : -1;
      const c = bytes[i + k]!;
      if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += len;
  }
  return -1;
}
