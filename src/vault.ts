import { randomUUID } from 'node:crypto';
import { answerFromContext, type AskResult } from './answer/ask.js';
import { judgedText, toContextSection, type ContextSection } from './answer/context-section.js';
import type { Generator } from './answer/generator.js';
import { createExtractiveGenerator, NOT_IN_SOURCES, questionTerms } from './answer/generators/extractive.js';
import { abstentionText, evidenceCoverage } from './answer/abstain.js';
import { twinCandidates, withConflictingTwins } from './answer/conflicting-twins.js';
import { transcriptConfig } from './answer/transcript-config.js';
import { subtree } from './retrieve/subtree.js';
import { createOpenAIGenerator } from './answer/generators/openai-compatible.js';
import { bestChunks } from './retrieve/sections.js';
import { contentTerms } from './text/tokens.js';
import type { Embedder } from './embed/embedder.js';
import { failpoint } from './_failpoint.js';
import type { AskEvent } from './answer/ask-events.js';
import { QuiverError } from './errors.js';
import { loadConfig, storeLocation, type Config, type ConfigKey, type LoadedConfig } from './config.js';
import type { AddInput, AddOptions, AddReport } from './ingest/ingest.js';
import { ingestRoot } from './ingest/vault-root.js';
import type { HybridOptions, Legs } from './retrieve/hybrid.js';
import { selectionMap, type SelectionMap } from './retrieve/selection-map.js';
import { hasSearchableWord } from './retrieve/query-terms.js';
import {
  type PassedOver,
  searchSections,
  type SectionHit,
  type SectionSearchResult,
  type SelectionOptions,
} from './retrieve/sections.js';
import { QualityLoop } from './quality/quality-loop.js';
import {
  builtinEmbedder,
  fitBuiltin,
  IDF_BLOB,
  needsFit,
  PENDING_IDF_BLOB,
} from './maintenance/builtin-state.js';
import { embedderFor } from './maintenance/configured-embedder.js';
import { REINDEX_TARGET_KEY, type ReindexOptions, type ReindexResult } from './maintenance/reindex.js';
import { parseStoreLocation } from './store/location.js';
import { openStore } from './store/open-store.js';
import type {
  CompactResult,
  RollbackResult,
  Store,
  StoreHealth,
  StoreStats,
  TranscriptRecord,
  WriterHolder,
} from './store/store.js';
import type { PrepareIndexesRequest } from './store/maintenance.js';
import { acquireWriter, type WriterLease } from './store/writer.js';
import { holderAlive } from './store/liveness.js';
import type { ExportOptions, ExportReport } from './transfer/export.js';
import type { ExportTarget, ImportSource } from './transfer/files.js';
import type { ImportOptions, ImportReport } from './transfer/import.js';
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
  /** Reciprocal-rank-fusion constant k (default `search.rrfK`). */
  rrfK?: number;
  /** Lowest cosine of a vector-leg hit (retrieve/vector-floor.ts). */
  minSimilarity?: number;
  filter?: SearchFilter;
  select?: Partial<SelectionOptions>;
  signal?: AbortSignal;
}

export type GeneratorName = 'extractive' | 'openai';

/** Options of `ask`: retrieval options plus the generator and streaming. */
export interface AskOptions extends SearchOptions {
  generator?: GeneratorName;
  onToken?: (t: string) => void;
  /** Told of each step as it happens (answer/ask-events.ts): the one stream the faces consume. */
  onEvent?: (e: AskEvent) => void;
  /**
   * Whose token budget (`QUIVER_TOKEN_BUDGET`) this ask spends: each account (a server token, an
   * MCP session) has its own. Default: the process's.
   */
  account?: string;
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
  /**
   * Open for reading only: the file is never created, migrated or written (a missing vault is
   * NOT_FOUND, a file that is not a vault SCHEMA), and every write method throws CONFLICT.
   */
  readonly?: boolean;
  /** Told what a person should know that is not an error (a recovered crash, a slow path taken). */
  logger?: VaultLogger;
}

/** Where the library reports notices; it never writes to stdout or stderr itself. */
export interface VaultLogger {
  warn(message: string): void;
}

/** What a write found and repaired before it started (left behind by a process that died). */
export interface Recovery {
  /** Batches that were 'running' when their process died, now 'interrupted'. */
  interrupted: BatchRecord[];
  /** An IDF refit that died half-way and was rolled back (its partial vectors removed). */
  refitRolledBack: boolean;
}

/** `Vault.health()`: every consistency fact `quiver doctor` reports, each with its repair. */
export interface VaultHealth extends StoreHealth {
  activeFingerprint: string | null;
  /** The process holding the writer slot, and whether it is alive. */
  writer: (WriterHolder & { alive: boolean }) | null;
  /** Batches interrupted (or running with their process gone). */
  interrupted: BatchRecord[];
  /** A reindex or refit that has not finished: its target fingerprint. */
  unfinishedReindex: string | null;
  /** One line per problem: what is wrong and the command that repairs it. */
  problems: { problem: string; repair: string }[];
}

/** `Vault.rm`'s report. */
export interface RemoveReport {
  batch: BatchRecord;
  removed: DocumentRecord[];
}

export const EMBEDDER_META_KEY = 'embedder';

/** Meta key: how many chunks the built-in embedder's IDF was fitted on. */
export const FITTED_ON_KEY = 'embedder.builtin.fittedOn';

/**
 * The vault: one store, one embedder, one configuration. Every stage is also a plain function
 * (`ingest`, `hybridRetrieve`, `searchSections`, …); this facade wires them with the config.
 */
export class Vault {
  /** Tokens spent by `ask` through this Vault, per account (`AskOptions.account`; '' the process's). */
  readonly spentTokens = new Map<string, number>();
  private readonly generators = new Map<GeneratorName, Generator>();
  /** Feedback, prior, noise marks and the ranker of this vault (src/quality/quality-loop.ts). */
  private qualityLoop: QualityLoop;
  private currentEmbedder: Embedder;

  /** Writes inside this process run one at a time (the writer slot orders processes). */
  private writeChain: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly store: Store,
    embedder: Embedder,
    readonly loaded: LoadedConfig,
    readonly root: string,
    readonly readonly: boolean,
    private readonly logger: VaultLogger | undefined,
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
    const readonly = options.readonly === true;
    // `store` (a URL) when set, else the vault file; the ingest root follows from it.
    const location = storeLocation(loaded);
    const root = ingestRoot(parseStoreLocation(location), loaded.file, process.cwd());
    const ann = {
      threshold: c['ann.threshold'],
      m: c['ann.m'],
      efConstruction: c['ann.efConstruction'],
      efSearch: c['ann.efSearch'],
    };
    const store =
      options.store ??
      (await openStore(location, {
        readonly,
        ...(options.logger === undefined ? {} : { onNotice: (m: string) => options.logger?.warn(m) }),
        sqlite: {
          busyTimeoutMs: c['store.busyTimeoutMs'],
          ann: { ...ann, native: c['ann.native'], buildThreads: c['ann.buildThreads'] },
          lexical: { threshold: c['lexical.threshold'] },
        },
        postgres: { ann: { ...ann, threshold: c['ann.postgresThreshold'] }, replicaUrl: c['store.replica'] },
      }));
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
      return new Vault(store, embedder, loaded, root, readonly, options.logger);
    } catch (e) {
      if (options.store === undefined) await store.close();
      throw e;
    }
  }

  async close(): Promise<void> {
    await this.store.close();
  }

  /**
   * Run `work` as this vault's one writer: in order with the other writes of this process, holding
   * the store's writer slot (another process writing makes this wait up to `writer.waitSeconds`,
   * then CONFLICT), after repairing what a dead writer left ({@link Recovery}).
   */
  private async writing<T>(
    command: string,
    work: (lease: WriterLease, recovery: Recovery) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    if (this.readonly)
      throw new QuiverError('CONFLICT', `quiver: this vault is open read-only; \`${command}\` writes`);
    const run = async (): Promise<T> => {
      const lease = await acquireWriter(this.store, command, {
        waitMs: this.config['writer.waitSeconds'] * 1000,
        ...(signal === undefined ? {} : { signal }),
        onWait: (h) =>
          this.logger?.warn(
            `quiver: waiting for the vault: process ${h.pid} is running \`${h.command}\`${h.batchId === null ? '' : ` (batch ${h.batchId})`}`,
          ),
      });
      try {
        failpoint('writer.claimed');
        return await work(lease, await this.recover());
      } finally {
        await lease.release();
      }
    };
    const next = this.writeChain.then(run, run);
    this.writeChain = next.catch(() => undefined);
    return next;
  }

  /**
   * Repair what a writer that died left behind (the caller holds the writer slot): its running
   * batches become 'interrupted' (kept; `undo` removes them), and a refit that died half-way is
   * rolled back (its partial vectors and pending IDF removed; the next add refits again).
   */
  private async recover(): Promise<Recovery> {
    const interrupted = await this.store.interruptRunningBatches();
    for (const b of interrupted)
      this.logger?.warn(
        `quiver: batch ${b.id} (${b.label}) was interrupted: its process ${b.owner === null ? '' : `${b.owner.pid} `}stopped before the end; its ${b.added + b.updated} whole documents are kept (\`quiver undo --batch ${b.id}\` removes them, re-running the add finishes it)`,
      );
    let refitRolledBack = false;
    const target = (await this.store.getMeta(REINDEX_TARGET_KEY)) ?? '';
    const pending = await this.store.getBlob(PENDING_IDF_BLOB);
    const recorded = await this.store.getMeta(EMBEDDER_META_KEY);
    if (pending !== null && target !== '' && target !== recorded && recorded !== null) {
      await this.store.switchEmbedder({
        to: recorded,
        meta: { [REINDEX_TARGET_KEY]: '' },
        blobs: { [PENDING_IDF_BLOB]: null },
        deleteFingerprint: target,
      });
      refitRolledBack = true;
      this.logger?.warn(
        'quiver: an IDF refit was interrupted; it was rolled back (the vault kept its previous embedder and every vector)',
      );
    } else if (pending !== null && target === '') {
      await this.store.switchEmbedder({
        to: recorded ?? this.embedder.id,
        meta: {},
        blobs: { [PENDING_IDF_BLOB]: null },
        deleteFingerprint: null,
      });
    }
    return { interrupted, refitRolledBack };
  }

  /**
   * Ingest files, folders or literal text as one batch. With the built-in embedder, the vault's IDF
   * is fitted once it holds `MIN_FIT_CHUNKS` chunks and refitted when it has doubled since; a refit
   * re-embeds every chunk (`refit` in the report says so).
   */
  async add(
    inputs: readonly AddInput[],
    options: VaultAddOptions = {},
  ): Promise<AddReport & { refit: ReindexResult | null; recovery: Recovery }> {
    if (inputs.length === 0)
      throw new QuiverError('BAD_INPUT', 'quiver: add needs at least one path or text');
    const label = inputs
      .map((i) => (typeof i === 'string' ? i : (i.source ?? 'text')))
      .join(' ')
      .slice(0, 120);
    return this.writing(
      `add ${label}`,
      async (lease, recovery) => {
        await this.checkEmbedder();
        if ((await this.store.getMeta(EMBEDDER_META_KEY)) === null)
          await this.store.setMeta(EMBEDDER_META_KEY, this.embedder.id);
        const { onIndexProgress, onLexicalIndexProgress, ...ingestOptions } = options;
        // The readers (Markdown, HTML, PDF, folder walks) load only for an add.
        const { ingest } = await import('./ingest/ingest.js');
        const report = await ingest(this.store, this.embedder, inputs, {
          root: this.root,
          chunkChars: this.config['ingest.chunkChars'],
          maxFileBytes: this.config['ingest.maxFileBytes'],
          ownFiles: [this.store.location],
          owner: lease.claim,
          onBatch: (id) => lease.running(id),
          ...ingestOptions,
        });
        const changed = report.batch.added + report.batch.updated + report.batch.removed > 0;
        let refit: ReindexResult | null = null;
        if (this.config['embedder.provider'] === 'builtin' && report.batch.added + report.batch.updated > 0) {
          const fittedOn = await this.store.getMeta(FITTED_ON_KEY);
          const chunks = (await this.store.stats()).chunks;
          if (needsFit(fittedOn === null ? null : Number(fittedOn), chunks))
            refit = await this.reindexHeld({
              refit: true,
              ...(options.signal === undefined ? {} : { signal: options.signal }),
              ...(onIndexProgress === undefined ? {} : { onIndexProgress }),
            });
        }
        // Build or update the vector index now (above the ANN threshold), not in the first search
        // (a refit built it already); likewise the lexical index (above `lexical.threshold`):
        // updated, or rebuilt when many rows changed.
        if (changed)
          await this.store.indexes?.prepare({
            ...(refit === null
              ? { vector: { fingerprint: this.embedder.id, onProgress: onIndexProgress } }
              : {}),
            lexical: { onProgress: onLexicalIndexProgress },
          });
        if (refit !== null) await this.reclaim();
        return { ...report, refit, recovery };
      },
      options.signal,
    );
  }

  /**
   * Re-embed every chunk with the configured embedder (resumable after a crash). With the built-in
   * embedder and `refit`, first refit its IDF on the vault's chunks. Readers in any process keep
   * the old embedder and its vectors until the switch, which is one transaction.
   */
  async reindex(
    options: ReindexOptions & { refit?: boolean; onIndexProgress?: IndexProgress } = {},
  ): Promise<ReindexResult> {
    return this.writing(
      'reindex',
      async () => {
        const r = await this.reindexHeld(options);
        await this.reclaim();
        return r;
      },
      options.signal,
    );
  }

  /**
   * Bring the vector index (HNSW above `ann.threshold`) and the lexical leg's own index up to date
   * now (index maintenance, run as a job by a served vault): what `add` does after a batch.
   */
  async prepareIndexes(
    options: { signal?: AbortSignal } = {},
  ): Promise<{ vector: boolean; lexical: boolean }> {
    return this.writing(
      'index',
      async () => {
        await this.checkEmbedder();
        const status = await this.store.indexes?.prepare(this.allIndexes());
        return {
          vector: status !== undefined && status.vector !== null,
          lexical: status !== undefined && status.lexical !== null,
        };
      },
      options.signal,
    );
  }

  /** Every index upkeep covers: the vector index of the embedder in use and the lexical index. */
  private allIndexes(): PrepareIndexesRequest {
    return { vector: { fingerprint: this.embedder.id }, lexical: {} };
  }

  /** {@link reindex} for a caller that holds the writer slot. */
  private async reindexHeld(
    options: ReindexOptions & { refit?: boolean; onIndexProgress?: IndexProgress },
  ): Promise<ReindexResult> {
    let target = this.embedder;
    const { onIndexProgress, refit, ...rest } = options;
    let commit: ReindexOptions['commit'];
    if (this.config['embedder.provider'] === 'builtin' && refit === true) {
      const fitted = await fitBuiltin(
        this.store,
        this.config['embedder.dims'] > 0 ? { dims: this.config['embedder.dims'] } : {},
      );
      target = fitted.embedder;
      failpoint('refit.fitted');
      commit = {
        meta: { [FITTED_ON_KEY]: String((await this.store.stats()).chunks) },
        blobs: { [IDF_BLOB]: fitted.idf, [PENDING_IDF_BLOB]: null },
      };
    }
    const { reindex } = await import('./maintenance/reindex.js');
    const r = await reindex(this.store, target, { ...rest, ...(commit === undefined ? {} : { commit }) });
    this.useEmbedder(target);
    await this.store.indexes?.prepare({ vector: { fingerprint: target.id, onProgress: onIndexProgress } });
    return r;
  }

  /**
   * After a refit, reindex or large undo: give free pages back when they are over a quarter of the
   * file (and at least 1 MiB, below which a VACUUM is not worth a write), so no `add` leaves the
   * space of the vectors a refit replaced behind.
   */
  private async reclaim(): Promise<void> {
    const h = await this.store.health(this.embedder.id);
    if (h.reclaimableBytes === null || h.totalBytes === null || h.totalBytes === 0) return;
    if (h.reclaimableBytes < 1024 * 1024 || h.reclaimableBytes < h.totalBytes / 4) return;
    if (this.store.compact === undefined) return;
    const r = await this.store.compact(this.embedder.id);
    this.logger?.warn(`quiver: compacted the vault: ${mb(r.bytesBefore)} → ${mb(r.bytesAfter)}`);
  }

  /**
   * Is the vault's recorded embedder still this one? Another process may have refitted or
   * reindexed since this Vault opened: the built-in embedder then reloads its IDF; any other
   * change is EMBEDDER_MISMATCH (never a silently empty vector leg).
   */
  private async checkEmbedder(): Promise<void> {
    const recorded = await this.store.getMeta(EMBEDDER_META_KEY);
    if (recorded === null || recorded === this.embedder.id) return;
    if (this.config['embedder.provider'] === 'builtin') {
      const fresh = await builtinEmbedder(
        this.store,
        this.config['embedder.dims'] > 0 ? { dims: this.config['embedder.dims'] } : {},
      );
      if (fresh.id === recorded) {
        this.useEmbedder(fresh);
        return;
      }
    }
    throw new QuiverError(
      'EMBEDDER_MISMATCH',
      `quiver: this vault's vectors are now made by embedder "${recorded}" (changed by another process), but this one uses "${this.embedder.id}"; run \`quiver reindex\` or configure that embedder`,
      { details: { vault: recorded, configured: this.embedder.id } },
    );
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

  /**
   * The call's limit, after checking the query: a string with at least one word the lexical leg can
   * search for (`hasSearchableWord`); empty, blank or punctuation-only text is BAD_INPUT.
   */
  private validate(text: string, options: SearchOptions, field = 'query'): number {
    if (typeof text !== 'string') throw new QuiverError('BAD_INPUT', `quiver: ${field} must be a string`);
    if (!hasSearchableWord(text)) {
      const points = [...text];
      const shown = JSON.stringify(points.length > 60 ? `${points.slice(0, 60).join('')}…` : text);
      throw new QuiverError(
        'BAD_INPUT',
        `quiver: ${field} must contain a word to search for (letters or digits), got ${shown}`,
        { details: { field, value: text } },
      );
    }
    if (options.rrfK !== undefined && !(Number.isFinite(options.rrfK) && options.rrfK >= 0))
      throw new QuiverError('BAD_INPUT', `quiver: rrfK must be a number ≥ 0, got ${String(options.rrfK)}`);
    const limit = options.limit ?? this.config['search.limit'];
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new QuiverError('BAD_INPUT', `quiver: limit must be an integer in 1..1000, got ${String(limit)}`);
    }
    return limit;
  }

  /**
   * One retrieval. `purpose` picks the default selection: a ranked list (`search`, `sections`) uses
   * `search.select` (top-k: selection must not reorder what relevance ranked), the evidence for a
   * prompt (`context`, `ask`) uses `select.method` (Dartboard: cover the question, skip repeats).
   * A call's own `select.method` wins either way.
   */
  private async run(
    text: string,
    options: SearchOptions,
    withText: boolean,
    limitOverride?: number,
    purpose: 'rank' | 'evidence' = 'rank',
  ): Promise<SectionSearchResult> {
    const limit = limitOverride ?? this.validate(text, options);
    await this.checkEmbedder();
    const c = this.config;
    return searchSections(
      this.store,
      this.embedder,
      text,
      limit,
      this.retrieval(options),
      this.selection({
        ...(purpose === 'rank' ? { method: c['search.select'], foldNearCopies: c['search.nearCopies'] } : {}),
        ...options.select,
      }),
      { withText },
    );
  }

  /** The retrieval settings for a call: config defaults overlaid with the call's. */
  private retrieval(options: SearchOptions): Omit<HybridOptions, 'fetch' | 'needVector'> {
    const c = this.config;
    return {
      mode: options.mode ?? c['search.mode'],
      legs: options.legs ?? 'both',
      lexicalWeight: options.lexicalWeight ?? c['search.lexicalWeight'],
      vectorWeight: options.vectorWeight ?? c['search.vectorWeight'],
      rrfK: options.rrfK ?? c['search.rrfK'],
      minSimilarity: options.minSimilarity ?? c['search.minSimilarity'],
      fieldWeights: { body: 1, title: c['search.titleWeight'], heading: c['search.headingWeight'] },
      feedback: {
        weight: options.feedbackWeight ?? c['search.feedbackWeight'],
        docs: c['search.feedbackDocs'],
        terms: c['search.feedbackTerms'],
      },
      ...(options.filter === undefined ? {} : { filter: options.filter }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    };
  }

  /**
   * The candidate pool selection chooses from for `text` (`limit` × `select.oversample` sections),
   * each with its distance to the query and an angle that keeps near-copies together, and what
   * top-k, MMR and Dartboard pick from it (`retrieve/selection-map.ts`): what the page plots.
   */
  async selectionMap(text: string, options: SearchOptions = {}): Promise<SelectionMap> {
    const limit = this.validate(text, options);
    await this.checkEmbedder();
    return selectionMap(
      this.store,
      this.embedder,
      text,
      limit,
      this.retrieval(options),
      this.selection(options.select),
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
    const r = await this.run(text, options, true, want, 'evidence');
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
    out = (await this.withConflictingTwins(out, r.passedOver)).map((h, i) => ({ ...h, n: i + 1 }));
    // Quality loop: when a person switched the fitted ranker on, it nudges the order (α = 0.25).
    if (await this.quality.isRankerOn()) {
      out = (await this.quality.retuneContext(text, out)).map((h, i) => ({ ...h, n: i + 1 }));
    }
    return { sections: out, timings: r.timings };
  }

  /** The context with conflicting twins that selection passed over put back (answer/conflicting-twins.ts). */
  private async withConflictingTwins<T extends SectionHit & { n: number; text: string }>(
    chosen: T[],
    passedOver: readonly PassedOver[],
  ): Promise<(T | (SectionHit & { n: number; text: string }))[]> {
    const candidates = twinCandidates(chosen, passedOver);
    if (candidates.length === 0) return chosen;
    const [sections, docs] = await Promise.all([
      this.store.getSections(candidates.map((c) => c.sectionId)),
      this.store.getDocuments(candidates.map((c) => c.docId)),
    ]);
    return withConflictingTwins(chosen, candidates, sections, docs);
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
    this.validate(
      question,
      { ...options, limit: options.limit ?? this.config['context.sections'] },
      'question',
    );
    const t0 = performance.now();
    const ctx = await this.promptContext(question, options);
    const t1 = performance.now();
    const emit = options.onEvent;
    emit?.({ type: 'context', sections: ctx.sections, timings: { ...ctx.timings, contextMs: t1 - t0 } });
    const generator = this.generator(options.generator);
    const budget = this.config.tokenBudget;
    const account = options.account ?? '';
    const spent = this.spentTokens.get(account) ?? 0;
    const onToken =
      emit === undefined
        ? options.onToken
        : (t: string): void => {
            options.onToken?.(t);
            emit({ type: 'token', text: t });
          };
    const r = await answerFromContext(question, ctx.sections, generator, {
      budgets: {
        sectionChars: this.config['context.sectionChars'],
        totalChars: this.config['context.totalChars'],
      },
      maxTokens: this.config['generator.maxTokens'],
      ...(budget > 0 ? { remainingTokens: Math.max(0, budget - spent) } : {}),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(onToken === undefined ? {} : { onToken }),
    });
    this.spentTokens.set(
      account,
      (this.spentTokens.get(account) ?? 0) + r.usage.promptTokens + r.usage.completionTokens,
    );
    const { generateMs, ...answered } = r;
    const rest = await this.abstainWhenUncovered(question, answered);
    const timings = { ...ctx.timings, contextMs: t1 - t0, generateMs, totalMs: performance.now() - t0 };
    emit?.({
      type: 'claims',
      answer: rest.answer,
      claims: rest.claims,
      cited: rest.cited,
      invalidCitations: rest.invalidCitations,
      abstained: rest.abstained,
      conflicts: rest.conflicts,
    });
    emit?.({ type: 'measured', timings, usage: r.usage, generator: r.generator });
    // Quality loop: keep a transcript of every answer, and log it for learning when that is on.
    const { config, fingerprint } = transcriptConfig(this.config);
    const transcript: TranscriptRecord = {
      id: randomUUID().replace(/-/g, '').slice(0, 16),
      at: new Date().toISOString(),
      question,
      configFingerprint: fingerprint,
      config,
      prompt: { system: r.prompt.system, user: r.prompt.user },
      answer: rest.answer,
      cited: rest.cited.map((c) => c.sectionId),
      invalidCitations: rest.invalidCitations,
      generator: r.generator,
      usage: r.usage,
      timings,
    };
    if (options.record === false || this.readonly) {
      const unrecorded: AskResult = { ...rest, timings, transcriptId: null };
      emit?.({ type: 'done', result: unrecorded });
      return unrecorded;
    }
    await this.store.putTranscript(transcript);
    const result: AskResult = { ...rest, timings, transcriptId: transcript.id };
    await this.quality.observe(result);
    emit?.({ type: 'done', result });
    return result;
  }

  /**
   * The answer, or an abstention in its place: when the generator quoted nothing, or when its
   * claims and the headings of the sections they cite cover less of the question than
   * `answer.abstainBelow` (`answer/abstain.ts`). An abstention has no claims and cites nothing; it
   * says which question words the closest passages do not mention.
   */
  private async abstainWhenUncovered(
    question: string,
    r: Omit<AskResult, 'timings' | 'transcriptId' | 'abstained'>,
  ): Promise<Omit<AskResult, 'timings' | 'transcriptId'>> {
    const threshold = this.config['answer.abstainBelow'];
    const quotedNothing = r.claims.length === 0 || r.answer.startsWith(NOT_IN_SOURCES);
    if (!quotedNothing && threshold <= 0) return { ...r, abstained: null };
    const cited = new Set(r.cited.map((c) => c.n));
    const evidence = [
      ...r.claims.map((c) => c.text),
      ...r.context.filter((c) => cited.has(c.n)).map((c) => c.breadcrumb),
    ];
    const stats = await this.store.termStats([...questionTerms(question)]);
    const { coverage } = evidenceCoverage(question, quotedNothing ? [] : evidence, stats);
    if (!quotedNothing && coverage >= threshold) return { ...r, abstained: null };
    // What to add: the question words that no passage of the context mentions.
    const { missing } = evidenceCoverage(question, r.context.map(judgedText), stats);
    return {
      ...r,
      answer: abstentionText(NOT_IN_SOURCES, missing),
      claims: [],
      cited: [],
      abstained: { coverage: quotedNothing ? 0 : coverage, threshold, missing },
    };
  }

  /** A section with its descendants' text. */
  async read(sectionId: string): Promise<ReadResult> {
    const [section] = await this.store.getSections([sectionId]);
    if (section === undefined) throw new QuiverError('NOT_FOUND', `quiver: no section ${sectionId}`);
    const document = await this.store.getDocument(section.docId);
    if (document === null) throw new QuiverError('NOT_FOUND', `quiver: no document ${section.docId}`);
    return { section, document, ...subtree(section, await this.store.listSections(section.docId)) };
  }

  /** Answer transcripts, newest first (the quality loop's record of each `ask`). */
  async transcripts(options: { limit?: number } = {}): Promise<TranscriptRecord[]> {
    return this.store.listTranscripts(options);
  }

  /** One transcript by id; NOT_FOUND when there is none. */
  async transcript(id: string): Promise<TranscriptRecord> {
    const t = await this.store.getTranscript(id);
    if (t === null) throw new QuiverError('NOT_FOUND', `quiver: no transcript ${id}`);
    return t;
  }

  /** A document and its sections' outline (ids, levels, titles, pages; no text), in document order. */
  async outline(docId: string): Promise<{ document: DocumentRecord; sections: SectionRecord[] }> {
    const document = await this.store.getDocument(docId);
    if (document === null) throw new QuiverError('NOT_FOUND', `quiver: no document ${docId}`);
    return { document, sections: await this.store.listSections(docId) };
  }

  async docs(options: { filter?: SearchFilter; limit?: number } = {}): Promise<DocumentRecord[]> {
    return this.store.listDocuments(options);
  }

  /**
   * Batches, newest first. A batch still recorded as 'running' whose process is gone (a crash, a
   * kill -9) is shown as 'interrupted', as the next write will record it.
   */
  async batches(limit?: number): Promise<BatchRecord[]> {
    const list = await this.store.listBatches(limit);
    if (!list.some((b) => b.status === 'running')) return list;
    const holder = await this.store.currentWriter();
    const live = holder !== null && holderAlive(holder) ? holder : null;
    return list.map((b) =>
      b.status !== 'running' ||
      (live !== null &&
        (live.batchId === b.id ||
          (b.owner !== null && b.owner.pid === live.pid && b.owner.host === live.host)))
        ? b
        : { ...b, status: 'interrupted' as const },
    );
  }

  /**
   * Roll back a batch (default: the newest one not rolled back that changed something). Refused
   * with CONFLICT while another process writes (the writer slot), when the batch is still running,
   * or when another undo rolled it back first (the message says when).
   */
  async undo(batchId?: string, options: { signal?: AbortSignal } = {}): Promise<RollbackResult> {
    return this.writing(
      batchId === undefined ? 'undo' : `undo --batch ${batchId}`,
      async () => {
        let id = batchId;
        if (id === undefined) {
          const live = (await this.store.listBatches(1000)).find(
            (b) =>
              b.status !== 'rolled_back' &&
              (b.added + b.updated + b.removed > 0 || b.status === 'interrupted'),
          );
          if (live === undefined) throw new QuiverError('NOT_FOUND', 'quiver: there is no batch to undo');
          id = live.id;
        }
        failpoint('rollback.before');
        const r = await this.store.rollbackBatch(id);
        await this.store.indexes?.prepare(this.allIndexes());
        if (r.removed >= 1000) await this.reclaim();
        return r;
      },
      options.signal,
    );
  }

  /**
   * Take documents out of the vault as one batch (`undo` brings them back). Each ref is a document
   * id or an exact source; a ref ending in `/` takes every document whose source starts with it.
   * A ref that matches nothing is NOT_FOUND and nothing is removed.
   */
  async rm(refs: readonly string[], options: { signal?: AbortSignal } = {}): Promise<RemoveReport> {
    if (refs.length === 0)
      throw new QuiverError('BAD_INPUT', 'quiver: rm needs at least one document id or source');
    return this.writing(
      `rm ${refs.join(' ').slice(0, 120)}`,
      async (lease) => {
        const all = await this.store.listDocuments();
        const chosen = new Map<string, DocumentRecord>();
        for (const ref of refs) {
          const hits = ref.endsWith('/')
            ? all.filter((d) => d.source.startsWith(ref))
            : all.filter((d) => d.id === ref || d.source === ref);
          if (hits.length === 0)
            throw new QuiverError(
              'NOT_FOUND',
              `quiver: no document with id or source "${ref}"; nothing was removed`,
              {
                details: { ref },
              },
            );
          for (const d of hits) chosen.set(d.id, d);
        }
        const batch = await this.store.beginBatch(`rm ${refs.join(' ')}`.slice(0, 200), lease.claim);
        await lease.running(batch.id);
        batch.removed = await this.store.removeDocuments(batch.id, [...chosen.keys()]);
        batch.status = 'done';
        batch.finishedAt = new Date().toISOString();
        await this.store.finishBatch(batch);
        await this.store.indexes?.prepare(this.allIndexes());
        return { batch, removed: [...chosen.values()] };
      },
      options.signal,
    );
  }

  /**
   * Give free space back (SQLite: VACUUM), delete vectors of other embedders that no unfinished
   * reindex needs, and remove orphaned index files.
   */
  async compact(): Promise<CompactResult & { vectorsRemoved: number }> {
    return this.writing('compact', async () => {
      const target = (await this.store.getMeta(REINDEX_TARGET_KEY)) ?? '';
      const h = await this.store.health(this.embedder.id);
      let vectorsRemoved = 0;
      for (const fp of Object.keys(h.otherFingerprints))
        if (fp !== target) vectorsRemoved += await this.store.deleteVectors(fp);
      const r =
        this.store.compact === undefined
          ? { bytesBefore: 0, bytesAfter: 0, removedFiles: [] }
          : await this.store.compact(this.embedder.id);
      return { ...r, vectorsRemoved };
    });
  }

  /**
   * Repair what `health` reports that needs no re-embedding: recover a dead writer's batches and
   * refit, bring the indexes up to date, then compact (stale vectors, orphaned files, free space).
   */
  async repair(): Promise<Recovery & { compact: CompactResult & { vectorsRemoved: number } }> {
    const recovery = await this.writing('doctor --fix', async (_lease, r) => {
      await this.checkEmbedder();
      await this.store.reanalyse?.();
      await this.store.indexes?.prepare(this.allIndexes());
      return r;
    });
    return { ...recovery, compact: await this.compact() };
  }

  /** Every consistency fact `quiver doctor` reports, with the command that repairs each. Reads only. */
  async health(): Promise<VaultHealth> {
    const active = await this.store.getMeta(EMBEDDER_META_KEY);
    const base = await this.store.health(active);
    const holder = await this.store.currentWriter();
    const writer = holder === null ? null : { ...holder, alive: holderAlive(holder) };
    const interrupted = (await this.batches(1000)).filter((b) => b.status === 'interrupted');
    const target = (await this.store.getMeta(REINDEX_TARGET_KEY)) ?? '';
    const problems: VaultHealth['problems'] = [];
    if (base.chunksWithoutVector > 0)
      problems.push({
        problem: `${base.chunksWithoutVector} live chunks have no vector under the active embedder`,
        repair: 'quiver reindex',
      });
    const stale = Object.entries(base.otherFingerprints).filter(([fp]) => fp !== target);
    if (stale.length > 0)
      problems.push({
        problem: `${stale.reduce((n, [, c]) => n + c, 0)} vectors of other embedders (${stale.map(([fp]) => fp).join(', ')})`,
        repair: 'quiver compact',
      });
    if (target !== '' && target !== active)
      problems.push({
        problem: `a reindex to ${target} has not finished`,
        repair: 'quiver reindex (resumes it), or any write command (rolls back an interrupted refit)',
      });
    for (const b of interrupted)
      problems.push({
        problem: `batch ${b.id} (${b.label}) was interrupted with ${b.added + b.updated} documents written`,
        repair: `quiver undo --batch ${b.id} (or re-run the add to finish it)`,
      });
    if (writer !== null && !writer.alive)
      problems.push({
        problem: `the writer slot is held by process ${writer.pid}, which is gone`,
        repair: 'any write command takes it over',
      });
    if (base.unanalysedSections > 0)
      problems.push({
        problem: `${base.unanalysedSections} sections were indexed by an earlier quiver without language analysis (their Chinese, Japanese or Thai words and non-English word forms may not be found)`,
        repair: 'quiver doctor --fix',
      });
    if (base.orphanFiles.length > 0)
      problems.push({
        problem: `${base.orphanFiles.length} orphaned index files (${base.orphanFiles.map((f) => f.split('/').pop()).join(', ')})`,
        repair: 'quiver compact',
      });
    if (
      base.reclaimableBytes !== null &&
      base.totalBytes !== null &&
      base.reclaimableBytes > 16 * 1024 * 1024
    )
      problems.push({
        problem: `${mb(base.reclaimableBytes)} of ${mb(base.totalBytes)} is free space`,
        repair: 'quiver compact',
      });
    return {
      ...base,
      activeFingerprint: active,
      writer,
      interrupted,
      unfinishedReindex: target === '' ? null : target,
      problems,
    };
  }

  async stats(): Promise<StoreStats> {
    return this.store.stats();
  }

  /**
   * Write the whole vault to an export file (src/transfer/format.ts; gzipped when the name ends in
   * `.gz`) or a stream, holding the writer slot so no add or undo changes it meanwhile.
   */
  async export(target: ExportTarget, options: ExportOptions = {}): Promise<ExportReport> {
    const { exportVaultTo } = await import('./transfer/files.js');
    return this.writing('export', () => exportVaultTo(this.store, target, options), options.signal);
  }

  /**
   * Fill this empty vault from an export (CONFLICT when it is not empty; a malformed file changes
   * nothing). The export's embedder comes with it: open the vault again to use it.
   */
  async import(source: ImportSource, options: ImportOptions = {}): Promise<ImportReport> {
    const { importVaultFrom } = await import('./transfer/files.js');
    return this.writing('import', () => importVaultFrom(this.store, source, options), options.signal);
  }
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
