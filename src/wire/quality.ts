import type { Vault } from '../vault.js';

/** The JSON shapes of the quality loop's records (snake_case; see README). */
type Loop = Vault['quality'];
type FeedbackRow = Awaited<ReturnType<Loop['ratings']>>[number];
type NoiseRow = Awaited<ReturnType<Loop['noiseScores']>>[number];
type MarkRow = Awaited<ReturnType<Loop['marks']>>[number];
type Transcript = NonNullable<Awaited<ReturnType<Vault['store']['getTranscript']>>>;

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
