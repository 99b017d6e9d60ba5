import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { Vault } from '../vault.js';
import { questionGroup } from './feedback-log.js';
import { knn } from './noise/primitives.js';
import { Prng } from './prng.js';
import { hnswKnn, QUALITY_KEYS, QualityLoop } from './quality-loop.js';
import type { AskLike } from './quality-loop.js';

const dir = mkdtempSync(join(tmpdir(), 'quiver-quality-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const TOPICS = {
  bees: ['hive', 'queen', 'brood', 'nectar', 'swarm', 'comb', 'pollen', 'varroa'],
  optics: ['lens', 'prism', 'focal', 'refraction', 'aperture', 'mirror', 'photon', 'diffraction'],
  metal: ['alloy', 'furnace', 'anneal', 'ingot', 'forge', 'quench', 'carbon', 'temper'],
};
const BOILER = [
  'We use cookies to improve your experience. Accept all cookies or manage preferences.',
  'Copyright 2024 Example Ltd. All rights reserved. Registered in England No. 1234567.',
  'This e-mail and any attachments are confidential. If you received it in error, delete it.',
  'Subscribe to our newsletter | Privacy policy | Terms of use | Contact us',
];

function content(topic: keyof typeof TOPICS, i: number): { text: string; title: string; source: string } {
  const t = TOPICS[topic];
  const rng = new Prng(i * 31 + topic.length);
  const sentences = Array.from({ length: 6 }, () => {
    const a = t[rng.int(t.length)]!;
    const b = t[rng.int(t.length)]!;
    return `The ${a} matters when the ${b} is checked with care during the long season of work.`;
  });
  return { text: sentences.join(' '), title: `${topic} note ${i}`, source: `syn/${topic}-${i}` };
}

function boiler(i: number): { text: string; title: string; source: string } {
  const rng = new Prng(100 + i);
  const lines = Array.from({ length: 4 }, () => BOILER[rng.int(BOILER.length)]!);
  return { text: lines.join('\n'), title: `Footer ${i}`, source: `syn/footer-${i}` };
}

async function corpusVault(): Promise<Vault> {
  // The synthetic notes are word salad that answers no question: abstaining (answer/abstain.ts) is
  // off, so asks quote and cite as the feedback log needs.
  const v = await Vault.open({
    overrides: { vault: join(dir, `v${n++}.db`), 'answer.abstainBelow': 0 },
    env: {},
  });
  const docs = [
    ...(['bees', 'optics', 'metal'] as const).flatMap((t) => [0, 1, 2, 3].map((i) => content(t, i))),
    ...[0, 1, 2].map(boiler),
  ];
  await v.add(docs);
  return v;
}

async function docId(v: Vault, title: string): Promise<string> {
  const [d] = await v.store.findDocuments(title);
  return d!.id;
}

describe('QualityLoop on a real SQLite vault', () => {
  let v: Vault;
  beforeEach(async () => {
    v = await corpusVault();
  });
  afterEach(async () => {
    await v.close();
  });

  it('rate writes one row with the section’s document, grouped by question, and rejects bad input', async () => {
    const id = await docId(v, 'bees note 1');
    const row = await v.quality.rate('queen and brood', `${id}#0`, 'up', { rank: 2, score: 0.4 });
    expect(row).toMatchObject({
      q: 'queen and brood',
      sectionId: `${id}#0`,
      docId: id,
      signal: 'up',
      label: 1,
      weight: 3,
      rank: 2,
      score: 0.4,
    });
    expect(row.askId).toBe(questionGroup('queen and brood'));
    const second = await v.quality.rate('', `${id}#0`, 'shown');
    expect(second.askId).not.toBe(row.askId);
    expect(second.askId).toMatch(/^[0-9a-f]{12}$/);
    await expect(v.quality.rate('q', `${id}#0`, 'meh')).rejects.toSatisfy(
      (e: unknown) =>
        isQuiverError(e, 'BAD_INPUT') && /bad, cited, down, good, read, shown, up/.test((e as Error).message),
    );
    await expect(v.quality.rate('q', 'nope#0', 'up')).rejects.toSatisfy((e: unknown) =>
      isQuiverError(e, 'NOT_FOUND'),
    );
    expect((await v.quality.ratings()).map((r) => r.signal)).toEqual(['shown', 'up']);
    expect((await v.quality.ratings({ limit: 1 })).map((r) => r.signal)).toEqual(['shown']);
    expect(await v.quality.ratings({ docId: 'other' })).toEqual([]);
  });

  it('logAsk writes cited and shown rows under one fresh ask id; up/down take precedence; no citation writes nothing', async () => {
    const ids = [
      await docId(v, 'bees note 0'),
      await docId(v, 'bees note 1'),
      await docId(v, 'optics note 0'),
    ];
    const ask: AskLike = {
      question: 'what does the queen do',
      context: ids.map((d, i) => ({
        n: i + 1,
        sectionId: `${d}#0`,
        docId: d,
        title: '',
        breadcrumb: '',
        source: '',
        pages: null,
        text: '',
        score: 1 - i / 10,
      })),
      cited: [
        {
          n: 1,
          sectionId: `${ids[0]}#0`,
          docId: ids[0]!,
          title: '',
          breadcrumb: '',
          source: '',
          pages: null,
        },
      ],
    };
    expect(await v.quality.logAsk(ask)).toBe(3);
    const rows = await v.quality.ratings();
    expect(new Set(rows.map((r) => r.askId)).size).toBe(1);
    expect(rows.map((r) => [r.docId, r.signal, r.rank]).reverse()).toEqual([
      [ids[0], 'cited', 1],
      [ids[1], 'shown', 2],
      [ids[2], 'shown', 3],
    ]);
    expect(await v.quality.logAsk(ask, { down: [1], up: [3], weak: false })).toBe(2);
    const second = (await v.quality.ratings({ limit: 2 })).map((r) => [r.docId, r.signal]).reverse();
    expect(second).toEqual([
      [ids[0], 'down'],
      [ids[2], 'up'],
    ]);
    expect(await v.quality.logAsk({ ...ask, cited: [] })).toBe(0);
    expect(await v.quality.ratings()).toHaveLength(5);
  });

  it('ask keeps a transcript, and logs feedback only while learning is on', async () => {
    const r1 = await v.ask('What does the queen do in the hive?');
    expect(r1.transcriptId).toMatch(/^[0-9a-f]{16}$/);
    const t = await v.store.getTranscript(r1.transcriptId!);
    expect(t).toMatchObject({
      question: 'What does the queen do in the hive?',
      answer: r1.answer,
      generator: r1.generator,
    });
    expect(t!.configFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(t!.cited).toEqual(r1.cited.map((c) => c.sectionId));
    expect(t!.prompt.user).toContain('queen');
    expect(await v.quality.ratings()).toEqual([]);
    expect(await v.quality.isLearning()).toBe(false);
    await v.quality.learn(true);
    const r2 = await v.ask('What does the queen do in the hive?');
    expect(r2.cited.length).toBeGreaterThan(0);
    const rows = await v.quality.ratings();
    expect(rows.length).toBe(r2.context.length);
    expect(rows.filter((r) => r.signal === 'cited').length).toBe(r2.cited.length);
    // Same configuration → same fingerprint.
    expect((await v.store.getTranscript(r2.transcriptId!))!.configFingerprint).toBe(t!.configFingerprint);
  });

  it('observe never throws: a failing store becomes an error message', async () => {
    await v.quality.learn(true);
    const ask: AskLike = { question: 'q', context: [], cited: [] };
    expect(await v.quality.observe(ask)).toBeNull();
    await v.store.close();
    const msg = await v.quality.observe(ask);
    expect(msg).toMatch(/^quiver: could not log the answer/);
  });

  it('docPrior: posterior mean by default, absent without feedback, seeded Thompson draws repeat', async () => {
    const up = await docId(v, 'bees note 0');
    const down = await docId(v, 'bees note 1');
    await v.quality.rate('q', `${up}#0`, 'up');
    await v.quality.rate('q', `${down}#0`, 'down');
    const p = await v.quality.docPrior();
    expect(p.get(up)).toBeCloseTo(1.178805, 6);
    expect(p.get(down)).toBeCloseTo(0.72564, 5);
    expect(p.has(await docId(v, 'optics note 0'))).toBe(false);
    const a = await v.quality.docPrior({ explore: 1, seed: 5 });
    const b = await v.quality.docPrior({ explore: 1, seed: 5 });
    expect([...a]).toEqual([...b]);
    expect((await v.quality.docStats()).get(up)).toEqual({ wins: 3, losses: 0 });
  });

  it('noise: features for every document, boilerplate on top, suggestions skip judged documents', async () => {
    const f = await v.quality.noiseFeatures();
    expect(f.docIds).toHaveLength(15);
    expect(f.names.slice(0, 3)).toEqual(['hub', 'dup_out', 'off_centre']);
    const scores = await v.quality.noiseScores();
    expect(
      scores
        .slice(0, 3)
        .map((s) => s.title)
        .sort(),
    ).toEqual(['Footer 0', 'Footer 1', 'Footer 2']);
    expect(Object.keys(scores[0]!.features)).toEqual(f.names);
    const sugg = await v.quality.suggestNoisy({ k: 10, minScore: 0.5 });
    expect(sugg.map((s) => s.title).sort()).toEqual(['Footer 0', 'Footer 1', 'Footer 2']);
    await v.quality.markNoisy('Footer 0', false, 'keep this one');
    const again = await v.quality.suggestNoisy({ k: 10, minScore: 0.5 });
    expect(again.map((s) => s.title).sort()).toEqual(['Footer 1', 'Footer 2']);
  });

  it('noise features through the HNSW kNN (forced with exactMax 0) give the same suggestions', async () => {
    const ann = new QualityLoop(v.store, v.embedder, { exactMax: 0 });
    const exact = await v.quality.noiseFeatures();
    const approx = await ann.noiseFeatures();
    expect(approx.docIds).toEqual(exact.docIds);
    const top = (await ann.suggestNoisy({ k: 10, minScore: 0.5 })).map((s) => s.title).sort();
    expect(top).toEqual(['Footer 0', 'Footer 1', 'Footer 2']);
  });

  it('markNoisy resolves id, source or a unique fragment; ambiguous is BAD_INPUT with candidates, none is NOT_FOUND', async () => {
    await expect(v.quality.markNoisy('Footer')).rejects.toSatisfy(
      (e: unknown) =>
        isQuiverError(e, 'BAD_INPUT') &&
        (e as Error).message.includes('Footer 1') &&
        /matches 3 documents/.test((e as Error).message),
    );
    await expect(v.quality.markNoisy('no such thing')).rejects.toSatisfy((e: unknown) =>
      isQuiverError(e, 'NOT_FOUND'),
    );
    await expect(v.quality.markNoisy('  ')).rejects.toSatisfy((e: unknown) => isQuiverError(e, 'BAD_INPUT'));
    const byFragment = await v.quality.markNoisy('Footer 1', true, 'cookie banner');
    const bySource = await v.quality.markNoisy('syn/footer-2');
    const byId = await v.quality.markNoisy(await docId(v, 'optics note 3'), false);
    expect([byFragment.title, bySource.title, byId.title]).toEqual(['Footer 1', 'Footer 2', 'optics note 3']);
    expect(bySource.reason).toBeNull();
    const marks = await v.quality.marks();
    expect(marks.map((m) => [m.title, m.noisy]).sort()).toEqual([
      ['Footer 1', true],
      ['Footer 2', true],
      ['optics note 3', false],
    ]);
    // A mark takes effect at once: the document leaves search.
    const hits = await v.search('cookies copyright newsletter', { limit: 20 });
    expect(hits.hits.map((h) => h.docTitle)).not.toContain('Footer 1');
    expect(hits.hits.map((h) => h.docTitle)).toContain('Footer 0');
  });

  it('acceptNoisy marks the suggestions; marks survive re-adding the same documents', async () => {
    const done = await v.quality.acceptNoisy(10, 'suggested', 0.5);
    expect(done.map((m) => m.title).sort()).toEqual(['Footer 0', 'Footer 1', 'Footer 2']);
    expect(done.every((m) => m.noisy && m.reason === 'suggested')).toBe(true);
    await v.add([boiler(0), { ...boiler(1), text: `${boiler(1).text}\nOne more footer line.` }]);
    expect((await v.quality.marks()).filter((m) => m.noisy)).toHaveLength(3);
    expect(await v.quality.suggestNoisy({ minScore: -10, k: 100 })).toHaveLength(12);
  });

  it('fitNoise needs marks, fits from a few, saves only when asked; useNoise needs a saved fit', async () => {
    await expect(v.quality.fitNoise()).rejects.toSatisfy((e: unknown) => isQuiverError(e, 'NOT_FOUND'));
    await expect(v.quality.useNoise(true)).rejects.toSatisfy((e: unknown) => isQuiverError(e, 'NOT_FOUND'));
    await v.quality.markNoisy('Footer 0');
    // One class only: the unmarked documents serve as negatives.
    const one = await v.quality.fitNoise();
    expect(one.model.fitted).toBe(true);
    expect(one.labelled).toBe(15);
    expect(one.saved).toBe(false);
    await v.quality.markNoisyMany([await docId(v, 'bees note 0'), await docId(v, 'metal note 2')], false);
    const fit = await v.quality.fitNoise({ save: true });
    expect(fit.labelled).toBe(3);
    expect(fit.saved).toBe(true);
    expect(await v.store.getBlob(QUALITY_KEYS.noise)).not.toBeNull();
    const fixed = await v.quality.noiseScores();
    await v.quality.useNoise(true);
    const fitted = await v.quality.noiseScores();
    expect(fitted.map((r) => r.score)).not.toEqual(fixed.map((r) => r.score));
    expect(
      fitted
        .slice(0, 3)
        .map((r) => r.title)
        .sort(),
    ).toEqual(['Footer 0', 'Footer 1', 'Footer 2']);
    expect((await v.quality.rankerInfo()).noise.on).toBe(true);
  });

  it('ranker: training groups from logged asks, fit/save/use, retune is a no-op when off and a permutation when on', async () => {
    await v.quality.learn(true);
    for (const q of [
      'queen brood hive',
      'lens prism focal',
      'alloy furnace anneal',
      'nectar pollen swarm',
      'photon mirror aperture',
    ]) {
      await v.ask(q);
    }
    const data = await v.quality.trainingData();
    expect(data.X.length).toBeGreaterThan(0);
    expect(data.names).toHaveLength(21);
    expect(new Set(data.y)).toEqual(new Set([0, 1]));
    await expect(v.quality.useRanker(true)).rejects.toSatisfy((e: unknown) => isQuiverError(e, 'NOT_FOUND'));
    const fit = await v.quality.fitRanker({ save: true });
    expect(fit.model.fitted).toBe(true);
    expect(fit.saved).toBe(true);
    const ctx = await v.context('queen brood');
    expect(await v.quality.retuneContext('queen brood', ctx.sections)).toEqual(ctx.sections);
    await v.quality.useRanker(true);
    const tuned = await v.quality.retuneContext('queen brood', ctx.sections);
    expect(tuned.map((h) => h.sectionId).sort()).toEqual(ctx.sections.map((h) => h.sectionId).sort());
    const on = await v.context('queen brood');
    expect(on.sections.map((s) => s.n)).toEqual(on.sections.map((_, i) => i + 1));
    expect(on.sections.map((s) => s.sectionId)).toEqual(tuned.map((h) => h.sectionId));
    const info = await v.quality.rankerInfo();
    expect(info.ranker.on).toBe(true);
    expect(info.ranker.weights).toHaveLength(21);
    expect(info.ranker.fittedAt).toMatch(/^\d{4}-/);
    expect(info.learning).toBe(true);
  });

  it('retune with a model moves a favoured hit up by at most about one place at α 0.25', async () => {
    const ctx = await v.context('the hive and the lens and the alloy', { limit: 6 });
    expect(ctx.sections.length).toBeGreaterThanOrEqual(4);
    await v.quality.learn(true);
    // Teach "later is better": mark the last-shown section up and the first down, many times.
    for (let i = 0; i < 4; i++) {
      await v.quality.logAsk(
        {
          question: 'the hive and the lens and the alloy',
          context: ctx.sections.map((s) => ({ ...s, pages: null })),
          cited: [],
        },
        { up: [ctx.sections.length], down: [1] },
      );
    }
    const { model } = await v.quality.fitRanker();
    const tuned = await v.quality.retuneContext('the hive and the lens and the alloy', ctx.sections, {
      model,
    });
    const before = ctx.sections.map((s) => s.sectionId);
    const after = tuned.map((s) => s.sectionId);
    for (const id of before) expect(Math.abs(after.indexOf(id) - before.indexOf(id))).toBeLessThanOrEqual(1);
  });
});

describe('questionGroup', () => {
  it('ignores case and spacing, and separates different wording', () => {
    expect(questionGroup('How long to proof  dough ')).toBe(questionGroup('how long to proof dough'));
    expect(questionGroup('how long to proof dough')).not.toBe(questionGroup('how long to bake dough'));
    expect(questionGroup('x')).toMatch(/^q[0-9a-f]{11}$/);
  });
});

describe('hnswKnn', () => {
  it('agrees with exact kNN on small random data and never returns a row as its own neighbour', () => {
    const rng = new Prng(3);
    const V = Array.from({ length: 200 }, () => {
      const v = Float32Array.from({ length: 16 }, () => rng.normal());
      const s = Math.hypot(...v);
      return v.map((x) => x / s);
    });
    V.push(Float32Array.from(V[0]!)); // an exact duplicate: self must be removed by id
    const a = hnswKnn(V, 5);
    const b = knn(V, 5);
    let agree = 0;
    V.forEach((_, i) => {
      expect(a.idx[i]).not.toContain(i);
      expect(a.idx[i]).toHaveLength(5);
      agree += a.idx[i]!.filter((j) => b.idx[i]!.includes(j)).length;
    });
    expect(agree / (V.length * 5)).toBeGreaterThan(0.95);
    expect(a.idx[0]![0]).toBe(200);
    expect(a.sim[0]![0]).toBeCloseTo(1, 5);
    expect(hnswKnn(V.slice(0, 2), 5).idx).toEqual([[], []]);
  });
});
