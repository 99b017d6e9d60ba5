/**
 * Plain text too big to hold (over `TEXT_PART_BYTES`), read from disk in bounded memory: its
 * encoding decided over the stream as `decodeBytes` decides for bytes in memory, then its parts
 * (`text-parts.ts`) streamed as UTF-8.
 */
import { createReadStream } from 'node:fs';
import { isQuiverError, QuiverError } from '../errors.js';
import { binaryReason } from './detect.js';
import {
  bomEncoding,
  DETECT_SAMPLE_BYTES,
  detectionSample,
  detectLegacy,
  encodingMeta,
  noEncodingFits,
  SAMPLE_LEAD_BYTES,
  utf8Chunks,
  type EncodingChoice,
} from './encoding.js';
import { readHead, unreadable } from './file-head.js';
import type { ParsedDocument } from './parsed.js';
import { TEXT_READ_CHUNK_BYTES, textParts, validateTextStream } from './text-parts.js';
import { Utf8ProfileStream } from './utf8.js';

/** A big text file's encoding and how to read it as UTF-8 chunks, as often as needed. */
export interface LargeTextDecoding extends EncodingChoice {
  chunks: () => AsyncIterable<Uint8Array>;
}

/**
 * The parts of the big plain-text file at `path` (its first bytes `head` already read): refused as
 * binary by `head` (BINARY_FILE), decoded ({@link largeTextDecoding}) and checked whole before any
 * part is yielded, then read again as part documents, each `meta` recording an encoding other than
 * clean UTF-8 (`{ encoding }`, as a small file's does).
 */
export async function readLargeText(
  path: string,
  source: string,
  head: Uint8Array,
  title: string | undefined,
): Promise<AsyncIterable<ParsedDocument>> {
  const binary = binaryReason(head);
  if (binary !== undefined) {
    throw new QuiverError('BINARY_FILE', `quiver: ${source} looks binary (${binary})`, {
      details: { source },
    });
  }
  const decoding = await largeTextDecoding(path, source, head);
  const meta = encodingMeta(decoding);
  return textParts(decoding.chunks(), source, {
    ...(title === undefined ? {} : { title }),
    ...(Object.keys(meta).length === 0 ? {} : { meta }),
  });
}

/**
 * Decide the encoding of a big text file, in the order of `decodeBytes`, and check the whole file
 * reads in it (one pass, or three when it is not clean UTF-8):
 * 1. a byte-order mark in `head`: UTF-16LE/BE re-encoded as UTF-8, UTF-8 as it is;
 * 2. UTF-8, when every byte is (one streaming pass with a fatal decoder), or when the file holds
 *    more well-formed multi-byte characters than ill-formed sequences (a second pass counts them;
 *    each bad sequence becomes U+FFFD, counted in `replaced`);
 * 3. a legacy encoding, chosen as for a small file (`detectLegacy`) on the same sample
 *    (`detectionSample`: from the line holding the first byte that is not UTF-8), and then checked
 *    over the whole file (no undefined byte, no C1 control).
 * Else → INVALID_UTF8 naming the first byte that is not UTF-8; only whitespace → EMPTY_FILE.
 */
export async function largeTextDecoding(
  path: string,
  source: string,
  head: Uint8Array,
): Promise<LargeTextDecoding> {
  const bom = bomEncoding(head);
  if (bom !== undefined && bom.encoding !== 'utf-8') {
    const utf16 = bom.encoding;
    const decoding = { encoding: utf16, source: 'bom' as const, replaced: 0 };
    return checked(decoding, () => utf8Chunks(streamFile(path), utf16), source);
  }
  const raw = (): AsyncIterable<Uint8Array> => streamFile(path);
  try {
    await validateTextStream(raw(), source);
    return { encoding: 'utf-8', source: bom === undefined ? 'utf-8' : 'bom', replaced: 0, chunks: raw };
  } catch (e) {
    if (!isQuiverError(e, 'INVALID_UTF8')) throw e;
  }
  const profile = new Utf8ProfileStream();
  for await (const chunk of raw()) profile.push(chunk);
  const { multibyte, invalid, firstInvalid } = profile.finish();
  if (bom !== undefined || multibyte > invalid) {
    const decoding = {
      encoding: 'utf-8',
      source: bom === undefined ? 'utf-8' : 'bom',
      replaced: invalid,
    } as const;
    return checked(decoding, () => utf8Chunks(raw(), 'utf-8'), source);
  }
  const legacy = detectLegacy(await sampleAt(path, firstInvalid));
  if (legacy === undefined) throw noEncodingFits(source, firstInvalid);
  const fail = (): QuiverError => noEncodingFits(source, firstInvalid);
  return checked({ ...legacy, replaced: 0 }, () => utf8Chunks(raw(), legacy.encoding, { fail }), source);
}

/** The decoding, once its whole stream has been read through (INVALID_UTF8, EMPTY_FILE). */
async function checked(
  choice: EncodingChoice,
  chunks: () => AsyncIterable<Uint8Array>,
  source: string,
): Promise<LargeTextDecoding> {
  await validateTextStream(chunks(), source);
  return { ...choice, chunks };
}

/** The file's `detectionSample` around byte `offset`, read from disk (at most about 68 KB). */
async function sampleAt(path: string, offset: number): Promise<Uint8Array> {
  const start = Math.max(0, offset - SAMPLE_LEAD_BYTES);
  let bytes: Uint8Array;
  try {
    bytes = await readHead(path, offset - start + DETECT_SAMPLE_BYTES + 1, start); // +1: tells a cut sample
  } catch (cause) {
    throw unreadable(path, cause);
  }
  return detectionSample(bytes, offset - start);
}

/** The file as chunks of {@link TEXT_READ_CHUNK_BYTES}; a read failure → UNREADABLE. */
async function* streamFile(path: string): AsyncGenerator<Uint8Array> {
  const stream = createReadStream(path, { highWaterMark: TEXT_READ_CHUNK_BYTES });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) yield chunk;
  } catch (cause) {
    throw unreadable(path, cause);
  } finally {
    stream.destroy();
  }
}
