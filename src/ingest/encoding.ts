/**
 * Which character encoding a text file or HTML page is in, and its text decoded with a real
 * decoder (Node's `TextDecoder`, full ICU). The order is a browser's: a byte-order mark, then (for
 * HTML) the page's own `<meta charset>`, then UTF-8 when the bytes are UTF-8, then a detector
 * (`chardet`), then windows-1252. Bytes no candidate decodes into text → INVALID_UTF8.
 */
import { createRequire } from 'node:module';
import type { AnalyseResult } from 'chardet';
import { QuiverError } from '../errors.js';
import { decodingPenalty } from './decoding-penalty.js';
import { utf8Profile } from './utf8.js';

/** How many leading bytes of an HTML page are searched for its `<meta charset>` (the `<head>` at most). */
export const CHARSET_PRESCAN_BYTES = 16 * 1024;
/** How many bytes the detector reads: enough for its statistics, cheap on big files. */
export const DETECT_SAMPLE_BYTES = 64 * 1024;
/** How far before the first byte that is not UTF-8 the detector's sample may start (back to a line break or space). */
export const SAMPLE_LEAD_BYTES = 4096;
/** Of an HTML page, how many bytes from there are read for the sample's text (markup taken out). */
export const HTML_SAMPLE_WINDOW_BYTES = 512 * 1024;
/** A detector's guess below this confidence (0–100) is not tried. */
export const MIN_DETECT_CONFIDENCE = 10;
/** What legacy text falls back to, as browsers do for Latin pages. */
export const FALLBACK_ENCODING = 'windows-1252';

/** Where a decision came from. */
export type EncodingSource = 'bom' | 'declared' | 'utf-8' | 'detected' | 'fallback';

/** Which encoding bytes were read in, and how that was decided. */
export interface EncodingChoice {
  /** The encoding's WHATWG name, as `TextDecoder#encoding` gives it: `utf-8`, `utf-16le`, `windows-1251`, … */
  encoding: string;
  source: EncodingSource;
  /** How many ill-formed sequences became U+FFFD (only ever non-zero for UTF-8 with a few bad bytes). */
  replaced: number;
}

export interface DecodedText extends EncodingChoice {
  text: string;
}

export interface DecodeOptions {
  /** Look for a `<meta charset>` declaration first. Defaults to false. */
  html?: boolean;
  /** Named in the INVALID_UTF8 message. Defaults to `input`. */
  source?: string;
}

/**
 * The encoding a byte-order mark at the start of `bytes` names, and the mark's length: EF BB BF →
 * UTF-8, FF FE → UTF-16LE, FE FF → UTF-16BE; undefined without one.
 *
 * @example bomEncoding(new Uint8Array([0xff, 0xfe, 0x68, 0x00])) // { encoding: 'utf-16le', length: 2 }
 */
export function bomEncoding(bytes: Uint8Array): { encoding: string; length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

/**
 * The WHATWG name of an encoding label (`latin1` → `windows-1252`, `UTF8` → `utf-8`, `cp1251` →
 * `windows-1251`), or undefined for a label `TextDecoder` does not know.
 */
export function encodingForLabel(label: string): string | undefined {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return undefined;
  }
}

const META = /<meta\b([^>]*)>/gi;
const ATTRIBUTE = /([^\s=/>"']+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g;
const CONTENT_CHARSET = /charset\s*=\s*["']?([^\s"';]+)/i;
const XML_DECLARATION = /^<\?xml\s[^>]*encoding\s*=\s*["']([^"']+)["']/i;

/**
 * The encoding an HTML page declares in its first {@link CHARSET_PRESCAN_BYTES} (and before its
 * `<body>`), as the HTML prescan reads it: the first `<meta charset="…">` or `<meta
 * http-equiv="Content-Type" content="…; charset=…">` outside comments, else an XML declaration's
 * `encoding`. A declared UTF-16 means UTF-8 (the bytes being read as ASCII prove it is not UTF-16)
 * and `x-user-defined` windows-1252, as in the spec. Unknown labels are skipped; none → undefined.
 *
 * @example declaredCharset(new TextEncoder().encode('<meta charset="ISO-8859-1">')) // 'windows-1252'
 */
export function declaredCharset(bytes: Uint8Array): string | undefined {
  let head = Buffer.from(
    bytes.buffer,
    bytes.byteOffset,
    Math.min(bytes.length, CHARSET_PRESCAN_BYTES),
  ).toString('latin1');
  const xml = XML_DECLARATION.exec(head);
  head = head.replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  const body = head.search(/<body[\s>]/i);
  if (body >= 0) head = head.slice(0, body);
  for (const meta of head.matchAll(META)) {
    const attrs = new Map<string, string>();
    for (const [, name, raw] of (meta[1] ?? '').matchAll(ATTRIBUTE)) {
      const key = name!.toLowerCase();
      if (!attrs.has(key)) attrs.set(key, (raw ?? '').replace(/^["']|["']$/g, ''));
    }
    let label = attrs.get('charset');
    if (label === undefined && attrs.get('http-equiv')?.toLowerCase() === 'content-type') {
      label = CONTENT_CHARSET.exec(attrs.get('content') ?? '')?.[1];
    }
    const encoding = label === undefined ? undefined : htmlEncoding(label);
    if (encoding !== undefined) return encoding;
  }
  return xml?.[1] === undefined ? undefined : htmlEncoding(xml[1]);
}

function htmlEncoding(label: string): string | undefined {
  if (label.trim().toLowerCase() === 'x-user-defined') return FALLBACK_ENCODING; // TextDecoder lacks it
  const encoding = encodingForLabel(label);
  if (encoding === 'utf-16le' || encoding === 'utf-16be') return 'utf-8';
  return encoding;
}

/** True when `text` holds a C1 control (U+0080–U+009F) or U+FFFD: signs of a wrong legacy decoding. */
export function hasDecodingDebris(text: string): boolean {
  return /[\u0080-\u009f\ufffd]/.test(text);
}

/**
 * Decode `bytes`, choosing the encoding in this order:
 * 1. a byte-order mark (UTF-8, UTF-16LE, UTF-16BE), dropped from the text;
 * 2. with `html`, the page's declaration ({@link declaredCharset}), except that bytes which are valid
 *    UTF-8 with at least one multi-byte character are UTF-8 whatever they declare (a UTF-8 page
 *    mis-declared as latin-1 must not become mojibake), and a UTF-8 declaration over bytes with no
 *    well-formed multi-byte character but some ill-formed ones is ignored (a legacy page mis-declared);
 * 3. UTF-8, when the bytes are valid UTF-8, or when they hold more well-formed multi-byte characters
 *    than ill-formed sequences (UTF-8 with a few bad bytes: each becomes U+FFFD, counted in `replaced`);
 * 4. a legacy encoding: the detector's guesses and {@link FALLBACK_ENCODING}, the one whose decoding
 *    reads most like text (see `pickLegacy`: no {@link hasDecodingDebris}, the least
 *    `decodingPenalty`, windows-1252 on a tie unless the detector is much surer of another),
 *    judged on the text around the first byte that is not UTF-8 ({@link detectionSample}).
 * Else → QuiverError INVALID_UTF8 (the bytes are not UTF-8 and nothing else fits). Empty input → ''.
 * A decoding with a BOM or a declaration is lenient (a bad sequence becomes U+FFFD).
 *
 * @example decodeBytes(Uint8Array.from([0x63, 0x61, 0x66, 0xe9])).text // 'café' (windows-1252)
 */
export function decodeBytes(bytes: Uint8Array, options: DecodeOptions = {}): DecodedText {
  const bom = bomEncoding(bytes);
  if (bom !== undefined) {
    const rest = bytes.subarray(bom.length);
    return lenient(rest, bom.encoding, 'bom', bom.encoding === 'utf-8' ? utf8Profile(rest).invalid : 0);
  }
  const profile = utf8Profile(bytes);
  const validUtf8 = profile.invalid === 0;
  if (options.html === true) {
    const declared = declaredCharset(bytes);
    if (declared === 'utf-8' && (profile.multibyte > 0 || validUtf8))
      return lenient(bytes, 'utf-8', 'declared', profile.invalid);
    if (declared !== undefined && declared !== 'utf-8') {
      if (validUtf8 && profile.multibyte > 0) return lenient(bytes, 'utf-8', 'utf-8', 0);
      return lenient(bytes, declared, 'declared', 0);
    }
  }
  if (validUtf8 || profile.multibyte > profile.invalid)
    return lenient(bytes, 'utf-8', 'utf-8', profile.invalid);
  const picked = pickLegacy(detectionSample(bytes, profile.firstInvalid, options.html === true), bytes);
  if (picked !== undefined) return { ...picked, replaced: 0 };
  throw noEncodingFits(options.source ?? 'input', profile.firstInvalid);
}

/** INVALID_UTF8 for bytes that are not UTF-8 (first bad sequence at `offset`) and that no other encoding reads. */
export function noEncodingFits(source: string, offset: number): QuiverError {
  return new QuiverError(
    'INVALID_UTF8',
    `quiver: ${source} is not valid UTF-8 (at byte ${offset}) and no other encoding fits`,
    { details: { source, offset } },
  );
}

/**
 * The legacy encoding `sample` is in, chosen as {@link decodeBytes} chooses for bytes that are not
 * UTF-8 (the detector's guesses and windows-1252, see `pickLegacy`), or undefined when none reads
 * as text. For a file too big to hold: pass its {@link detectionSample}, then decode the whole
 * stream with `utf8Chunks(…, { fail })`, which checks every byte as the choice here checked the
 * sample.
 */
export function detectLegacy(sample: Uint8Array): { encoding: string; source: EncodingSource } | undefined {
  const picked = pickLegacy(sample);
  return picked === undefined ? undefined : { encoding: picked.encoding, source: picked.source };
}

const SCRIPT_OR_STYLE = /<(script|style)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi;
const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const TAG = /<[^>]*>?/g;

const isBreak = (b: number | undefined): boolean => b === 0x0a || b === 0x0d || b === 0x20 || b === 0x09;

/**
 * What the detector reads of `bytes`, whose first byte that is not UTF-8 is at `offset`: up to
 * {@link DETECT_SAMPLE_BYTES} from the last line break or space in the {@link SAMPLE_LEAD_BYTES}
 * before it (so the legacy text is in the sample however much ASCII comes first), ending after a
 * line break or space when cut short. No ASCII line break, space or tab is ever inside a character
 * of the legacy encodings, single-byte or CJK, so the sample starts and ends on characters. With
 * `html`, the sample is the text of the {@link HTML_SAMPLE_WINDOW_BYTES} from there, scripts,
 * styles, comments and tags taken out (a page's Cyrillic is not outweighed by its ASCII markup).
 */
export function detectionSample(bytes: Uint8Array, offset: number, html = false): Uint8Array {
  let start = Math.max(0, offset - SAMPLE_LEAD_BYTES);
  for (let i = offset - 1; i >= start; i--)
    if (isBreak(bytes[i])) {
      start = i + 1;
      break;
    }
  const end = Math.min(bytes.length, start + (html ? HTML_SAMPLE_WINDOW_BYTES : DETECT_SAMPLE_BYTES));
  let sample = bytes.subarray(start, end);
  let cut = end < bytes.length;
  if (html) {
    const text = latin1(sample).replace(SCRIPT_OR_STYLE, ' ').replace(COMMENT, ' ').replace(TAG, ' ');
    cut ||= text.length > DETECT_SAMPLE_BYTES;
    sample = Buffer.from(text.slice(0, DETECT_SAMPLE_BYTES), 'latin1');
  }
  if (!cut) return sample;
  let last = sample.length - 1;
  while (last >= 0 && !isBreak(sample[last])) last--;
  return last > 0 ? sample.subarray(0, last + 1) : sample;
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
}

/** Decode, bad sequences becoming U+FFFD (`replaced` of them, as the caller counted). */
function lenient(bytes: Uint8Array, encoding: string, source: EncodingSource, replaced: number): DecodedText {
  return { text: decodeAs(bytes, encoding, false), encoding, source, replaced };
}

/** Decode with no bad sequence and no C1 control in the result, else undefined. */
function strict(bytes: Uint8Array, encoding: string): string | undefined {
  try {
    const text = decodeAs(bytes, encoding, true);
    return hasDecodingDebris(text) ? undefined : text;
  } catch {
    return undefined;
  }
}

/** `TextDecoder`, except for windows-1252, which {@link decodeWindows1252} decodes. */
function decodeAs(bytes: Uint8Array, encoding: string, fatal: boolean): string {
  if (encoding === 'windows-1252') return decodeWindows1252(bytes);
  return new TextDecoder(encoding, { fatal, ignoreBOM: true }).decode(bytes);
}

/** What windows-1252 bytes 0x80–0x9F are (the WHATWG index); the five it leaves undefined stay C1 controls. */
const WINDOWS_1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * windows-1252 as the WHATWG Encoding Standard defines it: each byte is the code point of the same
 * number, except 0x80–0x9F, which map through {@link WINDOWS_1252_C1} (`€`, `‚`, `“`, `—`, `™`, …).
 * Node's own decoder takes a Latin-1 shortcut on Node 20.18.3+ and 22.13+ and drops or mis-maps
 * those 32 bytes (nodejs/node#56542, #60888), so quiver does not use it for this encoding.
 *
 * @example decodeWindows1252(Uint8Array.from([0x93, 0x61, 0x94, 0x80])) // '“a”€'
 */
export function decodeWindows1252(bytes: Uint8Array): string {
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  return latin1.replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_C1.charAt(c.charCodeAt(0) - 0x80));
}

const require = createRequire(import.meta.url);
/** chardet, loaded the first time a file is neither UTF-8 nor declared. */
const chardet = (): { analyse: (bytes: Uint8Array) => AnalyseResult } =>
  require('chardet') as { analyse: (bytes: Uint8Array) => AnalyseResult };

/** Multi-byte (CJK) encodings: a guess of one needs {@link MIN_MULTIBYTE_CONFIDENCE}. */
const MULTIBYTE = new Set(['shift_jis', 'euc-jp', 'iso-2022-jp', 'gbk', 'gb18030', 'big5', 'euc-kr']);
/** A detector's guess of a CJK encoding below this confidence is not tried (short Latin text draws weak CJK guesses). */
export const MIN_MULTIBYTE_CONFIDENCE = 50;
/** How much more confident the detector must be in another encoding than in windows-1252 to pick it when both read equally well. */
export const FALLBACK_MARGIN = 20;
/** A decoding with a {@link decodingPenalty} of this or more is not text. */
export const MAX_DECODING_PENALTY = 0.5;

/**
 * The legacy encoding of bytes that are not UTF-8, judged on `sample` (the detector's input, a
 * {@link detectionSample}): among the detector's guesses (confidence at least
 * {@link MIN_DETECT_CONFIDENCE}, {@link MIN_MULTIBYTE_CONFIDENCE} for CJK) and windows-1252, those
 * that decode the sample, and `whole` when given, with no debris; of them the ones with the lowest
 * {@link decodingPenalty} on the sample; of those windows-1252 unless another is at least
 * {@link FALLBACK_MARGIN} more confident, else the most confident. Undefined when none decodes with a
 * penalty under {@link MAX_DECODING_PENALTY}. `text` is `whole` decoded ('' without it).
 */
function pickLegacy(
  sample: Uint8Array,
  whole?: Uint8Array,
): { text: string; encoding: string; source: EncodingSource } | undefined {
  const confidence = new Map<string, number>();
  for (const match of chardet().analyse(sample)) {
    const encoding = match.name === 'ASCII' ? undefined : encodingForLabel(match.name);
    if (encoding === undefined || encoding === 'utf-8' || confidence.has(encoding)) continue;
    const min = MULTIBYTE.has(encoding) ? MIN_MULTIBYTE_CONFIDENCE : MIN_DETECT_CONFIDENCE;
    if (match.confidence >= min) confidence.set(encoding, match.confidence);
  }
  const candidates: { encoding: string; text: string; penalty: number; confidence: number }[] = [];
  for (const encoding of new Set([...confidence.keys(), FALLBACK_ENCODING])) {
    const read = strict(sample, encoding);
    if (read === undefined) continue;
    const penalty = decodingPenalty(read);
    if (penalty >= MAX_DECODING_PENALTY) continue;
    const text = whole === undefined ? '' : strict(whole, encoding);
    if (text !== undefined)
      candidates.push({ encoding, text, penalty, confidence: confidence.get(encoding) ?? 0 });
  }
  if (candidates.length === 0) return undefined;
  const least = Math.min(...candidates.map((c) => c.penalty));
  const best = candidates
    .filter((c) => c.penalty <= least + 1e-9)
    .sort((a, b) => b.confidence - a.confidence);
  const fallback = best.find((c) => c.encoding === FALLBACK_ENCODING);
  const top = best[0]!;
  const pick =
    fallback !== undefined && top.confidence - fallback.confidence < FALLBACK_MARGIN ? fallback : top;
  return {
    text: pick.text,
    encoding: pick.encoding,
    source: pick.encoding === FALLBACK_ENCODING && pick.confidence === 0 ? 'fallback' : 'detected',
  };
}

/**
 * The text a reader reads: {@link decodeBytes}, then CRLF and lone CR → LF.
 *
 * @example readerText(new TextEncoder().encode('a\r\nb')).text // 'a\nb'
 */
export function readerText(bytes: Uint8Array, options: DecodeOptions = {}): DecodedText {
  const decoded = decodeBytes(bytes, options);
  if (decoded.text.indexOf('\r') >= 0) decoded.text = decoded.text.replace(/\r\n?/g, '\n');
  return decoded;
}

/**
 * What a parsed document's `meta` records about its decoding: `{ encoding }` when it was not
 * UTF-8, `{ encoding, invalid_sequences }` when UTF-8 had bad bytes; `{}` for clean UTF-8.
 */
export function encodingMeta(decoded: EncodingChoice): Record<string, unknown> {
  if (decoded.replaced > 0) return { encoding: decoded.encoding, invalid_sequences: decoded.replaced };
  return decoded.encoding === 'utf-8' ? {} : { encoding: decoded.encoding };
}

export interface RecodeOptions {
  /**
   * Decode strictly: a sequence the encoding does not define, or a C1 control in the text (see
   * {@link hasDecodingDebris}), throws `fail()` instead of becoming U+FFFD. Defaults to lenient.
   */
  fail?: () => Error;
}

/**
 * Re-encode a chunked stream in `encoding` as UTF-8 chunks (a BOM dropped; bad sequences → U+FFFD,
 * or `fail()` with `options.fail`), so the UTF-8 streaming readers can read UTF-16 and legacy text.
 * windows-1252 is decoded by {@link decodeWindows1252}. Linear; one chunk in memory.
 */
export async function* utf8Chunks(
  chunks: AsyncIterable<Uint8Array>,
  encoding: string,
  options: RecodeOptions = {},
): AsyncGenerator<Uint8Array> {
  const { fail } = options;
  const decoder =
    encoding === 'windows-1252' ? undefined : new TextDecoder(encoding, { fatal: fail !== undefined });
  const encoder = new TextEncoder();
  const decode = (chunk: Uint8Array | undefined): string => {
    let piece: string;
    try {
      // windows-1252 is one byte a character: each chunk decodes alone.
      if (decoder === undefined) piece = chunk === undefined ? '' : decodeWindows1252(chunk);
      else piece = chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
    } catch (cause) {
      if (fail === undefined) throw cause;
      throw fail();
    }
    if (fail !== undefined && hasDecodingDebris(piece)) throw fail();
    return piece;
  };
  for await (const chunk of chunks) {
    const piece = decode(chunk);
    if (piece !== '') yield encoder.encode(piece);
  }
  const last = decode(undefined);
  if (last !== '') yield encoder.encode(last);
}
