/**
 * Capabilities a backend may declare beyond the core Store contract (`store.ts`): upkeep and
 * inspection of the indexes it keeps of its own. A backend whose database keeps every index
 * current inside its own transactions (PostgreSQL: pgvector's HNSW, the postings table) leaves
 * the capability out and callers skip the step; SQLite keeps an HNSW graph and a lexical index in
 * files beside the vault (`sqlite/ann-vector-index.ts`, `sqlite/lexical-index-leg.ts`) and
 * declares it.
 */

/** Progress of a long step: units done of total. */
export type Progress = (done: number, total: number) => void;

/**
 * The vector leg's index for one fingerprint after {@link IndexMaintenance.prepare} (or the last
 * search), for `quiver doctor` and tests.
 */
export interface VectorIndexStatus {
  fingerprint: string;
  /** 'exact': at or below the threshold (or no vectors); 'hnsw': answered from the index. */
  mode: 'exact' | 'hnsw';
  chunks: number;
  threshold: number;
  /** The index file, or null when not persisted to a file of its own. */
  file: string | null;
  /** How the index was last obtained in this process. */
  source: 'loaded' | 'reconciled' | 'built' | null;
  /** Why the saved index could not be used as is when it was last read (null: it could, or never read). */
  loadFailure: 'missing' | 'stale' | 'corrupt' | 'version' | null;
  /** Tombstoned entries in the index. */
  deleted: number;
  /** Last error saving the index (search goes on without it). */
  saveError: string | null;
}

/** The vector leg's index for one fingerprint as found without loading or building anything. */
export interface VectorIndexInspection {
  fingerprint: string;
  mode: 'exact' | 'hnsw';
  chunks: number;
  threshold: number;
  file: string | null;
  /**
   * 'none' at or below the threshold; else the saved index: 'current', 'stale' (brought up to
   * date on the next search), 'rebuild' (rebuilt), 'missing' or 'unreadable'.
   */
  index: 'none' | 'current' | 'stale' | 'rebuild' | 'missing' | 'unreadable';
  /** The HNSW code in use, for a backend that runs its own (SQLite: hnswlib, `sqlite/hnsw-native.ts`). */
  native?: { search: 'accelerated' | 'stock'; parallelBuild: boolean; note: string | null };
}

/** The lexical leg's own index after {@link IndexMaintenance.prepare} (or the last search). */
export interface LexicalIndexStatus {
  /** 'fts5': ranked by the database's full-text index (at or below the threshold); 'index': by its own. */
  mode: 'fts5' | 'index';
  sections: number;
  threshold: number;
  file: string | null;
  /** How the base index was obtained this session. */
  source: 'built' | 'loaded' | null;
  loadFailure: 'missing' | 'corrupt' | 'version' | 'stale' | null;
  /** Rows added since the base was built (searched as a second segment) and base rows no longer live. */
  added: number;
  removed: number;
  saveError: string | null;
  /** The last search ranked with FTS5 because the index needs a rebuild that a writer will do. */
  deferred: boolean;
}

/** The lexical leg's mode and saved index, without loading or building (for `doctor`). */
export interface LexicalIndexInspection {
  mode: 'fts5' | 'index';
  sections: number;
  threshold: number;
  file: string | null;
  /**
   * 'current': reflects the vault; 'updatable': older, brought up to date from new rows at load;
   * 'stale': will be rebuilt; else why it cannot be read. 'none' at or below the threshold.
   */
  index: 'none' | 'current' | 'updatable' | 'stale' | 'missing' | 'corrupt' | 'version';
}

/** Which indexes {@link IndexMaintenance.prepare} brings up to date; a leg left out is not touched. */
export interface PrepareIndexesRequest {
  /** The vector index of one embedder fingerprint; `onProgress` sees a build (rows inserted of total). */
  vector?: { fingerprint: string; onProgress?: Progress | undefined };
  /** The lexical index; `onProgress` sees a rebuild (tokens read of total). */
  lexical?: { onProgress?: Progress | undefined };
}

/** What {@link IndexMaintenance.prepare} did: each requested leg's status, null for a leg not asked for. */
export interface IndexesStatus {
  vector: VectorIndexStatus | null;
  lexical: LexicalIndexStatus | null;
}

/** What {@link IndexMaintenance.inspect} finds: each leg's index, null when the backend keeps none. */
export interface IndexesInspection {
  vector: VectorIndexInspection | null;
  lexical: LexicalIndexInspection | null;
}

/**
 * Upkeep of the indexes a backend keeps of its own (`Store.indexes`). Searches bring them up to
 * date lazily when that is cheap; `prepare` pays a build or update now (after a write, as a job),
 * and `inspect` reports their state without loading or building anything (`quiver doctor`).
 *
 * @example
 * await store.indexes?.prepare({ vector: { fingerprint }, lexical: {} });
 */
export interface IndexMaintenance {
  /** Bring the requested indexes up to date now (build, load or reconcile) rather than at the first search. */
  prepare(request: PrepareIndexesRequest): Promise<IndexesStatus>;
  /** The indexes' state for the vector index of `fingerprint`, without loading or building anything. */
  inspect(fingerprint: string): Promise<IndexesInspection>;
}
