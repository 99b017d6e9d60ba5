/**
 * The eval runner: every question of a set through every named config, measured per question, then
 * summarised and compared (`buildEvalResult`: bootstrap intervals and a paired bootstrap between
 * configs). Per question and config:
 *
 * - **retrieval** (`vault.search` with the config's options): nDCG@10, recall@10, recall@100 (only
 *   when the config retrieves ≥ 100), MRR@10, precision@10 against the question's `relevant` map
 *   (Undefined without labels), and unique@10 over the hits' texts;
 * - **grounding** (when answering: `vault.ask`, then `measureGrounding` with the config's judge):
 *   context relevance (Undefined without labels), faithfulness, citation support and precision,
 *   completeness, the ALCE columns, and `answer_recall` (the reference appears in the answer);
 * - **latency** per stage (ms) and **tokens**.
 *
 * @example
 * const result = await runEval({ vault, questions: readQuestionSet('q.jsonl'),
 *   configs: parseVariants('select=topk,mmr') }); // EvalResult: summaries + "select=mmr vs select=topk"
 */
import { cpus } from 'node:os';
import type { AskResult } from '../answer/ask.js';
import { judgedText } from '../answer/context-section.js';
import { isQuiverError, QuiverError, type QuiverErrorCode } from '../errors.js';
import type { Vault } from '../vault.js';
import {
  DEFAULT_CONFIG_NAME,
  DEFAULT_JUDGE,
  askOptionsOf,
  checkConfigNames,
  searchOptionsOf,
} from './eval-config.js';
import type { EvalConfig, JudgeName } from './eval-config.js';
import { metricValue } from './eval-result.js';
import type { EvalResult, MetricValue, QuestionResult } from './eval-result.js';
import { GROUNDING_METRICS, measureGrounding } from './grounding.js';
import type { GroundingClaim, GroundingSection } from './grounding.js';
import { createFactIdJudge } from './judges/fact-id.js';
import { matchWords, normalizeForMatch } from './judges/judge.js';
import type { Judge, RequiredFact } from './judges/judge.js';
import { createLexicalJudge } from './judges/lexical.js';
import { createLlmJudge } from './judges/llm.js';
import { undefinedMeasurement } from './measurement.js';
import { requiredFactsOf, wantsAnswers } from './question-set.js';
import type { EvalQuestion } from './question-set.js';
import {
  mrrAtK,
  ndcgAtK,
  precisionAtK,
  recallAtK,
  relevantIds,
  uniqueResultsAtK,
} from './retrieval-metrics.js';
import type { Gains } from './retrieval-metrics.js';
import { buildEvalResult, groundingRow } from './summary.js';
import { parseJsonlSource } from '../ingest/jsonl-id.js';

/** The cut-off of the rank metrics (nDCG@10, recall@10, MRR@10, precision@10, unique@10). */
export const DEFAULT_EVAL_K = 10;
/** The deep recall cut-off, reported only when a config retrieves at least this many results. */
export const DEEP_RECALL_K = 100;

/** What identifies a retrieved section for relevance matching. */
export interface RelevanceTarget {
  sectionId: string;
  docId: string;
  source: string;
}

/**
 * The key of `relevant` a retrieved section matches: its section id, else its document id, else its
 * document source, else — for a JSONL record, whose source is `<file>#<id>` (`jsonlSource`) — the
 * record's id as qrels write it (`d2`, `2`), else a relative path key that ends the source on a
 * folder boundary (`notes/a.md` for `/srv/vault/notes/a.md`: a question set written beside a corpus
 * that a server ingested from another folder), the first that is a key; null when none is. So a
 * section hit counts for its document's source key, and a BEIR corpus record for its corpus id.
 * Edge cases: a path key matches only after a `/` (`a.md` does not match `/x/ba.md`), and an
 * absolute key (`/…`) only exactly.
 */
export function relevanceKey(hit: RelevanceTarget, relevant: Gains): string | null {
  for (const k of [hit.sectionId, hit.docId, hit.source]) if (Object.hasOwn(relevant, k)) return k;
  const record = recordId(hit.source);
  if (record !== undefined && Object.hasOwn(relevant, record)) return record;
  for (const k of Object.keys(relevant))
    if (k !== '' && !k.startsWith('/') && hit.source.endsWith(`/${k}`)) return k;
  return null;
}

/** The id of the JSONL record a source names, as a string (`corpus.jsonl#n:2` → `2`), or undefined. */
function recordId(source: string): string | undefined {
  const record = parseJsonlSource(source);
  return record === null ? undefined : String(record.id);
}

/** The grade of a retrieved section: the grade of its matching key, 0 when it matches none. */
export function gradeOf(hit: RelevanceTarget, relevant: Gains): number {
  const k = relevanceKey(hit, relevant);
  return k === null ? 0 : Math.max(0, relevant[k] ?? 0);
}

/** A hit as the retrieval metrics see it: its identity and its text (or snippets). */
export type RetrievedHit = RelevanceTarget & { text?: string; snippets?: readonly string[] };

/**
 * The retrieval metrics of one ranked list. Hits become relevance keys (`relevanceKey`; an unjudged
 * hit keeps its section id), so several sections of one relevant document count once, at the first.
 * Without labels (no positive grade) the rank metrics are Undefined; recall@100 appears only when
 * `limit ≥ 100`; unique@k compares hit texts (snippets joined when the text is absent).
 *
 * @example retrievalRow([{sectionId: 'd#0', docId: 'd', source: 'a.md'}], {'a.md': 1}, {limit: 10})['ndcg@10'] // {num: 1, den: 1, value: 1}
 */
export function retrievalRow(
  hits: readonly RetrievedHit[],
  relevant: Gains,
  options: { limit: number; k?: number },
): Record<string, MetricValue> {
  const k = options.k ?? DEFAULT_EVAL_K;
  const ranked = hits.map((h) => relevanceKey(h, relevant) ?? `unjudged:${h.sectionId}`);
  const rel = relevantIds(relevant);
  const why = 'no relevance labels';
  // A fraction keeps its counts: value × den is the integer numerator.
  const frac = (v: number | null, den: number, reason = why): MetricValue =>
    v === null || den === 0 ? metricValue(null, reason) : { num: Math.round(v * den), den, value: v };
  const labelled = rel.size > 0;
  const row: Record<string, MetricValue> = {
    [`ndcg@${k}`]: metricValue(labelled ? ndcgAtK(ranked, relevant, k) : null, why),
    [`recall@${k}`]: frac(labelled ? recallAtK(ranked, rel, k) : null, rel.size),
  };
  if (options.limit >= DEEP_RECALL_K)
    row[`recall@${DEEP_RECALL_K}`] = frac(labelled ? recallAtK(ranked, rel, DEEP_RECALL_K) : null, rel.size);
  row[`mrr@${k}`] = metricValue(labelled ? mrrAtK(ranked, rel, k) : null, why);
  row[`precision@${k}`] = frac(labelled ? precisionAtK(ranked, rel, k) : null, k);
  const texts = hits.map((h) => h.text ?? (h.snippets ?? []).join(' '));
  row[`unique@${k}`] = frac(uniqueResultsAtK(texts, k), Math.min(k, texts.length), 'nothing retrieved');
  return row;
}

/**
 * answer_recall: 1 when the reference string appears in the answer (folded, whitespace collapsed),
 * else 0; Undefined when the question has no reference.
 */
export function answerRecall(answer: string, reference: string | undefined): MetricValue {
  const gold = reference === undefined ? '' : matchWords(reference);
  if (gold === '') return { num: 0, den: 0, value: null, undefinedReason: 'no reference answer' };
  // Whole words only: a gold "no" must not be found inside "north" or "Random".
  const hit = ` ${matchWords(answer)} `.includes(` ${gold} `) ? 1 : 0;
  return { num: hit, den: 1, value: hit };
}

/** Fact ids of a text: the `{id, phrasings}` facts with a phrasing in it (for the fact-id judge). */
function factIdsIn(text: string, facts: readonly RequiredFact[]): string[] {
  const t = normalizeForMatch(text);
  const out: string[] = [];
  for (const f of facts) {
    if (typeof f === 'string') continue;
    if (f.phrasings.some((p) => normalizeForMatch(p) !== '' && t.includes(normalizeForMatch(p))))
      out.push(f.id);
  }
  return out;
}

/** Create a judge by name. `llm` uses the vault's generator model, base URL and key variable. */
export function createJudge(name: JudgeName, vault: Vault, env: NodeJS.ProcessEnv = process.env): Judge {
  if (name === 'lexical') return createLexicalJudge();
  if (name === 'fact-id') return createFactIdJudge();
  const c = vault.config;
  if (c['generator.model'] === '' || c['generator.baseURL'] === '') {
    throw new QuiverError(
      'CONFIG',
      'quiver: the llm judge needs generator.model and generator.baseURL (QUIVER_MODEL, QUIVER_BASE_URL)',
    );
  }
  const key = env[c['generator.apiKeyEnv']];
  return createLlmJudge({
    model: c['generator.model'],
    baseURL: c['generator.baseURL'],
    ...(key === undefined ? {} : { apiKey: key }),
  });
}

/** A note for the report saying what a judge is (and that the lexical one is a proxy). */
export function judgeNote(judge: Judge): string {
  return judge.proxy
    ? `judge ${judge.id}: a lexical-overlap PROXY for support, not entailment; read faithfulness and citation support as approximate`
    : `judge ${judge.id}`;
}

export interface RunEvalOptions {
  vault: Vault;
  questions: readonly EvalQuestion[];
  /** Named configs; defaults to one config named `default` with the vault's settings. */
  configs?: readonly EvalConfig[];
  /** Answer and measure grounding. Defaults to true when any question has required facts or a reference. */
  answer?: boolean;
  /** Judge for configs that do not name one. Defaults to `DEFAULT_JUDGE` (lexical proxy). */
  judge?: JudgeName;
  /** Ready judges by name (tests, a shared LLM judge); others are created with `createJudge`. */
  judges?: Partial<Record<JudgeName, Judge>>;
  /** Cut-off of the rank metrics. Defaults to `DEFAULT_EVAL_K` (10). */
  k?: number;
  /** Shown on the report. */
  dataset?: string;
  notes?: readonly string[];
  env?: NodeJS.ProcessEnv;
  onProgress?: (p: { config: string; done: number; total: number }) => void;
  signal?: AbortSignal;
}

/** Stage timings from `search`/`ask` (`lexicalMs` → `lexical`), added into `into`. */
function addStages(
  into: Record<string, number>,
  timings: Record<string, number>,
  keys: readonly string[],
): void {
  for (const k of keys) {
    const v = timings[k];
    if (v !== undefined && Number.isFinite(v)) into[k.replace(/Ms$/u, '')] = v;
  }
}

/** Error codes of `ask` recorded on the question (Undefined answer metrics) rather than ending the run. */
export const RECORDED_ASK_FAILURES: ReadonlySet<QuiverErrorCode> = new Set(['REMOTE', 'TIMEOUT']);

const SEARCH_STAGES = ['lexicalMs', 'embedMs', 'vectorMs', 'fuseMs', 'selectMs', 'hydrateMs'] as const;

/** One question under one config: its row of metrics, latency and tokens. */
async function evaluateQuestion(
  vault: Vault,
  q: EvalQuestion,
  config: EvalConfig,
  judge: Judge | null,
  k: number,
  signal: AbortSignal | undefined,
): Promise<QuestionResult> {
  const t0 = performance.now();
  const searchOptions = { ...searchOptionsOf(config.settings), ...(signal === undefined ? {} : { signal }) };
  const limit = searchOptions.limit ?? vault.config['search.limit'];
  const latency: Record<string, number> = {};
  const s = await vault.search(q.question, searchOptions);
  latency.retrieve = performance.now() - t0;
  addStages(latency, s.timings, SEARCH_STAGES);
  const row: QuestionResult = { id: q.id, ...retrievalRow(s.hits, q.relevant, { limit, k }) };
  if (judge !== null) {
    let answered: AskResult;
    try {
      // record: false: measuring the vault must not add transcripts or feedback rows to it.
      answered = await vault.ask(q.question, {
        ...askOptionsOf(config.settings),
        record: false,
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (e) {
      if (!isQuiverError(e) || !RECORDED_ASK_FAILURES.has(e.code)) throw e;
      // One remote answer failing (a 5xx after retries, a timeout) is this question's result, not
      // the end of the run: its answer metrics are Undefined with the reason, and the row says why.
      const reason = `ask failed: ${e.code}: ${e.message}`;
      for (const m of [...GROUNDING_METRICS, 'answer_recall'])
        row[m] = { num: 0, den: 0, value: null, undefinedReason: reason };
      row.error = reason;
      latency.total = performance.now() - t0;
      row.latency_ms = latency;
      return row;
    }
    latency.context = answered.timings.contextMs ?? 0;
    latency.generate = answered.timings.generateMs ?? 0;
    const t1 = performance.now();
    Object.assign(row, await groundingOf(q, answered, judge, signal));
    latency.judge = performance.now() - t1;
    row.answer_recall = answerRecall(answered.answer, q.reference);
    row.tokens = { prompt: answered.usage.promptTokens, completion: answered.usage.completionTokens };
  }
  latency.total = performance.now() - t0;
  row.latency_ms = latency;
  return row;
}

/** The grounding measurements of one answer (context relevance Undefined when the question has no labels). */
async function groundingOf(
  q: EvalQuestion,
  r: AskResult,
  judge: Judge,
  signal: AbortSignal | undefined,
): Promise<Record<string, MetricValue>> {
  const labelled = relevantIds(q.relevant).size > 0;
  const facts = requiredFactsOf(q);
  const withFactIds = judge.id === 'fact-id';
  const retrieved: GroundingSection[] = r.context.map((c) => {
    const section: GroundingSection = {
      id: c.sectionId,
      relevant: gradeOf(c, q.relevant) > 0,
      text: judgedText(c),
    };
    if (withFactIds) {
      const authored = q.sources
        .filter(
          (src) =>
            src.id === c.sectionId ||
            src.id === c.docId ||
            src.id === c.source ||
            src.id === recordId(c.source),
        )
        .flatMap((src) => src.facts);
      section.factIds = [...new Set([...authored, ...factIdsIn(c.text, facts)])];
    }
    return section;
  });
  const claims: GroundingClaim[] = r.claims.map((c) =>
    withFactIds
      ? { text: c.text, citations: c.citations, factIds: factIdsIn(c.text, facts) }
      : { text: c.text, citations: c.citations },
  );
  const g = await measureGrounding({
    retrieved,
    claims,
    requiredFacts: facts,
    answerText: r.answer,
    judge,
    ...(signal === undefined ? {} : { signal }),
  });
  const row = groundingRow(g);
  if (!labelled) row.contextRelevance = undefinedMeasurement('no relevance labels');
  return row;
}

/** The machine the run happened on, for the report. */
export function machineInfo(): Record<string, unknown> {
  const list = cpus();
  return {
    cpu: list[0]?.model ?? 'unknown',
    cores: list.length,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/**
 * Run every question through every config and build the `EvalResult` (summaries with bootstrap
 * intervals; each later config compared with the first by the paired bootstrap, 5,000 resamples,
 * 95% percentile interval). Questions run one after another (SQLite is synchronous).
 */
export async function runEval(options: RunEvalOptions): Promise<EvalResult> {
  const { vault, questions } = options;
  const configs = options.configs ?? [{ name: DEFAULT_CONFIG_NAME, settings: {} }];
  if (configs.length === 0) throw new QuiverError('BAD_INPUT', 'quiver: eval needs at least one config');
  if (questions.length === 0) throw new QuiverError('BAD_INPUT', 'quiver: the question set is empty');
  checkConfigNames(configs);
  const k = options.k ?? DEFAULT_EVAL_K;
  const answer = options.answer ?? wantsAnswers(questions);
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  const judges = new Map<JudgeName, Judge>(Object.entries(options.judges ?? {}) as [JudgeName, Judge][]);
  const judgeFor = (name: JudgeName): Judge => {
    let j = judges.get(name);
    if (j === undefined) judges.set(name, (j = createJudge(name, vault, options.env)));
    return j;
  };
  const notes: string[] = [...(options.notes ?? [])];
  const used = new Set<Judge>();
  const results: { name: string; settings: Record<string, unknown>; questions: QuestionResult[] }[] = [];
  for (const config of configs) {
    const judge = answer ? judgeFor(config.settings.judge ?? options.judge ?? DEFAULT_JUDGE) : null;
    if (judge !== null) used.add(judge);
    const rows: QuestionResult[] = [];
    for (const q of questions) {
      if (options.signal?.aborted === true) throw new QuiverError('ABORTED', 'quiver: eval aborted');
      rows.push(await evaluateQuestion(vault, q, config, judge, k, options.signal));
      options.onProgress?.({ config: config.name, done: rows.length, total: questions.length });
    }
    results.push({ name: config.name, settings: { ...config.settings }, questions: rows });
  }
  for (const j of used) notes.push(judgeNote(j));
  if (!answer)
    notes.push(
      'retrieval only: no answers generated (the set has no required facts or references; pass --answer to answer anyway)',
    );
  return buildEvalResult({
    configs: results,
    meta: {
      dataset: options.dataset ?? 'questions',
      startedAt,
      durationMs: performance.now() - t0,
      machine: machineInfo(),
      notes,
    },
  });
}
