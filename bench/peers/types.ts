// The common shape of every system in the peer benchmark (bench/peers.ts): a library is built from
// the corpus once per index-time configuration, and each build offers its query-time variants.
// Tuning has two rounds: every variant of every build, then the refinements of the winner.

/** One corpus record: the BEIR `_id`, title and text. */
export interface Doc {
  id: string;
  title: string;
  text: string;
}

/** One query-time configuration of a build. */
export interface Variant {
  /** Human-readable options, printed in the tables. */
  config: string;
  /** Ids of the best `k` documents for `query`, best first. */
  search(query: string, k: number): Promise<string[]>;
  /**
   * Costlier options (fuzzy or prefix matching, typo tolerance) tried on top of this variant when it
   * wins the first round of tuning.
   */
  refinements?: () => Variant[];
}

/** An index built with one index-time configuration. */
export interface Built {
  /** Query-time variants, in grid order (ties on the tuning queries go to the earlier one). */
  variants: Variant[];
  /**
   * Bytes on disk (a database; still readable after close), or of the library's documented
   * serialised form (in-memory libraries); null when there is neither.
   */
  sizeBytes(): Promise<number | null>;
  close(): Promise<void>;
}

/** How a system's size is measured. */
export type SizeKind = 'disk' | 'serialised' | 'in-memory';

export interface Peer {
  name: string;
  size: SizeKind;
  /** Registry name of a system whose build this one shares (quiver's legs share one vault). */
  sharesBuildWith?: string;
  /** Index-time configurations to try (build indexes 0 … builds − 1). */
  builds: number;
  /** Build index `i` from `docs` (quiver ingests `ctx.corpusPath`, the file they came from). */
  build(docs: readonly Doc[], i: number, ctx: BuildContext): Promise<Built>;
}

export interface BuildContext {
  corpusPath: string;
  /** A scratch folder the build may write to (removed by the caller afterwards). */
  workDir: string;
  /** An existing quiver vault of this corpus: quiver opens it instead of ingesting the corpus. */
  vault?: string;
}
