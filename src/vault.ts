import { createHash, randomUUID } from 'node:crypto';
import { answerFromContext, type AskResult } from './answer/ask.js';
import { toContextSection, type ContextSection } from './answer/context-section.js';
import type { Generator } from './answer/generator.js';
import { createExtractiveGenerator } from './answer/generators/extractive.js';
import { createOpenAIGenerator } from './answer/generators/openai-compatible.js';
import { bestChunks } from './retrieve/sections.js';
import { contentTerms } from './text/tokens.js';
import type { Embedder } from './embed/embedder.js';
import { QuiverError } from './errors.js';
import { loadConfig, type Config, type ConfigKey, type LoadedConfig } from './config.js';
import { ingest, vaultRoot, type AddInput, type AddOptions, type AddReport } from './ingest/ingest.js';
import type { Legs } from './retrieve/hybrid.js';
import {
  searchSections,
  type SectionHit,
  type SectionSearchResult,
  type SelectionOptions,
} from './retrieve/sections.js';
import { QualityLoop } from './quality/quality-loop.js';
import { builtinEmbedder, fitBuiltin, needsFit } from './embed/builtin-state.js';
import { createEmbedder } from './embed/factory.js';
import { reindex, type ReindexOptions, type ReindexResult } from './embed/reindex.js';
import { SqliteStore } from './store/sqlite/sqlite-store.js';
import type { RollbackResult, Store, StoreStats, TranscriptRecord } from './store/store.js';
import type { BatchRecord, DocumentRecord, QueryMode, SearchFilter, SectionRecord } from './types.js';

/** Progress of building the vector index (HNSW above `ann.threshold`): rows inserted of total. */
export type IndexProgress = (done: number, total: number) => void;

/** Options of `Vault.add`: ingest options plus progress of the index updates that follow. */
export interface VaultAddOptions extends AddOptions {
  onIndexProgress?: IndexProgress;
  /** Progress of a lexical index rebuild (above `lexical.threshold`): tokens read of total. */
  onLexicalIndexProgress?: IndexProgress;
}

/** Per-call retrieval options; anything left out comes from the configuration. */
export interface SearchOptions {
  limit?: number;
  mode?: QueryMode;
  legs?: Legs;
  lexicalWeight?: number;
  vectorWeight?: number;
  /** Weight of the lexical leg's pseudo-relevance feedback pass (0 = off). */
  feedbackWeight?: number;
  filter?: SearchFilter;
  select?: Partial<SelectionOptions>;
  signal?: AbortSignal;
}

export type GeneratorName = 'extractive' | 'openai';

/** Options of `ask`: retrieval options plus the generator and streaming. */
export interface AskOptions extends SearchOptions {
  generator?: GeneratorName;
  onToken?: (t: string) => void;
  /**
   * Keep a transcript and let the quality loop observe the answer (default true). Evaluations
   * pass false so measuring a vault does not write into it; `transcriptId` is then null.
   */
  record?: boolean;
}

/** A section read in full: its own text plus its descendants', in document order. */
export interface ReadResult {
  section: SectionRecord;
  document: DocumentRecord;
  children: string[];
  text: string;
}

export interface OpenVaultOptions {
  /** Config overrides by key (CLI flags). */
  overrides?: Partial<Record<ConfigKey, unknown>>;
  configFile?: string;
  env?: NodeJS.ProcessEnv;
  /** Inject a store or embedder (tests, other back ends). */
  store?: Store;
  embedder?: Embedder;
  /** Skip the embedder-fingerprint check (reindex uses this). */
  allowEmbedderMismatch?: boolean;
}

export const EMBEDDER_META_KEY = 'embedder';

/** Config keys whose values must never reach a transcript (none hold secrets today: keys live in env vars). */
const SECRET_KEY = /(secret|password|apiKey)$/i;

/**
 * The configuration as a transcript records it: secret-named keys dropped and credentials in URLs
 * redacted; and its fingerprint, SHA-256 (hex) of that object's JSON with keys sorted.
 */
function transcriptConfig(c: Config): { config: Record<string, unknown>; fingerprint: string } {
  const config: Record<string, unknown> = {};
  for (const k of Object.keys(c).sort()) {
    if (SECRET_KEY.test(k)) continue;
    const v = (c as Record<string, unknown>)[k];
    config[k] = typeof v === 'string' ? v.replace(/\/\/[^/@\s]*@/, '//***@') : v;
  }
  return { config, fingerprint: createHash('sha256').update(JSON.stringify(config)).digest('hex') };
}

/** The configured embedder; the built-in one with the vault's fitted IDF when it has one. */
async function embedderFor(c: Config, store: Store): Promise<Embedder> {
  const dims = c['embedder.dims'] > 0 ? { dims: c['embedder.dims'] } : {};
  switch (c['embedder.provider']) {
    case 'builtin':
      return builtinEmbedder(store, dims);
    case 'openai':
      if (c['embedder.model'] === '' || c['embedder.baseURL'] === '') {
        throw new QuiverError(
          'CONFIG',
          'quiver: the openai embedder needs embedder.model and embedder.baseURL (QUIVER_EMBEDDER_MODEL, QUIVER_EMBEDDER_URL)',
        );
      }
      return createEmbedder({
        provider: 'openai',
        baseURL: c['embedder.baseURL'],
        model: c['embedder.model'],
        apiKeyEnv: c['embedder.apiKeyEnv'],
        ...dims,
      });
    case 'transformers':
      if (c['embedder.model'] === '')
        throw new QuiverError(
          'CONFIG',
          'quiver: the transformers embedder needs embedder.model (a hub id or a local folder)',
        );
      return createEmbedder({ provider: 'transformers', model: c['embedder.model'] });
  }
}

/** Meta key: how many chunks the built-in embedder's IDF was fitted on. */
export const FITTED_ON_KEY = 'embedder.builtin.fittedOn';

/**
 * The vault: one store, one embedder, one configuration. Every stage is also a plain function
 * (`ingest`, `hybridRetrieve`, `searchSections`, …); this facade wires them with the config.
 */
export class Vault {
  /** Tokens spent by `ask` through this Vault (the session of QUIVER_TOKEN_BUDGET). */
  spentTokens = 0;
  private readonly generators = new Map<GeneratorName, Generator>();
  /** Feedback, prior, noise marks and the ranker of this vault (src/quality/quality-loop.ts). */
  private qualityLoop: QualityLoop;
  private currentEmbedder: Embedder;

  private constructor(
    readonly store: Store,
    embedder: Embedder,
    readonly loaded: LoadedConfig,
    readonly root: string,
  ) {
    this.currentEmbedder = embedder;
    this.qualityLoop = new QualityLoop(store, embedder);
  }

  /** The embedder in use (the built-in one changes when its IDF is refitted). */
  get embedder(): Embedder {
    return this.currentEmbedder;
  }

  get quality(): QualityLoop {
    return this.qualityLoop;
  }

  private useEmbedder(e: Embedder): void {
    this.currentEmbedder = e;
    this.qualityLoop = new QualityLoop(this.store, e);
  }

  get config(): Config {
    return this.loaded.config;
  }

  /**
   * Open (creating if needed) the vault named by the configuration.
   * @example const v = await Vault.open({ overrides: { vault: 'notes.db' } });
   */
  static async open(options: OpenVaultOptions = {}): Promise<Vault> {
    const loaded = loadConfig({
      ...(options.configFile === undefined ? {} : { file: options.configFile }),
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.overrides === undefined ? {} : { overrides: options.overrides }),
    });
    const c = loaded.config;
    const store =
      options.store ??
      SqliteStore.open(c.vault, {
        ann: {
          threshold: c['ann.threshold'],
          m: c['ann.m'],
          efConstruction: c['ann.efConstruction'],
          efSearch: c['ann.efSearch'],
          native: c['ann.native'],
          buildThreads: c['ann.buildThreads'],
        },
        lexical: { threshold: c['lexical.threshold'] },
      });
    try {
      const embedder = options.embedder ?? (await embedderFor(c, store));
      const recorded = await store.getMeta(EMBEDDER_META_KEY);
      if (recorded !== null && recorded !== embedder.id && options.allowEmbedderMismatch !== true) {
        throw new QuiverError(
          'EMBEDDER_MISMATCH',
          `quiver: this vault's vectors were made by embedder "${recorded}", but the configured embedder is "${embedder.id}"; run \`quiver reindex\` to re-embed with the new one, or configure the old one again`,
          { details: { vault: recorded, configured: embedder.id } },
        );
      }
      return new Vault(store, embedder, loaded, vaultRoot(c.vault));
    } catch (e) {
      if (options.store === undefined) await store.close();
      throw e;
    }
  }

  async close(): Promise<void> {
    await this.store.close();
  }

  /**
   * Ingest files, folders or literal text as one batch. With the built-in embedder, the vault's IDF
   * is fitted once it holds `MIN_FIT_CHUNKS` chunks and refitted when it has doubled since; a refit
   * re-embeds every chunk (`refit` in the report says so).
   */
  async add(
    inputs: readonly AddInput[],
    options: VaultAddOptions = {},
  ): Promise<AddReport & { refit: ReindexResult | null }> {
    if (inputs.length === 0)
      throw new QuiverError('BAD_INPUT', 'quiver: add needs at least one path or text');
    if ((await this.store.getMeta(EMBEDDER_META_KEY)) === null)
      await this.store.setMeta(EMBEDDER_META_KEY, this.embedder.id);
    const { onIndexProgress, onLexicalIndexProgress, ...ingestOptions } = options;
    const report = await ingest(this.store, this.embedder, inputs, {
      root: this.root,
      chunkChars: this.config['ingest.chunkChars'],
      maxFileBytes: this.config['ingest.maxFileBytes'],
      ...ingestOptions,
    });
    let refit: ReindexResult | null = null;
    if (this.config['embedder.provider'] === 'builtin' && report.batch.added + report.batch.updated > 0) {
      const fittedOn = await this.store.getMeta(FITTED_ON_KEY);
      const chunks = (await this.store.stats()).chunks;
      if (needsFit(fittedOn === null ? null : Number(fittedOn), chunks))
        refit = await this.reindex({
          refit: true,
          ...(onIndexProgress === undefined ? {} : { onIndexProgress }),
        });
    }
    // Build or update the vector index now (above the ANN threshold), not in the first search.
    if (report.batch.added + report.batch.updated > 0 && refit === null)
      await this.store.prepareVectorIndex?.(this.embedder.id, onIndexProgress);
    // Likewise the lexical index (above `lexical.threshold`): updated, or rebuilt when many rows changed.
    if (report.batch.added + report.batch.updated > 0)
      await this.store.prepareLexicalIndex?.(onLexicalIndexProgress);
    return { ...report, refit };
  }

  /**
   * Re-embed every chunk with the configured embedder (resumable after a crash). With the built-in
   * embedder and `refit`, first refit its IDF on the vault's chunks.
   */
  async reindex(
    options: ReindexOptions & { refit?: boolean; onIndexProgress?: IndexProgress } = {},
  ): Promise<ReindexResult> {
    let target = this.embedder;
    if (this.config['embedder.provider'] === 'builtin' && options.refit === true) {
      target = await fitBuiltin(
        this.store,
        this.config['embedder.dims'] > 0 ? { dims: this.config['embedder.dims'] } : {},
      );
      await this.store.setMeta(FITTED_ON_KEY, String((await this.store.stats()).chunks));
    }
    const { onIndexProgress, ...rest } = options;
    const r = await reindex(this.store, target, rest);
    this.useEmbedder(target);
    await this.store.prepareVectorIndex?.(target.id, onIndexProgress);
    return r;
  }

  /** The selection settings for a call: config defaults overlaid with the call's. */
  selection(overrides: Partial<SelectionOptions> = {}): SelectionOptions {
    const c = this.config;
    return {
      method: c['select.method'],
      oversample: c['select.oversample'],
      sigma: c['select.sigma'],
      diversityWeight: c['select.diversityWeight'],
      relevanceWeight: c['select.relevanceWeight'],
      lambda: c['select.lambda'],
      relevance: c['select.relevance'],
      temperature: c['select.temperature'],
      ...overrides,
    };
  }

  private validate(text: string, options: SearchOptions): number {
    if (typeof text !== 'string') throw new QuiverError('BAD_INPUT', 'quiver: query must be a string');
    const limit = options.limit ?? this.config['search.limit'];
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new QuiverError('BAD_INPUT', `quiver: limit must be an integer in 1..1000, got ${String(limit)}`);
    }
    return limit;
  }

  private async run(
    text: string,
    options: SearchOptions,
    withText: boolean,
    limitOverride?: number,
  ): Promise<SectionSearchResult> {
    const limit = limitOverride ?? this.validate(text, options);
    const c = this.config;
    return searchSections(
      this.store,
      this.embedder,
      text,
      limit,
      {
        mode: options.mode ?? c['search.mode'],
        legs: options.legs ?? 'both',
        lexicalWeight: options.lexicalWeight ?? c['search.lexicalWeight'],
        vectorWeight: options.vectorWeight ?? c['search.vectorWeight'],
        rrfK: c['search.rrfK'],
        fieldWeights: { body: 1, title: c['search.titleWeight'], heading: c['search.headingWeight'] },
        feedback: {
          weight: options.feedbackWeight ?? c['search.feedbackWeight'],
          docs: c['search.feedbackDocs'],
          terms: c['search.feedbackTerms'],
        },
        ...(options.filter === undefined ? {} : { filter: options.filter }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      this.selection(options.select),
      { withText },
    );
  }

  /** Sections best matching `text`, with snippets (chunk hits merged per section). */
  async search(text: string, options: SearchOptions = {}): Promise<SectionSearchResult> {
    return this.run(text, options, false);
  }

  /** Like `search`, with each section's own text. */
  async sections(text: string, options: SearchOptions = {}): Promise<SectionSearchResult> {
    return this.run(text, options, true);
  }

  /**
   * Numbered sections for a prompt: `context.sections` of them (or `limit`), skipping a section
   * whose text repeats one already taken; each carries its full text (own text, or its
   * descendants' when it has none of its own).
   */
  async context(
    text: string,
    options: SearchOptions = {},
  ): Promise<{ sections: (SectionHit & { n: number; text: string })[]; timings: Record<string, number> }> {
    const want = options.limit ?? this.config['context.sections'];
    this.validate(text, { ...options, limit: want });
    const r = await this.run(text, options, true, want);
    const seen = new Set<string>();
    let out: (SectionHit & { n: number; text: string })[] = [];
    for (const h of r.hits) {
      let body = h.text ?? '';
      if (body.trim() === '') body = (await this.read(h.sectionId)).text;
      const key = body.replace(/\s+/g, ' ').trim().toLowerCase();
      if (key === '' || seen.has(key)) continue;
      seen.add(key);
      out.push({ ...h, text: body, n: out.length + 1 });
    }
    // Quality loop: when a person switched the fitted ranker on, it nudges the order (α = 0.25).
    if (await this.quality.isRankerOn()) {
      out = (await this.quality.retuneContext(text, out)).map((h, i) => ({ ...h, n: i + 1 }));
    }
    return { sections: out, timings: r.timings };
  }

  /**
   * The generator named (default: the configured one). The extractive generator is offline and
   * uses the vault's embedder; `openai` needs `generator.model` and `generator.baseURL`.
   */
  generator(name: GeneratorName = this.config['generator.provider']): Generator {
    const cached = this.generators.get(name);
    if (cached !== undefined) return cached;
    const c = this.config;
    let g: Generator;
    if (name === 'extractive') {
      g = createExtractiveGenerator({
        embed: (texts) => this.embedder.embed(texts, { purpose: 'document' }),
      });
    } else {
      if (c['generator.model'] === '' || c['generator.baseURL'] === '') {
        throw new QuiverError(
          'CONFIG',
          'quiver: the openai generator needs generator.model and generator.baseURL (QUIVER_MODEL, QUIVER_BASE_URL)',
        );
      }
      g = createOpenAIGenerator({
        baseURL: c['generator.baseURL'],
        model: c['generator.model'],
        apiKeyEnv: c['generator.apiKeyEnv'],
        temperature: c['generator.temperature'],
        maxTokens: c['generator.maxTokens'],
        timeoutMs: c['generator.timeoutMs'],
      });
    }
    this.generators.set(name, g);
    return g;
  }

  /**
   * Context sections for a prompt. A section longer than the per-section budget is focused on the
   * chunks that match the question (in document order, joined by ` … `) instead of being cut at its
   * start.
   */
  async promptContext(
    question: string,
    options: SearchOptions = {},
  ): Promise<{ sections: ContextSection[]; timings: Record<string, number> }> {
    const budget = this.config['context.sectionChars'];
    const r = await this.context(question, options);
    const terms = new Set(contentTerms(question));
    const sections: ContextSection[] = [];
    for (const h of r.sections) {
      let text = h.text;
      if ([...text].length > budget) {
        const chunks = await this.store.chunksOfSections([h.sectionId]);
        const ranked = bestChunks(chunks, terms, h.chunkIds);
        const keep: typeof chunks = [];
        let used = 0;
        for (const c of ranked) {
          if (keep.length > 0 && used + c.text.length > budget) break;
          keep.push(c);
          used += c.text.length + 3;
        }
        text = keep
          .sort((a, b) => a.ord - b.ord)
          .map((c) => c.text.trim())
          .join(' … ');
      }
      sections.push(toContextSection(h.n, h, text));
    }
    return { sections, timings: r.timings };
  }

  /**
   * Answer a question from the vault with `[n]` citations: context (after selection), prompt,
   * generator, claims. Refuses before calling a model when `tokenBudget` would be exceeded.
   */
  async ask(question: string, options: AskOptions = {}): Promise<AskResult> {
    if (typeof question !== 'string' || question.trim() === '')
      throw new QuiverError('BAD_INPUT', 'quiver: ask needs a question');
    const t0 = performance.now();
    const ctx = await this.promptContext(question, options);
    const t1 = performance.now();
    const generator = this.generator(options.generator);
    const budget = this.config.tokenBudget;
    const r = await answerFromContext(question, ctx.sections, generator, {
      budgets: {
        sectionChars: this.config['context.sectionChars'],
        totalChars: this.config['context.totalChars'],
      },
      maxTokens: this.config['generator.maxTokens'],
      ...(budget > 0 ? { remainingTokens: Math.max(0, budget - this.spentTokens) } : {}),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onToken === undefined ? {} : { onToken: options.onToken }),
    });
    this.spentTokens += r.usage.promptTokens + r.usage.completionTokens;
    const { generateMs, ...rest } = r;
    const timings = { ...ctx.timings, contextMs: t1 - t0, generateMs, totalMs: performance.now() - t0 };
    // Quality loop: keep a transcript of every answer, and log it for learning when that is on.
    const { config, fingerprint } = transcriptConfig(this.config);
    const transcript: TranscriptRecord = {
      id: randomUUID().replace(/-/g, '').slice(0, 16),
      at: new Date().toISOString(),
      question,
      configFingerprint: fingerprint,
      config,
      prompt: { system: r.prompt.system, user: r.prompt.user },
      answer: r.answer,
      cited: r.cited.map((c) => c.sectionId),
      invalidCitations: r.invalidCitations,
      generator: r.generator,
      usage: r.usage,
      timings,
    };
    if (options.record === false) return { ...rest, timings, transcriptId: null };
    await this.store.putTranscript(transcript);
    const result: AskResult = { ...rest, timings, transcriptId: transcript.id };
    await this.quality.observe(result);
    return result;
  }

  /** A section with its descendants' text. */
  async read(sectionId: string): Promise<ReadResult> {
    const [section] = await this.store.getSections([sectionId]);
    if (section === undefined) throw new QuiverError('NOT_FOUND', `quiver: no section ${sectionId}`);
    const document = await this.store.getDocument(section.docId);
    if (document === null) throw new QuiverError('NOT_FOUND', `quiver: no document ${section.docId}`);
    const all = await this.store.listSections(section.docId);
    const inTree = new Set([section.id]);
    const parts: string[] = [section.text];
    const children: string[] = [];
    for (const s of all) {
      if (s.parentId !== null && inTree.has(s.parentId)) {
        inTree.add(s.id);
        if (s.parentId === section.id) children.push(s.id);
        parts.push(`${'#'.repeat(Math.min(6, Math.max(1, s.level)))} ${s.title}\n\n${s.text}`);
      }
    }
    return { section, document, children, text: parts.filter((p) => p.trim() !== '').join('\n\n') };
  }

  async docs(options: { filter?: SearchFilter; limit?: number } = {}): Promise<DocumentRecord[]> {
    return this.store.listDocuments(options);
  }

  async batches(limit?: number): Promise<BatchRecord[]> {
    return this.store.listBatches(limit);
  }

  /** Roll back a batch (default: the newest one not yet rolled back). */
  async undo(batchId?: string): Promise<RollbackResult> {
    let id = batchId;
    if (id === undefined) {
      const live = (await this.store.listBatches(1000)).find((b) => b.status !== 'rolled_back');
      if (live === undefined) throw new QuiverError('NOT_FOUND', 'quiver: there is no batch to undo');
      id = live.id;
    }
    return this.store.rollbackBatch(id);
  }

  async stats(): Promise<StoreStats> {
    return this.store.stats();
  }
}
