import type pg from 'pg';
import { QuiverError } from '../../errors.js';
import type {
  FeedbackRecord,
  ListFeedbackOptions,
  ListTranscriptsOptions,
  NoiseMark,
  TranscriptRecord,
  VerdictRecord,
} from '../store.js';
import { pgError, type Queryable, rows, run, transaction } from './connection.js';
import { now, toFeedback, toMark } from './rows.js';

/**
 * The tables that record judgements about the vault rather than its content: noise marks on
 * documents, relevance feedback, answer transcripts and cached verdicts. The PostgreSQL twin of
 * src/store/sqlite/quality-tables.ts: plain reads and writes, one statement (or one transaction)
 * each. Text is ordered by code point (`COLLATE "C"`), as SQLite orders it, whatever the
 * database's collation.
 */

const isUniqueViolation = (e: unknown): boolean => (e as { code?: unknown }).code === '23505';

/** Set (true/false) or clear (null) a document's noise mark, replacing any earlier one. */
export async function setMark(
  db: Queryable,
  docId: string,
  noisy: boolean | null,
  reason: string | null,
): Promise<void> {
  await run(
    db,
    'set mark',
    `INSERT INTO marks(doc_id, noisy, reason, at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (doc_id) DO UPDATE SET noisy = excluded.noisy, reason = excluded.reason, at = excluded.at`,
    [docId, noisy, reason, now()],
  );
}

/** Marks that are set (cleared ones are left out), newest first. */
export async function listMarks(db: Queryable): Promise<NoiseMark[]> {
  return (
    await rows(
      db,
      'list marks',
      'SELECT * FROM marks WHERE noisy IS NOT NULL ORDER BY at COLLATE "C" DESC, doc_id COLLATE "C"',
    )
  ).map(toMark);
}

/** Whether any document is marked noisy (searches then exclude them unless asked not to). */
export async function hasNoisyMarks(db: Queryable): Promise<boolean> {
  return (await rows(db, 'read marks', 'SELECT 1 FROM marks WHERE noisy LIMIT 1')).length > 0;
}

/**
 * Set noise marks with their own times (`quiver import`), replacing a document's earlier mark; one
 * statement. When `marks` names a document twice, the later mark wins.
 */
export async function importMarks(db: Queryable, marks: readonly NoiseMark[]): Promise<void> {
  const last = new Map<string, NoiseMark>();
  for (const m of marks) last.set(m.docId, m);
  if (last.size === 0) return;
  const all = [...last.values()];
  await run(
    db,
    'import marks',
    `INSERT INTO marks(doc_id, noisy, reason, at) SELECT * FROM unnest($1::text[], $2::boolean[], $3::text[], $4::text[])
     ON CONFLICT (doc_id) DO UPDATE SET noisy = excluded.noisy, reason = excluded.reason, at = excluded.at`,
    [all.map((m) => m.docId), all.map((m) => m.noisy), all.map((m) => m.reason), all.map((m) => m.at)],
  );
}

/**
 * Insert feedback rows in one transaction (one statement, rows numbered in the order given, so ties
 * in time keep it); CONFLICT naming the first id that already exists (or repeats within the call),
 * and nothing of the call is written.
 */
export async function addFeedback(pool: pg.Pool, feedback: readonly FeedbackRecord[]): Promise<void> {
  if (feedback.length === 0) return;
  const col = <K extends keyof FeedbackRecord>(k: K): FeedbackRecord[K][] => feedback.map((r) => r[k]);
  await transaction(pool, 'add feedback', async (client) => {
    const inserted = await rows<{ id: string }>(
      client,
      'add feedback',
      `INSERT INTO feedback(id, at, q, ask_id, section_id, doc_id, rank, score, signal, label, weight)
       SELECT id, at, q, ask_id, section_id, doc_id, rank, score, signal, label, weight
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::integer[],
         $8::double precision[], $9::text[], $10::double precision[], $11::double precision[])
         WITH ORDINALITY AS u(id, at, q, ask_id, section_id, doc_id, rank, score, signal, label, weight, n)
       ORDER BY n
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [
        col('id'),
        col('at'),
        col('q'),
        col('askId'),
        col('sectionId'),
        col('docId'),
        col('rank'),
        col('score'),
        col('signal'),
        col('label'),
        col('weight'),
      ],
    );
    if (inserted.length === feedback.length) return;
    const fresh = new Set(inserted.map((r) => r.id));
    const seen = new Set<string>();
    const clash = feedback.find((r) => {
      const bad = !fresh.has(r.id) || seen.has(r.id);
      seen.add(r.id);
      return bad;
    });
    throw new QuiverError(
      'CONFLICT',
      `quiver: feedback row ${clash?.id ?? '?'} already exists; nothing of this call was written`,
    );
  });
}

/**
 * Feedback rows, newest (default) or oldest first, optionally of one document; ties in time keep
 * insertion order (reversed for newest first). No limit and offset 0 by default.
 */
export async function listFeedback(
  db: Queryable,
  options: ListFeedbackOptions = {},
): Promise<FeedbackRecord[]> {
  const dir = (options.order ?? 'newest') === 'newest' ? 'DESC' : 'ASC';
  const params: unknown[] = [options.limit ?? null, options.offset ?? 0];
  let where = '';
  if (options.docId !== undefined) {
    params.push(options.docId);
    where = 'WHERE doc_id = $3';
  }
  return (
    await rows(
      db,
      'list feedback',
      `SELECT * FROM feedback ${where} ORDER BY at COLLATE "C" ${dir}, rid ${dir} LIMIT $1 OFFSET $2`,
      params,
    )
  ).map(toFeedback);
}

/** Store a transcript (the whole record as JSON); CONFLICT naming it when its id exists. */
export async function putTranscript(db: Queryable, t: TranscriptRecord): Promise<void> {
  try {
    await db.query(
      'INSERT INTO transcripts(id, at, question, config_fingerprint, body) VALUES ($1, $2, $3, $4, $5)',
      [t.id, t.at, t.question, t.configFingerprint, JSON.stringify(t)],
    );
  } catch (e) {
    if (isUniqueViolation(e))
      throw new QuiverError('CONFLICT', `quiver: transcript ${t.id} already exists`, { cause: e });
    throw pgError(e, 'put transcript');
  }
}

/** A transcript by id, or null. */
export async function getTranscript(db: Queryable, id: string): Promise<TranscriptRecord | null> {
  const r = await rows<{ body: string }>(
    db,
    'read transcript',
    'SELECT body FROM transcripts WHERE id = $1',
    [id],
  );
  return r[0] === undefined ? null : (JSON.parse(r[0].body) as TranscriptRecord);
}

/** Transcripts newest first (ties: the later written first); 20 from offset 0 by default. */
export async function listTranscripts(
  db: Queryable,
  options: ListTranscriptsOptions = {},
): Promise<TranscriptRecord[]> {
  const r = await rows<{ body: string }>(
    db,
    'list transcripts',
    'SELECT body FROM transcripts ORDER BY at COLLATE "C" DESC, rid DESC LIMIT $1 OFFSET $2',
    [options.limit ?? 20, options.offset ?? 0],
  );
  return r.map((x) => JSON.parse(x.body) as TranscriptRecord);
}

/** The judge's cached verdict for a key, or null when not cached. */
export async function getVerdict(db: Queryable, key: string): Promise<boolean | null> {
  const r = await rows<{ verdict: boolean }>(
    db,
    'read verdict',
    'SELECT verdict FROM verdicts WHERE key = $1',
    [key],
  );
  return r[0]?.verdict ?? null;
}

/** Cache a verdict, replacing any earlier one for the key. */
export async function putVerdict(db: Queryable, key: string, verdict: boolean): Promise<void> {
  await run(
    db,
    'put verdict',
    `INSERT INTO verdicts(key, verdict, at) VALUES ($1, $2, $3)
     ON CONFLICT (key) DO UPDATE SET verdict = excluded.verdict, at = excluded.at`,
    [key, verdict, now()],
  );
}

/**
 * Cached verdicts in key order (by code point) from the first key above `after` (null: from the
 * start), at most `limit`: how `quiver export` pages them.
 */
export async function listVerdicts(
  db: Queryable,
  after: string | null,
  limit: number,
): Promise<VerdictRecord[]> {
  return rows<{ key: string; verdict: boolean }>(
    db,
    'list verdicts',
    `SELECT key, verdict FROM verdicts WHERE $1::text IS NULL OR key COLLATE "C" > $1::text
     ORDER BY key COLLATE "C" LIMIT $2`,
    [after, limit],
  ).then((r) => r.map(({ key, verdict }) => ({ key, verdict })));
}
