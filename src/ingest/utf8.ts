/**
 * Where UTF-8 goes wrong: a byte-exact validator, used to name the offset of the first bad byte
 * when a fatal `TextDecoder` refuses a chunk (the decoder itself says only that something failed).
 */

/**
 * Each byte as a lead byte (table 3-7), packed as len | lo << 4 | hi << 12: the sequence length
 * (2–4) and the allowed range of the first continuation byte; 0 for a byte that cannot lead.
 */
const LEAD = (() => {
  const t = new Uint32Array(256);
  const pack = (len: number, lo = 0x80, hi = 0xbf) => len | (lo << 4) | (hi << 12);
  for (let b = 0xc2; b <= 0xdf; b++) t[b] = pack(2);
  for (let b = 0xe0; b <= 0xef; b++) t[b] = pack(3, b === 0xe0 ? 0xa0 : 0x80, b === 0xed ? 0x9f : 0xbf);
  for (let b = 0xf0; b <= 0xf4; b++) t[b] = pack(4, b === 0xf0 ? 0x90 : 0x80, b === 0xf4 ? 0x8f : 0xbf);
  return t;
})();

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
    const lead = LEAD[b]!;
    if (lead === 0) return i;
    const len = lead & 0xf;
    const lo = (lead >> 4) & 0xff;
    const hi = lead >> 12;
    for (let k = 1; k < len; k++) {
      if (i + k >= n) return final ? i : -1;
      const c = bytes[i + k]!;
      if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += len;
  }
  return -1;
}

/** What {@link utf8Profile} counts. */
export interface Utf8Profile {
  /** Well-formed sequences of two to four bytes (non-ASCII characters). */
  multibyte: number;
  /** Ill-formed sequences: each maximal bad run a decoder replaces with one U+FFFD counts once. */
  invalid: number;
  /** Byte offset of the first ill-formed sequence, -1 when there is none. */
  firstInvalid: number;
}

/**
 * Count the well-formed multi-byte sequences and the ill-formed ones in `bytes` (table 3-7, as
 * {@link invalidUtf8Offset}; a sequence cut off by the end counts as ill-formed). An ill-formed
 * sequence is its longest valid prefix plus nothing more, or one bad byte, as the WHATWG decoder
 * consumes it, so `invalid` is the number of U+FFFD a lenient decoder writes. Empty input → zeros
 * and -1. Linear in the length.
 *
 * @example utf8Profile(new Uint8Array([0xc3, 0xa9, 0xe9, 0x41])) // { multibyte: 1, invalid: 1, firstInvalid: 2 }
 */
export function utf8Profile(bytes: Uint8Array): Utf8Profile {
  const n = bytes.length;
  let multibyte = 0;
  let invalid = 0;
  let firstInvalid = -1;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const lead = LEAD[b]!;
    const len = lead & 0xf; // 0: a byte that cannot lead
    const lo = (lead >> 4) & 0xff;
    const hi = lead >> 12;
    let k = 1;
    if (len > 0) {
      for (; k < len && i + k < n; k++) {
        const c = bytes[i + k]!;
        if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) break;
      }
    }
    if (len > 0 && k === len) {
      multibyte++;
      i += len;
      continue;
    }
    if (firstInvalid < 0) firstInvalid = i;
    invalid++;
    i += Math.max(1, k); // the lead byte and the continuation bytes that fitted
  }
  return { multibyte, invalid, firstInvalid };
}

/**
 * {@link utf8Profile} over a stream of chunks, in bounded memory: `push` each chunk, then `finish`
 * for the profile of all the bytes, as if they were one buffer (a sequence split between chunks is
 * counted once, where it starts). At most three bytes are carried from one chunk to the next.
 *
 * @example
 * const p = new Utf8ProfileStream();
 * p.push(Uint8Array.from([0x41, 0xc3])); p.push(Uint8Array.from([0xa9]));
 * p.finish() // { multibyte: 1, invalid: 0, firstInvalid: -1 }
 */
export class Utf8ProfileStream {
  private multibyte = 0;
  private invalid = 0;
  private firstInvalid = -1;
  /** Bytes of the stream before `carry`. */
  private offset = 0;
  /** The last bytes pushed: a sequence that may go on in the next chunk. */
  private carry: Uint8Array = new Uint8Array(0);

  push(chunk: Uint8Array): void {
    const bytes = this.carry.length === 0 ? chunk : joined(this.carry, chunk);
    const cut = openTail(bytes);
    this.add(bytes.subarray(0, cut));
    this.carry = bytes.slice(cut);
  }

  finish(): Utf8Profile {
    this.add(this.carry);
    this.carry = new Uint8Array(0);
    return { multibyte: this.multibyte, invalid: this.invalid, firstInvalid: this.firstInvalid };
  }

  private add(bytes: Uint8Array): void {
    const p = utf8Profile(bytes);
    this.multibyte += p.multibyte;
    this.invalid += p.invalid;
    if (this.firstInvalid < 0 && p.firstInvalid >= 0) this.firstInvalid = this.offset + p.firstInvalid;
    this.offset += bytes.length;
  }
}

/**
 * Where a sequence that the end of `bytes` may have cut off starts (a lead byte in the last three
 * whose sequence is longer than what follows it), else `bytes.length`.
 */
function openTail(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let k = 1; k <= 3 && n - k >= 0; k++) {
    const b = bytes[n - k]!;
    if (b < 0x80) return n;
    if (b <= 0xbf) continue; // a continuation byte: look further back for its lead
    return (LEAD[b]! & 0xf) > k ? n - k : n;
  }
  return n;
}

function joined(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
