// quiver's public API: named re-exports only. The CLI and (later) the server import from here.
export { QuiverError, isQuiverError, ERROR_CODES, type QuiverErrorCode } from './errors.js';
export {
  loadConfig,
  CONFIG_KEYS,
  DEFAULT_CONFIG_FILE,
  type Config,
  type ConfigKey,
  type LoadedConfig,
} from './config.js';
export {
  Vault,
  EMBEDDER_META_KEY,
  type SearchOptions,
  type ReadResult,
  type OpenVaultOptions,
} from './vault.js';
export type * from './types.js';
export type {
  Store,
  StoreStats,
  ReplicaLag,
  StoreHealth,
  CompactResult,
  RollbackResult,
  LexicalQuery,
  LexicalHit,
  VectorQuery,
  FieldWeights,
  TermStats,
  NoiseMark,
  WriteStatus,
  WriteDocumentInput,
  BatchOwner,
  WriterClaim,
  WriterHolder,
  EmbedderSwitch,
  ListDocumentsOptions,
  FeedbackRecord,
  ListFeedbackOptions,
  TranscriptRecord,
  ListTranscriptsOptions,
  JobState,
  JobRecord,
  EnqueueJobInput,
  ListJobsOptions,
} from './store/store.js';
export type {
  IndexMaintenance,
  IndexesInspection,
  IndexesStatus,
  LexicalIndexInspection,
  LexicalIndexStatus,
  PrepareIndexesRequest,
  VectorIndexInspection,
  VectorIndexStatus,
} from './store/maintenance.js';
export type { BucketRate, BucketTake, SharedState } from './store/shared-state.js';
export {
  openStore,
  type OpenStoreOptions,
  type PostgresOpenOptions,
  type SqliteOpenOptions,
} from './store/open-store.js';
export { parseStoreLocation, redactLocation, type StoreLocation } from './store/location.js';
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite/sqlite-store.js';
export {
  DEFAULT_ANN_THRESHOLD,
  DEFAULT_HNSW_EF_CONSTRUCTION,
  DEFAULT_HNSW_EF_SEARCH,
  DEFAULT_HNSW_M,
  DEFAULT_LEXICAL_INDEX_THRESHOLD,
} from './store/index-defaults.js';
export type { Embedder, EmbedOptions } from './embed/embedder.js';
export { ingest, type AddInput, type AddOptions, type AddReport, type AddItem } from './ingest/ingest.js';
export { hybridRetrieve, type Legs, type HybridOptions, type FusedSection } from './retrieve/hybrid.js';
export { admitVectorHits, DEFAULT_MIN_SIMILARITY, type VectorFloor } from './retrieve/vector-floor.js';
export { hasSearchableWord } from './retrieve/query-terms.js';
export { foldNearCopies, nearCopy, shingles } from './retrieve/near-copies.js';
export { detectLanguage, LANGUAGES, type Language } from './text/language.js';
export {
  searchSections,
  type NearCopyRef,
  type SectionHit,
  type SectionSearchResult,
  type SelectionOptions,
  type SelectMethod,
} from './retrieve/sections.js';
export { type AskOptions, type GeneratorName } from './vault.js';
export type { AskResult, CitedSection } from './answer/ask.js';
export type { ContextSection } from './answer/context-section.js';
export type { Generator, GenerateOptions, GenerateResult, TokenUsage } from './answer/generator.js';
export type { Prompt } from './answer/prompt.js';
export type { Claim } from './answer/citations.js';
export { QualityLoop } from './quality/quality-loop.js';
export { SIGNALS, type SignalName } from './quality/signals.js';
export { reindex, type ReindexOptions, type ReindexResult } from './maintenance/reindex.js';
export {
  exportVault,
  DEFAULT_EXPORT_PAGE,
  type ExportOptions,
  type ExportReport,
} from './transfer/export.js';
export {
  importVault,
  DEFAULT_IMPORT_GROUP,
  type ImportOptions,
  type ImportReport,
  type LineSource,
} from './transfer/import.js';
export { exportVaultTo, importVaultFrom, type ExportTarget, type ImportSource } from './transfer/files.js';
export { EXPORT_FORMAT_VERSION, type ExportRecord, type VectorGroup } from './transfer/format.js';
export type { DocumentVersion, ScannedDocumentVersion, VerdictRecord } from './store/store.js';
export { createEmbedder, type EmbedderConfig } from './embed/factory.js';
export { createHashingEmbedder } from './embed/hashing.js';
export { createExtractiveGenerator } from './answer/generators/extractive.js';
export { createOpenAIGenerator } from './answer/generators/openai-compatible.js';
export { buildPrompt } from './answer/prompt.js';
export { extractClaims, splitReasoning } from './answer/citations.js';
export { splitSentences } from './answer/sentences.js';
export { select, type SelectInput, type Pick } from './retrieve/select/index.js';
export { rrf } from './retrieve/fuse.js';
export { measureGrounding } from './evaluate/grounding.js';
export {
  ndcgAtK,
  recallAtK,
  precisionAtK,
  mrrAtK,
  uniqueResultsAtK,
  noiseAtK,
  auc,
} from './evaluate/retrieval-metrics.js';
export { pairedBootstrap } from './evaluate/bootstrap.js';
export { runEval } from './evaluate/runner.js';
export type { EvalResult } from './evaluate/eval-result.js';
