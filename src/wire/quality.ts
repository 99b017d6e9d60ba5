import { QuiverError } from '../errors.js';
import type { Vault } from '../vault.js';

/** The JSON shapes of the quality loop's records (snake_case; see README). */
type Loop = Vault['quality'];
type FeedbackRow = Awaited<ReturnType<Loop['ratings']>>[number];
type NoiseRow = Awaited<ReturnType<Loop['noiseScores']>>[number];
type MarkRow = Awaited<ReturnType<Loop['marks']>>[number];
type Transcript = NonNullable<Awaited<ReturnType<Vault['store']['getTranscript']>>>;
type RankerFit = Awaited<ReturnType<Loop['fitRanker']>>;
type NoiseFit = Awaited<ReturnType<Loop['fitNoise']>>;
type RankerInfo = Awaited<ReturnType<Loop['rankerInfo']>>;

export function feedbackJson(r: FeedbackRow): Record<string, unknown> {
  return {
    id: r.id,
    at: r.at,
    question: r.q,
    ask_id: r.askId,
    section_id: r.sectionId,
    doc_id: r.docId,
    rank: r.rank,
    score: r.score,
    signal: r.signal,
    label: r.label,
    weight: r.weight,
  };
}

export function markJson(m: MarkRow): Record<string, unknown> {
  return { doc_id: m.docId, title: m.title, source: m.source, noisy: m.noisy, reason: m.reason };
}

export function noiseJson(r: NoiseRow): Record<string, unknown> {
  return {
    doc_id: r.docId,
    title: r.title,
    source: r.source,
    score: r.score,
    features: r.features,
    raw: r.raw,
  };
}

export function transcriptJson(t: Transcript): Record<string, unknown> {
  return {
    id: t.id,
    at: t.at,
    question: t.question,
    config_fingerprint: t.configFingerprint,
    config: t.config,
    prompt: t.prompt,
    answer: t.answer,
    cited: t.cited,
    invalid_citations: t.invalidCitations,
    generator: t.generator,
    usage: { prompt_tokens: t.usage.promptTokens, completion_tokens: t.usage.completionTokens },
    timings_ms: t.timings,
  };
}

/** A fitted ranker (`ranker fit`, `POST /v1/ranker/fit`); {@link requireFitted} first. */
export function rankerFitJson(r: RankerFit): Record<string, unknown> {
  return { fitted: r.model.fitted, saved: r.saved, meta: r.model.meta, weights: r.model.weights() };
}

/** A fitted noise blend (`noise fit`, `POST /v1/noise/fit`); {@link requireFitted} first. */
export function noiseFitJson(r: NoiseFit): Record<string, unknown> {
  return { ...rankerFitJson(r), labelled: r.labelled };
}

/** The learning switch, the ranker and the noise blend (`ranker show`, `GET /v1/ranker`). */
export function rankerInfoJson(i: RankerInfo): Record<string, unknown> {
  const model = (m: RankerInfo['ranker']): Record<string, unknown> => ({
    on: m.on,
    fitted_at: m.fittedAt,
    meta: m.meta,
    weights: m.weights,
  });
  return {
    learning: i.learning,
    feedback_rows: i.feedbackRows,
    ranker: model(i.ranker),
    noise: model(i.noise),
  };
}

/**
 * A fit that found nothing to learn from is NOT_FOUND, saying what the fit needs, so a script or
 * a client does not go on as if a model existed.
 */
export function requireFitted<R extends RankerFit | NoiseFit>(r: R): R {
  if (r.model.fitted) return r;
  if ('labelled' in r)
    throw new QuiverError(
      'NOT_FOUND',
      `quiver: noise blend not fitted: ${r.labelled} marked documents, and a fit needs at least one marked as noise (\`noise mark\`) and one kept (\`noise keep\`)`,
    );
  throw new QuiverError(
    'NOT_FOUND',
    'quiver: ranker not fitted: the feedback log has no question with both a positive and a negative row (turn on `quiver learn on` and ask, or `quiver rate` sections up and down for one question)',
  );
}
