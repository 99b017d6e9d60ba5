import { statSync } from 'node:fs';
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import { holderAlive } from '../liveness.js';
import { readWriter } from './writer-slot.js';
import { indexSectionTexts, readFtsIndex, readFtsTotals, type SectionText } from './lexical-index-build.js';
import {
  type LexicalStamp,
  lexicalIndexPath,
  readLexicalIndex,
  readLexicalStamp,
  writeLexicalIndex,
} from './lexical-index-file.js';
import { type IndexSegment, type LexicalIndex, LexicalSearcher } from './lexical-index.js';
import type { StatementCache } from './connection.js';
import { headingOf } from './document-versions.js';
import { countLiveSections } from './lexical-search.js';
import { isReconcilable, readReverts, readVectorRevision, readVectorRevisionLog } from './vector-revision.js';
import { DEFAULT_LEXICAL_INDEX_THRESHOLD } from '../index-defaults.js';
import type { LexicalIndexInspection, LexicalIndexStatus } from '../maintenance.js';

// Shared with the configuration and other backends (../index-defaults.ts).
export { DEFAULT_LEXICAL_INDEX_THRESHOLD };

/**
 * Rows added since the saved index was built are indexed on the fly (a small second segment) up
 * to this share of the saved rows (at least {@link LEXICAL_DELTA_MIN_ROWS}); beyond it the index
 * is rebuilt.
 */
export const LEXICAL_DELTA_MAX_SHARE = 0.1;
export const LEXICAL_DELTA_MIN_ROWS = 500;

/**
 * A search builds the index itself only up to this many live sections (about a second); above
 * it, a search that finds the index needing a rebuild ranks with FTS5 (same scores, slower) and
 * the next writer or `prepare` rebuilds it, so no search waits for a long build.
 */
export const SEARCH_BUILD_MAX_SECTIONS = 20_000;

export interface LexicalIndexOptions {
  /** Live sections above which the index is used; Infinity switches it off. */
  threshold?: number;
}

export interface LexicalIndexLegOptions extends LexicalIndexOptions {
  /** The vault file (the index is saved beside it), or null for an in-memory store. */
  dbPath: string | null;
  /** False for read-only stores: build in memory, never write the file. */
  save: boolean;
  /** Told (once per process) when a search ranks with FTS5 because the index needs a rebuild. */
  onNotice?: (message: string) => void;
}

// The lexical leg's statuses are the Store's typed ones (../maintenance.ts).
export type { LexicalIndexInspection, LexicalIndexStatus } from '../maintenance.js';

type Progress = (done: number, total: number) => void;
type Db = Database.Database;

/**
 * Decides whether the lexical leg scores from a {@link LexicalIndex} and keeps that index in step
 * with the vault: loaded from `<db>.lexical` when its stamp (vector revision, rollback count, top
 * section rid) says it can be brought up to date, else rebuilt from FTS5 and saved. Bringing up to
 * date needs no rebuild while no rollback happened since: rows above the stamp's top rid are new
 * (indexed on the fly as a second segment) and base rows whose document was superseded are
 * tombstoned; scores stay exactly FTS5's because the searcher counts only live rows.
 */
export class LexicalIndexLeg {
  readonly threshold: number;
  private base: { index: LexicalIndex; stamp: LexicalStamp } | null = null;
  private triedLoad = false;
  /** Whether the FTS5 fallback was reported already. */
  private noticed = false;
  private state: { version: number; searcher: LexicalSearcher | null; fallback: boolean } | null = null;
  private pending: Promise<LexicalSearcher | null | 'fallback'> | null = null;
  readonly status: LexicalIndexStatus;

  private readonly db: Db;

  constructor(
    private readonly statements: StatementCache,
    private readonly options: LexicalIndexLegOptions,
  ) {
    this.db = statements.db;
    this.threshold = options.threshold ?? DEFAULT_LEXICAL_INDEX_THRESHOLD;
    this.status = {
      mode: 'fts5',
      sections: 0,
      threshold: this.threshold,
      file: options.dbPath === null ? null : lexicalIndexPath(options.dbPath),
      source: null,
      loadFailure: null,
      added: 0,
      removed: 0,
      saveError: null,
      deferred: false,
    };
  }

  /**
   * The searcher for data version `version` (the store's), or null when FTS5 ranks. Loads,
   * updates or builds the index as needed; `onProgress` sees a build.
   */
  async searcher(version: number, onProgress?: Progress): Promise<LexicalSearcher | null> {
    return this.searcherFor(version, true, onProgress);
  }

  /**
   * The searcher for a search: as {@link searcher}, except that when the index would need a full
   * rebuild, FTS5 ranks this search (same scores, slower) and the rebuild is left to the next
   * writer or `prepare`, so a search never waits for a build.
   */
  async searchSearcher(version: number): Promise<LexicalSearcher | null> {
    return this.searcherFor(version, false);
  }

  private async searcherFor(
    version: number,
    allowBuild: boolean,
    onProgress?: Progress,
  ): Promise<LexicalSearcher | null> {
    // A search's FTS5 fallback is remembered for its data version; a build (`prepare`) is not put off by it.
    const cached = (): boolean => this.state?.version === version && (!allowBuild || !this.state.fallback);
    if (cached()) return this.state!.searcher;
    while (this.pending !== null) await this.pending;
    if (cached()) return this.state!.searcher;
    const p = this.refresh(onProgress, allowBuild);
    this.pending = p;
    try {
      const r = await p;
      // A fallback holds for this data version too: FTS5 ranks until something is written.
      const searcher = r === 'fallback' ? null : r;
      this.state = { version, searcher, fallback: r === 'fallback' };
      return searcher;
    } finally {
      this.pending = null;
    }
  }

  /** Bring the index up to date now (a build shows progress); the status after. */
  async prepare(version: number, onProgress?: Progress): Promise<LexicalIndexStatus> {
    await this.searcher(version, onProgress);
    return { ...this.status };
  }

  /** Mode and saved-file state now, reading only the file's header. */
  async inspect(): Promise<LexicalIndexInspection> {
    const sections = this.liveSections();
    const base = { sections, threshold: this.threshold, file: this.status.file };
    if (sections <= this.threshold) return { ...base, mode: 'fts5', index: 'none' };
    if (this.status.file === null) return { ...base, mode: 'index', index: 'missing' };
    const stamp = await readLexicalStamp(this.status.file);
    if (typeof stamp === 'string') return { ...base, mode: 'index', index: stamp };
    return { ...base, mode: 'index', index: this.drift(stamp) };
  }

  /**
   * How far the vault is from a stamp: 'current' (nothing written since), 'updatable' (only
   * additions and supersessions: no rollback, and the stamp is in this file's revision history),
   * else 'stale' (rebuild).
   */
  private drift(stamp: LexicalStamp): 'current' | 'updatable' | 'stale' {
    const db = this.db;
    if (stamp.reverts !== readReverts(db)) return 'stale';
    const rev = readVectorRevision(db);
    if (stamp.rev === rev) return 'current';
    return isReconcilable(stamp.rev, rev, readVectorRevisionLog(db), null) ? 'updatable' : 'stale';
  }

  private liveSections(): number {
    return countLiveSections(this.statements);
  }

  private async refresh(
    onProgress: Progress | undefined,
    allowBuild: boolean,
  ): Promise<LexicalSearcher | null | 'fallback'> {
    const s = this.status;
    s.sections = this.liveSections();
    s.deferred = false;
    if (s.sections <= this.threshold) {
      s.mode = 'fts5';
      s.added = s.removed = 0;
      return null;
    }
    s.mode = 'index';
    if (this.base === null && !this.triedLoad && s.file !== null) {
      this.triedLoad = true;
      try {
        this.readMtime = statSync(s.file).mtimeMs;
      } catch {
        // No file yet: the read below says so.
      }
      const r = await readLexicalIndex(s.file);
      if (r.ok) {
        this.base = { index: r.index, stamp: r.stamp };
        s.source = 'loaded';
      } else s.loadFailure = r.reason;
    }
    let segments = this.base === null ? null : this.update(this.base.index, this.base.stamp);
    if (segments === null) segments = await this.reloadNewerFile();
    if (segments === null) {
      if (this.base !== null && s.source === 'loaded') s.loadFailure = 'stale';
      // While another process writes (an ingest running), its own upkeep rebuilds and saves the
      // index when it finishes: a search ranks with FTS5 meanwhile instead of rebuilding per commit.
      if (!allowBuild && this.otherWriterBusy()) {
        s.deferred = true;
        return 'fallback';
      }
      if (!allowBuild && s.sections > SEARCH_BUILD_MAX_SECTIONS) {
        s.deferred = true;
        if (!this.noticed)
          this.options.onNotice?.(
            'quiver: the lexical index is out of date; searching with FTS5 until it is rebuilt (the next add does it, or `quiver doctor --fix`)',
          );
        this.noticed = true;
        return 'fallback';
      }
      segments = await this.build(onProgress);
    }
    return new LexicalSearcher(segments, readFtsTotals(this.db, 'sections_fts'));
  }

  /** The index file's modification time when it was last read (to read a newer save only once). */
  private readMtime = -1;

  /**
   * When this index can no longer be brought up to date, the saved file may be newer (another
   * process's writer rebuilt and saved it): load it if it changed since it was last read and it
   * can be brought up to date; else null.
   */
  private async reloadNewerFile(): Promise<IndexSegment[] | null> {
    const file = this.status.file;
    if (file === null) return null;
    let mtime: number;
    try {
      mtime = statSync(file).mtimeMs;
    } catch {
      return null;
    }
    if (mtime === this.readMtime) return null;
    this.readMtime = mtime;
    const r = await readLexicalIndex(file);
    if (!r.ok) return null;
    const segments = this.update(r.index, r.stamp);
    if (segments === null) return null;
    this.base = { index: r.index, stamp: r.stamp };
    this.status.source = 'loaded';
    this.status.loadFailure = null;
    return segments;
  }

  /** Whether another live process holds the vault's writer slot now. */
  private otherWriterBusy(): boolean {
    const holder = readWriter(this.statements);
    return (
      holder !== null && !(holder.pid === process.pid && holder.host === hostname()) && holderAlive(holder)
    );
  }

  /**
   * Segments for the current rows from a base stamped `stamp`, or null when a rebuild is needed
   * (a rollback since, a revision outside this file's history, or too many new rows).
   */
  private update(base: LexicalIndex, stamp: LexicalStamp): IndexSegment[] | null {
    const db = this.db;
    const drift = this.drift(stamp);
    if (drift === 'stale') return null;
    if (drift === 'current') {
      this.status.added = this.status.removed = 0;
      return [{ index: base, dead: null }];
    }
    const added = db
      .prepare(
        `SELECT s.rid, s.id, s.text, d.title, s.breadcrumb, s.lang FROM sections s JOIN documents d ON d.rid = s.doc_rid
         WHERE s.rid > ? AND s.live = 1 ORDER BY s.rid`,
      )
      .raw()
      .all(stamp.maxRid) as [number, string, string, string, string, string | null][];
    if (added.length > Math.max(LEXICAL_DELTA_MIN_ROWS, LEXICAL_DELTA_MAX_SHARE * base.rows)) return null;
    const dead = new Uint8Array(base.rows);
    let removed = 0;
    for (const [rid] of db
      .prepare(
        `SELECT s.rid FROM documents d JOIN sections s ON s.doc_rid = d.rid
         WHERE d.superseded_by IS NOT NULL AND s.rid <= ?`,
      )
      .raw()
      .iterate(stamp.maxRid) as IterableIterator<[number]>) {
      const row = base.rowOf(rid);
      if (row >= 0 && dead[row] === 0) {
        dead[row] = 1;
        removed++;
      }
    }
    this.status.added = added.length;
    this.status.removed = removed;
    const segments: IndexSegment[] = [{ index: base, dead: removed > 0 ? dead : null }];
    if (added.length > 0) {
      const rows: SectionText[] = added.map(([rid, sectionId, body, title, breadcrumb, lang]) => ({
        rid,
        sectionId,
        body,
        title,
        heading: headingOf(breadcrumb),
        lang,
      }));
      segments.push({ index: indexSectionTexts(db, rows), dead: null });
    }
    return segments;
  }

  /** Rebuild from FTS5 in one read transaction, save it (when allowed), make it the base. */
  private async build(onProgress?: Progress): Promise<IndexSegment[]> {
    const db = this.db;
    const { index, stamp } = db.transaction(() => {
      const maxRid = (db.prepare('SELECT MAX(rid) FROM sections').raw().get() as [number | null])[0] ?? 0;
      const st: LexicalStamp = { rev: readVectorRevision(db), reverts: readReverts(db), maxRid };
      const names = 'SELECT rid, id FROM sections INDEXED BY sections_live_id WHERE live = 1';
      return { index: readFtsIndex(db, 'main', 'sections_fts', names, onProgress), stamp: st };
    })();
    this.base = { index, stamp };
    this.status.source = 'built';
    this.status.added = this.status.removed = 0;
    if (this.options.save && this.status.file !== null) {
      try {
        await writeLexicalIndex(this.status.file, index, stamp);
        this.status.saveError = null;
      } catch (e) {
        this.status.saveError = (e as Error).message;
      }
    }
    return [{ index, dead: null }];
  }
}
