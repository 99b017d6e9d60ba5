import { z } from 'zod';
import { QuiverError } from '../errors.js';
import { realRoots } from '../ingest/path-under.js';
import type { IngestPayload } from '../jobs/job-kinds.js';
import { pathUnderRoots } from '../server/roots.js';
import { jobJson } from '../wire/jobs.js';
import { feedbackJson, markJson } from '../wire/quality.js';
import { AddRequest, MarkRequest, RateRequest, UndoRequest } from '../wire/requests.js';
import { addAsJob } from './add-job.js';
import { documentLink, sectionLink } from './links.js';
import { AddOutput, NoiseMarkOutput, RateOutput, UndoOutput } from './output-schemas.js';
import type { Role } from '../server/tokens.js';
import { tool, type ToolSpec } from './tool.js';

/** The tools that change the vault: add and rate (write), noise marks (write), undo (admin). */

const a = AddRequest.shape;
const textFields = {
  text: a.text.describe('The text of one document to add (kept as a plain-text note).'),
  title: a.title.describe('Its title (default: taken from the text).'),
  source: a.source.describe(
    'Where it comes from, as its identity: adding the same source again updates it (default: a hash of the text).',
  ),
  texts: a.texts.describe(
    'Several documents at once, each {text, title?, source?}: one batch, undone together.',
  ),
};
/** A `write` session adds texts; an `admin` session may also name folders under the server's roots. */
const AddInput = z.object(textFields).strict();
const AdminAddInput = z
  .object({
    ...textFields,
    paths: a.paths.describe(
      'Absolute paths of files or folders on the server, under its configured roots (server.roots).',
    ),
    include: a.include.describe('Glob patterns of files to take from the folders (any type).'),
    exclude: a.exclude.describe('Glob patterns of files to leave out.'),
  })
  .strict();
type AdminAdd = z.infer<typeof AdminAddInput>;

const RateInput = RateRequest.extend({
  question: RateRequest.shape.question.describe('The question the section was shown or cited for.'),
  sectionId: RateRequest.shape.sectionId.describe('The section id (from a hit or citation).'),
  signal: RateRequest.shape.signal.describe(
    'up/good: it answers the question; down/bad: it does not; read, cited, shown: weaker signals.',
  ),
});

const MarkInput = MarkRequest.extend({
  document: MarkRequest.shape.document.describe('The document id or exact source.'),
  noisy: MarkRequest.shape.noisy.describe(
    'true: junk (out of search and answers); false: a keeper (off the suggestions).',
  ),
  reason: MarkRequest.shape.reason.describe('Why, in a few words (kept with the mark).'),
});

const UndoInput = UndoRequest.extend({
  batch: UndoRequest.shape.batch.describe(
    'The batch id to roll back (default: the newest batch that changed something).',
  ),
});

/** The job payload of an add: the texts, and (admin) the paths checked against the roots. */
function payloadOf(b: AdminAdd, roots: readonly string[]): IngestPayload {
  const doc = (t: { text: string; source?: string | undefined; title?: string | undefined }) => ({
    text: t.text,
    ...(t.source === undefined ? {} : { source: t.source }),
    ...(t.title === undefined ? {} : { title: t.title }),
  });
  const texts = [...(b.text === undefined ? [] : [doc({ ...b, text: b.text })]), ...(b.texts ?? []).map(doc)];
  const paths = (b.paths ?? []).map((p) => pathUnderRoots(p, roots));
  if (texts.length + paths.length === 0)
    throw new QuiverError('BAD_INPUT', 'quiver: give "text", "texts" or (admin) "paths"');
  return {
    ...(texts.length === 0 ? {} : { texts }),
    ...(paths.length === 0 ? {} : { paths, roots: realRoots(roots) }),
    ...(b.include === undefined ? {} : { include: b.include }),
    ...(b.exclude === undefined ? {} : { exclude: b.exclude }),
  };
}

function addTool(role: 'write' | 'admin'): ToolSpec {
  return tool({
    name: 'add',
    title: 'Add documents',
    description: `Add documents to the vault as one batch (undoable), run as a background job whose progress is reported while it runs; the result is the job with its add report (added, updated, unchanged, failed, per document). Adding the same source again updates it; unchanged text is a no-op. ${role === 'admin' ? 'Give text, or absolute paths of files or folders under the server roots.' : 'Give text.'}`,
    role: 'write',
    input: role === 'admin' ? AdminAddInput : AddInput,
    output: AddOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async (b: AdminAdd, { deps, signal, progress }) => {
      if ((b.paths ?? []).length > 0 && deps.role !== 'admin')
        throw new QuiverError('FORBIDDEN', 'quiver: adding server-side paths needs an admin session');
      const job = await addAsJob(deps.writer, payloadOf(b, deps.roots ?? []), {
        signal,
        onProgress: (done, total, source) => void progress(done, total, source).catch(() => undefined),
      });
      const json = jobJson(job);
      const r = json.result as Record<string, unknown> | null;
      const text =
        job.state === 'done' && r !== null
          ? `Job ${job.id} done: ${String(r.added)} added, ${String(r.updated)} updated, ${String(r.unchanged)} unchanged, ${String(r.failed)} failed (batch ${String(r.batch)}).`
          : `Job ${job.id} is ${job.state}${job.lastError === null ? '' : `: ${job.lastError}`}.`;
      return { structured: { job: json }, text };
    },
  });
}

const RATE = tool({
  name: 'rate',
  title: 'Rate a section for a question',
  description:
    'Record whether a section answers a question (up/down), so the vault can learn its ranking from it. Rate what you checked, not what you guessed.',
  role: 'write',
  input: RateInput,
  output: RateOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run: async (b, { deps }) => {
    const row = feedbackJson(
      await deps.writer.quality.rate(
        b.question,
        b.sectionId,
        b.signal,
        b.askId === undefined ? {} : { askId: b.askId },
      ),
    );
    const link = sectionLink({ section_id: row.section_id, breadcrumb: row.section_id, source: row.doc_id });
    return { structured: row, text: `Rated ${b.sectionId} ${b.signal} for "${b.question}".`, links: [link] };
  },
});

const NOISE_MARK = tool({
  name: 'noise_mark',
  title: 'Mark a document as junk or a keeper',
  description:
    "Mark a document as junk (noisy: true; it leaves search and answers at once) or as a keeper (noisy: false; it leaves the junk suggestions). A person's mark is always honoured; mark only what you read.",
  role: 'write',
  input: MarkInput,
  output: NoiseMarkOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (b, { deps }) => {
    const m = markJson(await deps.writer.quality.markNoisy(b.document, b.noisy, b.reason ?? ''));
    return {
      structured: m,
      text: `Marked ${String(m.title)} (${String(m.source)}) as ${b.noisy ? 'junk' : 'a keeper'}.`,
      links: [documentLink(m)],
    };
  },
});

const UNDO = tool({
  name: 'undo',
  title: 'Undo a batch',
  description:
    'Roll back an ingest or removal batch exactly (default: the newest one that changed something): documents it added are removed, ones it updated or removed come back. Destructive; ask the person first.',
  role: 'admin',
  input: UndoInput,
  output: UndoOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: async (b, { deps, signal }) => {
    const r = await deps.writer.undo(b.batch, { signal });
    return {
      structured: { ...r },
      text: `Rolled back batch ${r.batchId}: ${r.removed} removed, ${r.restored} restored.`,
    };
  },
});

/** The tools that change the vault for a session of `role`: none for read; undo and server paths for admin. */
export function writeTools(role: Role): ToolSpec[] {
  if (role === 'read') return [];
  return [addTool(role), RATE, NOISE_MARK, ...(role === 'admin' ? [UNDO] : [])];
}
