/**
 * Noise-score evaluation corpora, and a quick sanity run.
 *
 * `makeNoiseCorpus(seed)` generates a corpus of the reference's design (quality-reference §7.1):
 * six topics, 60 content docs (40% with a glued boilerplate tail; still content), 8 boilerplate
 * docs made of cookie / licence / e-mail-footer / registration lines, 4 broad surveys (one
 * paragraph per topic) that must not be flagged. `loadRealNoiseCorpus(dir)` builds the real-page
 * set from the article-extraction benchmark: every page's human-written article body is a content
 * doc; for one page in eight, the page's visible text minus the article lines is a boilerplate doc.
 *
 * Run `node --import tsx bench/noise-corpus.ts` to print per-feature and blended AUC with a
 * stand-in hashed bag-of-words embedding (the lead's benchmark uses the vault's real embedder).
 */

import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Prng } from '../src/quality/prng.js';
import { auc } from '../src/quality/auc.js';
import { noiseFeatures } from '../src/quality/noise/features.js';
import type { NoiseChunk, NoiseFeatureMatrix } from '../src/quality/noise/features.js';
import { NOISE_WEIGHTS, REFERENCE_NOISE_WEIGHTS, noiseScores } from '../src/quality/noise/blend.js';
import { contentTerms } from '../src/text/tokens.js';

export type NoiseLabel = 'content' | 'boiler' | 'survey';

export interface NoiseDoc {
  id: string;
  title: string;
  text: string;
  label: NoiseLabel;
}

interface Topic {
  name: string;
  terms: string[];
  frames: string[];
  rare: string[];
}

const TOPICS: Topic[] = [
  {
    name: 'Astronomy',
    terms: [
      'telescope',
      'nebula',
      'parallax',
      'redshift',
      'quasar',
      'eclipse',
      'orbit',
      'spectrum',
      'comet',
      'magnitude',
    ],
    frames: [
      'Careful work on the {a} shows how the {b} changes over a season.',
      'Observers compare the {a} with the {b} before drawing any conclusion.',
      'A faint {a} can hide behind a bright {b} for many nights.',
      'The catalogue lists each {a} next to its measured {b}.',
      'Without a stable {a} the {b} cannot be estimated with confidence.',
    ],
    rare: ['Kepleria', 'Vostrand', 'Halloway', 'Mirabeth', 'Ostracon', 'Quillan'],
  },
  {
    name: 'Beekeeping',
    terms: ['hive', 'queen', 'brood', 'nectar', 'swarm', 'comb', 'pollen', 'smoker', 'varroa', 'propolis'],
    frames: [
      'In late spring the {a} decides how much {b} the colony can store.',
      'A keeper checks the {a} first and only then looks at the {b}.',
      'Weak colonies lose their {a} when the {b} runs short.',
      'The {a} and the {b} together tell you whether the colony is thriving.',
      'Experienced keepers treat the {a} gently so that the {b} is not disturbed.',
    ],
    rare: ['Brackwell', 'Tanscombe', 'Ellory', 'Munsfield', 'Ardegh', 'Pellamy'],
  },
  {
    name: 'Cryptography',
    terms: [
      'cipher',
      'nonce',
      'keystream',
      'signature',
      'hash',
      'modulus',
      'plaintext',
      'padding',
      'entropy',
      'handshake',
    ],
    frames: [
      'An attacker who learns the {a} can often recover the {b}.',
      'Every protocol must bind the {a} to the {b} before any data flows.',
      'Reusing a {a} with the same {b} breaks the scheme completely.',
      'The standard fixes the {a} so that the {b} stays unpredictable.',
      'Auditors trace how the {a} is derived from the {b} in each release.',
    ],
    rare: ['Zelnik', 'Orvath', 'Dunmere', 'Castellan', 'Rivoli', 'Fenwright'],
  },
  {
    name: 'Volcanology',
    terms: [
      'magma',
      'caldera',
      'tephra',
      'fumarole',
      'lava',
      'vent',
      'pyroclast',
      'basalt',
      'tremor',
      'plume',
    ],
    frames: [
      'Rising {a} pushes against the {b} long before an eruption begins.',
      'Field teams sample the {a} downwind of the {b} after each event.',
      'A sudden change in the {a} often precedes activity at the {b}.',
      'The old {a} records how often the {b} has collapsed.',
      'Satellites track the {a} while ground stations listen to the {b}.',
    ],
    rare: ['Skarvik', 'Tolumbe', 'Hraunsey', 'Medrano', 'Ketapang', 'Oyelaran'],
  },
  {
    name: 'Baking',
    terms: [
      'dough',
      'levain',
      'crumb',
      'crust',
      'proofing',
      'gluten',
      'hydration',
      'oven',
      'starter',
      'scoring',
    ],
    frames: [
      'A wetter {a} needs a longer {b} to develop its structure.',
      'Bakers judge the {a} by pressing it and watching the {b}.',
      'Too much heat in the {a} ruins the {b} before it sets.',
      'The {a} matters more than the {b} for an open texture.',
      'Good {a} comes from patience with the {b} rather than from extra yeast.',
    ],
    rare: ['Poilane', 'Hartwick', 'Sorrento', 'Lindqvist', 'Beaumarch', 'Tessaly'],
  },
  {
    name: 'Sailing',
    terms: [
      'keel',
      'jib',
      'halyard',
      'tack',
      'mainsail',
      'rudder',
      'mooring',
      'leeway',
      'spinnaker',
      'bowline',
    ],
    frames: [
      'When the wind backs, the {a} has to be eased before the {b} stalls.',
      'A tidy {a} makes it easier to handle the {b} in a squall.',
      'The skipper trims the {a} while the crew watches the {b}.',
      'Most beginners forget the {a} until the {b} starts to flog.',
      'Racing crews rehearse the {a} so the {b} goes up without a twist.',
    ],
    rare: ['Falmouth', 'Corrievale', 'Nantuck', 'Brisemer', 'Halvard', 'Quenby'],
  },
];

const BOILER_LINES = [
  'We use cookies to improve your experience on our website and to show you relevant advertising.',
  'By continuing to browse the site you are agreeing to our use of cookies and our privacy policy.',
  'This work is licensed under a Creative Commons Attribution 4.0 International License.',
  'All rights reserved. No part of this publication may be reproduced without written permission.',
  'This e-mail and any attachments are confidential and intended solely for the addressee.',
  'If you have received this message in error please notify the sender and delete it.',
  'Registered in England and Wales. Company No. 04512871. Registered office: 12 High Street, London.',
  'To unsubscribe from this newsletter or manage your preferences, click the link below.',
];

function pick<T>(rng: Prng, xs: readonly T[]): T {
  return xs[rng.int(xs.length)]!;
}

function shuffle<T>(rng: Prng, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function paragraph(rng: Prng, t: Topic, rare: readonly string[]): string {
  const sentences: string[] = [];
  for (let s = 0; s < 4; s++) {
    let line = pick(rng, t.frames).replace('{a}', pick(rng, t.terms)).replace('{b}', pick(rng, t.terms));
    if (rng.random() < 0.4) line = line.replace(/\.$/, `, as in the ${pick(rng, rare)} account.`);
    sentences.push(line);
  }
  return sentences.join(' ');
}

function boilerParagraph(rng: Prng): string {
  return shuffle(rng, BOILER_LINES).slice(0, 5).join(' ');
}

/**
 * A generated corpus (deterministic per seed): 60 content docs (topic i mod 6, 2 of the topic's
 * rare terms, 4 paragraphs; 40% with a glued boilerplate paragraph), 8 boilerplate docs
 * (3 paragraphs of 5 shuffled footer lines) and 4 surveys (one paragraph per topic, shuffled).
 */
export function makeNoiseCorpus(seed: number): { docs: NoiseDoc[] } {
  const rng = new Prng(seed);
  const docs: NoiseDoc[] = [];
  for (let i = 0; i < 60; i++) {
    const t = TOPICS[i % TOPICS.length]!;
    const rare = shuffle(rng, t.rare).slice(0, 2);
    const paras = [0, 1, 2, 3].map(() => paragraph(rng, t, rare));
    if (rng.random() < 0.4) paras.push(boilerParagraph(rng));
    docs.push({ id: `c${i}`, title: `${t.name} note ${i}`, text: paras.join('\n\n'), label: 'content' });
  }
  for (let i = 0; i < 8; i++) {
    const text = [0, 1, 2].map(() => boilerParagraph(rng)).join('\n\n');
    docs.push({ id: `b${i}`, title: `Footer ${i}`, text, label: 'boiler' });
  }
  for (let i = 0; i < 4; i++) {
    const paras = shuffle(rng, TOPICS).map((t) => paragraph(rng, t, t.rare));
    docs.push({ id: `s${i}`, title: `Survey ${i}`, text: paras.join('\n\n'), label: 'survey' });
  }
  return { docs };
}

const BLOCK =
  /<\/?(p|div|br|li|ul|ol|h[1-6]|tr|td|th|table|section|article|header|footer|nav|aside|form|figure|figcaption|blockquote|pre|dd|dt|dl|option|button|label|main|hr|title)\b[^>]*>/gi;
const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  '#39': "'",
};

/** Visible text lines of an HTML page (a simple tag stripper: scripts, styles and head removed). */
export function visibleLines(html: string): string[] {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|noscript|svg|template|head|iframe)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(BLOCK, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (m, e: string) => {
      if (e.startsWith('#x') || e.startsWith('#X')) return String.fromCodePoint(parseInt(e.slice(2), 16));
      if (e.startsWith('#') && e !== '#39') return String.fromCodePoint(parseInt(e.slice(1), 10));
      return ENTITIES[e.toLowerCase()] ?? m;
    });
  return text
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter((l) => l.length > 0);
}

/** Default location of the article-extraction benchmark (sibling `shared/data` of the repo). */
export const DEFAULT_AEB_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../shared/data/article-extraction-benchmark',
);

/**
 * Real pages: every article body is a content doc; for pages whose sorted index is a multiple of
 * `every` (default 8), the visible lines that are not part of the article body (≤ 8000 chars) form
 * a boilerplate doc. Returns null when the data directory is missing.
 */
export function loadRealNoiseCorpus(dir = DEFAULT_AEB_DIR, every = 8): { docs: NoiseDoc[] } | null {
  if (!existsSync(path.join(dir, 'ground-truth.json'))) return null;
  const truth = JSON.parse(readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')) as Record<
    string,
    { articleBody: string; url: string }
  >;
  const have = new Set(readdirSync(path.join(dir, 'html')).map((f) => f.replace(/\.html\.gz$/, '')));
  const ids = Object.keys(truth)
    .filter((id) => have.has(id))
    .sort();
  const docs: NoiseDoc[] = [];
  ids.forEach((id, i) => {
    const body = truth[id]!.articleBody;
    docs.push({ id: `a-${id.slice(0, 12)}`, title: truth[id]!.url, text: body, label: 'content' });
    if (i % every !== 0) return;
    const html = gunzipSync(readFileSync(path.join(dir, 'html', `${id}.html.gz`))).toString('utf8');
    const flat = body.replace(/\s+/g, ' ');
    const rest = visibleLines(html).filter((l) => !flat.includes(l));
    let text = '';
    for (const l of rest) {
      if (text.length + l.length > 8000) break;
      text += (text === '' ? '' : '\n') + l;
    }
    if (text.length > 0)
      docs.push({
        id: `n-${id.slice(0, 12)}`,
        title: `boilerplate of ${truth[id]!.url}`,
        text,
        label: 'boiler',
      });
  });
  return { docs };
}

/**
 * Greedy chunking to ≤ ~`size` chars that keeps the text's own line breaks: lines are packed
 * whole; a line longer than `size` is cut at sentence ends (the pieces rejoined with spaces).
 * A final piece under 40 chars joins the previous chunk.
 */
export function chunkText(text: string, size = 512): string[] {
  const pieces: { text: string; newLine: boolean }[] = [];
  for (const line of text.split(/\n+/)) {
    const l = line.trim();
    if (l === '') continue;
    const parts = l.length > size ? l.split(/(?<=[.!?])\s+/) : [l];
    parts.forEach((p, i) => pieces.push({ text: p, newLine: i === 0 }));
  }
  const chunks: string[] = [];
  let cur = '';
  for (const p of pieces) {
    if (cur !== '' && cur.length + 1 + p.text.length > size) {
      chunks.push(cur);
      cur = p.text;
    } else cur = cur === '' ? p.text : `${cur}${p.newLine ? '\n' : ' '}${p.text}`;
  }
  if (cur !== '') {
    if (cur.length < 40 && chunks.length > 0) chunks[chunks.length - 1] += `\n${cur}`;
    else chunks.push(cur);
  }
  return chunks;
}

/** Stand-in embedding: stemmed content terms hashed (FNV-1a) into `dim` signed buckets, L2-normalised. */
export function hashEmbed(text: string, dim = 256): Float32Array {
  const v = new Float32Array(dim);
  for (const t of contentTerms(text)) {
    let h = 0x811c9dc5;
    for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193) >>> 0;
    v[h % dim]! += h >>> 31 === 1 ? 1 : -1;
  }
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < dim; i++) v[i] = v[i]! / n;
  return v;
}

function fnv(t: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * Stand-in distributional embedding (random indexing): each term gets a sparse random ±1 index
 * vector; a term's context vector sums the index vectors of the terms it shares chunks with; a
 * chunk's vector is the idf-weighted sum of its terms' normalised context vectors. Generic words
 * that co-occur with everything land near the middle, as in a trained embedding. Corpus-level.
 */
export function randomIndexEmbed(texts: readonly string[], dim = 256): Float32Array[] {
  const terms = texts.map((t) => [...new Set(contentTerms(t))]);
  const index = (w: string): [number, number][] => {
    const out: [number, number][] = [];
    let h = fnv(w);
    for (let i = 0; i < 8; i++) {
      h = Math.imul(h ^ (h >>> 13), 0x5bd1e995) >>> 0;
      out.push([h % dim, h >>> 31 === 1 ? 1 : -1]);
    }
    return out;
  };
  const ctx = new Map<string, Float64Array>();
  const df = new Map<string, number>();
  for (const ts of terms) {
    const sum = new Float64Array(dim);
    for (const w of ts) for (const [i, s] of index(w)) sum[i]! += s;
    for (const w of ts) {
      df.set(w, (df.get(w) ?? 0) + 1);
      let c = ctx.get(w);
      if (c === undefined) ctx.set(w, (c = new Float64Array(dim)));
      for (let i = 0; i < dim; i++) c[i]! += sum[i]!;
      for (const [i, s] of index(w)) c[i]! -= s;
    }
  }
  for (const c of ctx.values()) {
    const n = Math.hypot(...c) || 1;
    for (let i = 0; i < dim; i++) c[i] = c[i]! / n;
  }
  const N = texts.length;
  return terms.map((ts) => {
    const v = new Float64Array(dim);
    for (const w of ts) {
      const c = ctx.get(w)!;
      const wt = Math.log(1 + N / df.get(w)!);
      for (let i = 0; i < dim; i++) v[i]! += wt * c[i]!;
    }
    const n = Math.hypot(...v) || 1;
    return Float32Array.from(v, (x) => x / n);
  });
}

/** A corpus-level embedder: chunk texts in, one vector per text out. */
export type EmbedAll = (texts: readonly string[]) => Float32Array[];

export const hashEmbedAll: EmbedAll = (texts) => texts.map((t) => hashEmbed(t));

/** Per-feature AUCs (raw columns), blended AUCs and surveys scoring ≥ 1.0 for one corpus. */
export function evaluateNoise(
  docs: readonly NoiseDoc[],
  embedAll: EmbedAll = randomIndexEmbed,
  weights: Readonly<Record<string, number>> = NOISE_WEIGHTS,
): {
  features: Record<string, number>;
  reference: number;
  blended: number;
  surveysFlagged: number;
  /** Boilerplate docs / all docs scoring ≥ 1.0 (the default suggestion threshold) and ≥ 0.5. */
  flagged: { at1: [number, number]; at05: [number, number] };
  X: NoiseFeatureMatrix;
  y: number[];
} {
  const pieces = docs.flatMap((d) => chunkText(d.text).map((text) => ({ docId: d.id, text })));
  const vectors = embedAll(pieces.map((p) => p.text));
  const chunks: NoiseChunk[] = pieces.map((p, i) => ({ ...p, vector: vectors[i]! }));
  const f = noiseFeatures({ chunks });
  const label = new Map(docs.map((d) => [d.id, d.label]));
  const y = f.docIds.map((id) => (label.get(id) === 'boiler' ? 1 : 0));
  const features: Record<string, number> = {};
  f.names.forEach(
    (n, j) =>
      (features[n] = auc(
        f.X.map((r) => r[j]!),
        y,
      )),
  );
  const blendAuc = (w: Readonly<Record<string, number>>): { value: number; surveys: number } => {
    const s = noiseScores(f.X, f.names, w, f.docIds);
    const byId = new Map(s.map((r) => [r.docId, r.score]));
    const surveys = s.filter((r) => label.get(r.docId) === 'survey' && r.score >= 1.0).length;
    return {
      value: auc(
        f.docIds.map((id) => byId.get(id)!),
        y,
      ),
      surveys,
    };
  };
  const b = blendAuc(weights);
  const scores = noiseScores(f.X, f.names, weights, f.docIds);
  const at = (t: number): [number, number] => {
    const hit = scores.filter((r) => r.score >= t);
    return [hit.filter((r) => y[r.index] === 1).length, hit.length];
  };
  return {
    features,
    reference: blendAuc(REFERENCE_NOISE_WEIGHTS).value,
    blended: b.value,
    surveysFlagged: b.surveys,
    flagged: { at1: at(1), at05: at(0.5) },
    X: f,
    y,
  };
}

function fmt(x: number): string {
  return Number.isNaN(x) ? '  n/a' : x.toFixed(3);
}

function main(): void {
  const real = loadRealNoiseCorpus();
  for (const [embName, embed] of [
    ['random-indexing', randomIndexEmbed],
    ['hashed bag-of-words', hashEmbedAll],
  ] as const) {
    const rows: [string, ReturnType<typeof evaluateNoise>][] = [];
    for (const seed of [0, 1, 2])
      rows.push([`generated seed ${seed}`, evaluateNoise(makeNoiseCorpus(seed).docs, embed)]);
    if (real !== null) rows.push([`real pages (${real.docs.length} docs)`, evaluateNoise(real.docs, embed)]);
    const names = Object.keys(rows[0]![1].features);
    console.log(`\nstand-in embedding: ${embName}`);
    console.log(
      ['corpus', ...names, 'ref-blend', 'blend', 'surveys≥1', 'boiler/all≥1', 'boiler/all≥0.5'].join('\t'),
    );
    for (const [name, r] of rows) {
      const f = (p: [number, number]): string => `${p[0]}/${p[1]}`;
      console.log(
        [
          name,
          ...names.map((n) => fmt(r.features[n]!)),
          fmt(r.reference),
          fmt(r.blended),
          r.surveysFlagged,
          f(r.flagged.at1),
          f(r.flagged.at05),
        ].join('\t'),
      );
    }
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
