/**
 * Defaults of the search indexes, named once so the configuration (`src/config.ts`) and every
 * backend share them without config importing a backend. SQLite builds its own HNSW graph and
 * lexical index from them (`sqlite/ann-vector-index.ts`, `sqlite/lexical-index-leg.ts`); a server
 * database's HNSW (pgvector) takes the same graph parameters.
 */

/**
 * Live chunks (with a vector under the searched fingerprint) above which the vector leg answers from
 * HNSW. The exact scan is linear in chunks and exact; HNSW at the default parameters answers in a few
 * milliseconds at recall@10 ≥ 0.95 up to 1M chunks (bench/RESULTS.md, "ANN") but costs a one-off
 * build (about a minute per 100k chunks on two cores). 50,000 keeps smaller vaults exact and free
 * of that build, while vaults big enough for the scan to weigh on a fused search use HNSW.
 */
export const DEFAULT_ANN_THRESHOLD = 50_000;

/**
 * Graph degree M (links per node above layer 0; 2M at layer 0). On 1M real-text-derived chunks
 * (`bench/ann.ts`, 512-dim hashing vectors, efConstruction=200) M=16 reached recall@10 0.943 only at
 * efSearch=1024 (p50 4.5–4.9 ms) and 0.970 at 2048 (about 9 ms), while M=32 reached 0.952 at 384
 * (3.2–3.5 ms) and 0.960 at 512 (4.3 ms), for a 1.4× longer build (22 vs 16 minutes on 2 cores with the
 * parallel builder) and a 6% larger file. The denser graph is the default: it is what keeps a
 * growing vault above 0.95 within 5 ms.
 */
export const DEFAULT_HNSW_M = 32;
/** Candidate list size while inserting. Measured in `bench/ann.ts`. */
export const DEFAULT_HNSW_EF_CONSTRUCTION = 200;
/**
 * Candidate list size while searching (hnswlib uses max(efSearch, k)). With M=32 (`bench/ann.ts`):
 * recall@10 against the exact scan 0.997 at 100k and 0.960 at 1M chunks, p50 about 3 and 4.3 ms on
 * the hnswlib build compiled for this CPU (1.8–1.9× that on the stock build). 384 also clears 0.95 at
 * 1M (0.952, 3.5 ms) but with no margin for a rebuilt graph, which is not bit-identical when built
 * on several threads.
 */
export const DEFAULT_HNSW_EF_SEARCH = 512;

/**
 * Live sections above which the lexical leg scores from its own index rather than FTS5's bm25().
 * The index is faster at every size measured (SciFact, 5,221 sections: the lexical leg 8.1 → 3.0 ms,
 * the default search 10.0 → 5.3 ms); below a couple of thousand sections FTS5 answers in well under
 * a millisecond, so small vaults keep no index file beside them.
 */
export const DEFAULT_LEXICAL_INDEX_THRESHOLD = 2_000;

/**
 * Live chunks above which the PostgreSQL store's vector leg uses pgvector's HNSW index. Lower than
 * SQLite's {@link DEFAULT_ANN_THRESHOLD}: SQLite's exact scan runs over an in-memory matrix, while
 * PostgreSQL's reads every vector through the executor (SciFact's 18,760 chunks: 79 ms exact, see
 * bench/RESULTS.md, "PostgreSQL and SQLite").
 */
export const DEFAULT_POSTGRES_ANN_THRESHOLD = 2_000;
