import { QuiverError } from '../../errors.js';
import type {
  FeedbackRecord,
  ListFeedbackOptions,
  ListTranscriptsOptions,
  NoiseMark,
  TranscriptRecord,
} from '../store.js';
import type { StatementCache } from './connection.js';
import { now, type Row, toFeedback } from './rows.js';

/**
 * The tables that record judgements about the vault rather than its content: noise marks on
 * documents, relevance feedback, answer transcripts and cached verdicts. Plain reads and writes,
 * one statement (or one transaction) each.
 */

/** A UNIQUE violation as a CONFLICT naming the table and id; anything else passes through. */
function conflictOr(e: unknown, what: string, id: string): unknown {
  const code = (e as { code?: unknown }).code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new QuiverError('CONFLICT', `quiver: ${what} ${id} already exists`, { cause: e });
  }
  return e;
}

/** Set (true/false) or clear (null) a document's noise mark, replacing any earlier one. */
export function setMark(
  statements: StatementCache,
  docId: string,
  noisy: boolean | null,
  reason: string | null,
): void {
  statements
    .get(
      'INSERT INTO marks(doc_id, noisy, reason, at) VALUES (?, ?, ?, ?) ON CONFLICT(doc_id) DO UPDATE SET noisy = excluded.noisy, reason = excluded.reason, at = excluded.at',
    )
    .run(docId, noisy === null ? null : noisy ? 1 : 0, reason, now());
}

/** Marks that are set (cleared ones are left out), newest first. */
export function listMarks(statements: StatementCache): NoiseMark[] {
  return (statements.get('SELECT * FROM marks WHERE noisy IS NOT NULL ORDER BY at DESC').all() as Row[]).map(
    (r) => ({
      docId: r.doc_id as string,
      noisy: r.noisy === 1,
      reason: (r.reason as string | null) ?? null,
      at: r.at as string,
    }),
  );
}

/** Whether any document is marked noisy (searches then exclude them unless asked not to). */
export function hasNoisyMarks(statements: StatementCache): boolean {
  return statements.get('SELECT 1 FROM marks WHERE noisy = 1 LIMIT 1').get() !== undefined;
}

/** Insert feedback rows in one transaction; CONFLICT naming the first id that already exists. */
export function addFeedback(statements: StatementCache, rows: readonly FeedbackRecord[]): void {
  const { db } = statements;
  const ins = db.prepare(
    'INSERT INTO feedback(id, at, q, ask_id, section_id, doc_id, rank, score, signal, label, weight) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  let current = '';
  try {
    db.transaction(() => {
      for (const r of rows) {
        current = r.id;
        ins.run(r.id, r.at, r.q, r.askId, r.sectionId, r.docId, r.rank, r.score, r.signal, r.label, r.weight);
      }
    }).immediate();
  } catch (e) {
    throw conflictOr(e, 'feedback row', current);
  }
}

/** Feedback rows, newest (default) or oldest first, optionally of one document; no limit by default. */
export function listFeedback(
  statements: StatementCache,
  options: ListFeedbackOptions = {},
): FeedbackRecord[] {
  const dir = (options.order ?? 'newest') === 'newest' ? 'DESC' : 'ASC';
  const where = options.docId === undefined ? '' : 'WHERE doc_id = ?';
  const params: unknown[] = options.docId === undefined ? [] : [options.docId];
  const sql = `SELECT * FROM feedback ${where} ORDER BY at ${dir}, rid ${dir} LIMIT ? OFFSET ?`;
  return (statements.db.prepare(sql).all(...params, options.limit ?? -1, options.offset ?? 0) as Row[]).map(
    toFeedback,
  );
}

/** Store a transcript (the whole record as JSON); CONFLICT when its id exists. */
export function putTranscript(statements: StatementCache, t: TranscriptRecord): void {
  try {
    statements
      .get('INSERT INTO transcripts(id, at, question, config_fingerprint, body) VALUES (?, ?, ?, ?, ?)')
      .run(t.id, t.at, t.question, t.configFingerprint, JSON.stringify(t));
  } catch (e) {
    throw conflictOr(e, 'transcript', t.id);
  }
}

export function getTranscript(statements: StatementCache, id: string): TranscriptRecord | null {
  const r = statements.get('SELECT body FROM transcripts WHERE id = ?').get(id) as Row | undefined;
  return r === undefined ? null : (JSON.parse(r.body as string) as TranscriptRecord);
}

/** Transcripts newest first; 20 from offset 0 by default. */
export function listTranscripts(
  statements: StatementCache,
  options: ListTranscriptsOptions = {},
): TranscriptRecord[] {
  const rows = statements
    .get('SELECT body FROM transcripts ORDER BY at DESC, rid DESC LIMIT ? OFFSET ?')
    .all(options.limit ?? 20, options.offset ?? 0) as Row[];
  return rows.map((r) => JSON.parse(r.body as string) as TranscriptRecord);
}

export function getVerdict(statements: StatementCache, key: string): boolean | null {
  const r = statements.get('SELECT verdict FROM verdicts WHERE key = ?').get(key) as Row | undefined;
  return r === undefined ? null : r.verdict === 1;
}

export function putVerdict(statements: StatementCache, key: string, verdict: boolean): void {
  statements
    .get(
      'INSERT INTO verdicts(key, verdict, at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET verdict = excluded.verdict, at = excluded.at',
    )
    .run(key, verdict ? 1 : 0, now());
}
