// The page's upload, folder ingest and noise review in Debian's Chromium, against a real server
// over the demo vault whose jobs a worker runs: a Markdown file chosen with the picker is uploaded,
// its progress bar runs to the end, and the new document is searchable (through the API) and
// listed; undoing its batch removes it; a folder on the server outside the roots is refused with
// the server's message, one inside is ingested; the Noise view shows the API's queue (empty on the
// demo vault, then three seeded junk pages) with their features, Junk / Keep write marks, Mark all
// marks the queue after a confirmation, and the blend is fitted to the marks and switched on.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axeViolations,
  dropProblems,
  enterToken,
  startPageRig,
  type DemoServer,
  type PageRig,
} from './web-driver.js';

let rig: PageRig;
let server: DemoServer;
let page: Page;
let problems: string[];

/** A word in no demo document, so a hit for it can only be the uploaded file. */
const WORD = 'zorblattwurst';
const FILE = { name: 'upload-note.md', mimeType: 'text/markdown' };

beforeAll(async () => {
  rig = await startPageRig({
    worker: true,
    // The folder test's refusals (403, 400) are meant: Chromium logs every failed request.
    expected: (m) => m.location().url.endsWith('/v1/documents') && /status of (403|400)\b/.test(m.text()),
  });
  ({ server, page, problems } = rig);
  await page.goto(`${server.served.url}/#/documents`);
  await enterToken(page, server.adminToken);
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

const api = <T>(path: string, body?: unknown): Promise<T> =>
  apiJson<T>(server, server.adminToken, path, body);

interface Doc {
  id: string;
  source: string;
  title: string;
  batch_id: string;
}

const searchSources = async (q: string): Promise<string[]> =>
  (await api<{ results: { source: string }[] }>('/v1/search', { query: q })).results.map((h) => h.source);

const docs = async (): Promise<Doc[]> =>
  (await api<{ documents: Doc[] }>('/v1/documents?limit=10000')).documents;

describe('uploading a file', () => {
  it('shows the job’s progress to its end, and the new document is searchable and listed', async () => {
    expect(await searchSources(WORD)).not.toContain(FILE.name);
    const before = await docs();
    await page.getByTestId('documents').waitFor();
    await page.getByLabel('Choose files to upload').setInputFiles({
      ...FILE,
      buffer: Buffer.from(`# Upload note\n\nThe ${WORD} is a sausage made only for this test.\n`),
    });
    const run = page.getByTestId('job-run');
    const bar = run.getByRole('progressbar', { name: `Progress: Upload of ${FILE.name}` });
    await bar.waitFor();
    await run.getByText('Done.', { exact: true }).waitFor();
    await expect(bar.getAttribute('aria-valuenow')).resolves.toBe(await bar.getAttribute('aria-valuemax'));
    await run.getByText(/^1 added, 0 updated/).waitFor();
    const after = await docs();
    expect(after.length).toBe(before.length + 1);
    const added = after.find((d) => d.source.endsWith(FILE.name));
    expect(added).toBeDefined();
    expect((await searchSources(WORD)).some((s) => s.endsWith(FILE.name))).toBe(true);
    // The lists reloaded when the job ended.
    await page.getByText(`${after.length} documents, newest first.`).waitFor();
    await page
      .getByTestId('documents')
      .getByRole('button', { name: /^Open Upload note/ })
      .waitFor();
    const { batches } = await api<{ batches: { id: string }[] }>('/v1/batches');
    expect(batches[0]?.id).toBe(added?.batch_id);
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('is undone with its batch: the document leaves the vault and the search', async () => {
    const added = (await docs()).find((d) => d.source.endsWith(FILE.name))!;
    const table = page.getByTestId('batches');
    await table
      .getByRole('button', { name: /^Undo batch/ })
      .first()
      .click();
    await table.getByRole('button', { name: 'Yes, undo' }).click();
    await page.getByText(/undone: 1 removed/).waitFor();
    expect((await docs()).map((d) => d.id)).not.toContain(added.id);
    expect((await searchSources(WORD)).some((s) => s.endsWith(FILE.name))).toBe(false);
    // The status line shows as the undo returns; the lists reload after it, so wait for the row to go.
    await page
      .getByTestId('documents')
      .getByRole('button', { name: /^Open Upload note/ })
      .waitFor({ state: 'detached' });
  });
});

describe('ingesting a folder on the server', () => {
  it('shows the server’s refusal for a path outside its roots, and ingests one inside', async () => {
    const before = await docs();
    await page.getByLabel('Path on the server').fill('/etc');
    await page.getByRole('button', { name: 'Ingest' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: "/etc is not under the server's roots" });
    await refusal.waitFor();
    await expect(refusal.textContent()).resolves.toContain('403 FORBIDDEN');
    await page.getByLabel('Path on the server').fill('notes');
    await page.getByRole('button', { name: 'Ingest' }).click();
    await page.getByRole('alert').filter({ hasText: 'must be absolute' }).waitFor();
    const folder = `${server.root}/notes`;
    await page.getByLabel('Path on the server').fill(folder);
    await page.getByRole('button', { name: 'Ingest' }).click();
    const run = page.getByTestId('job-run').filter({ hasText: `Ingest of ${folder}` });
    await run.getByRole('progressbar', { name: `Progress: Ingest of ${folder}` }).waitFor();
    await run.getByText(/^1 added, 0 updated/).waitFor();
    const after = await docs();
    expect(after.length).toBe(before.length + 1);
    expect(after.some((d) => d.title === 'Cleaning a cast-iron pan')).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
  });
});

interface Suggestion {
  doc_id: string;
  title: string;
  features: Record<string, number>;
}
interface Mark {
  doc_id: string;
  noisy: boolean;
}

const junk = (i: number): string =>
  `Home | About | Contact | Login\nCookie policy: we use cookies. Accept all cookies. Click here to subscribe to our newsletter. Share on Facebook Twitter. Copyright 2024 All rights reserved. Privacy policy. Terms of use. ${i}`;

describe('the Noise view', () => {
  it('shows what the API suggests: nothing on the demo vault', async () => {
    const { suggestions } = await api<{ suggestions: Suggestion[] }>('/v1/noise/suggestions?k=50');
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Noise' }).click();
    await page.getByRole('heading', { name: 'Suggestions' }).waitFor();
    if (suggestions.length === 0) await page.getByTestId('no-suggestions').waitFor();
    else await page.getByTestId('suggestions').waitFor();
    expect(await page.getByTestId('suggestions').locator('> li').count()).toBe(suggestions.length);
    await page.getByText('No marks yet.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });

  it('lists seeded junk with its features as bars; Junk and Keep write marks', async () => {
    await api('/v1/documents', {
      texts: [1, 2, 3].map((i) => ({ text: junk(i), source: `junk-${i}.txt`, title: `Site footer ${i}` })),
    });
    const { suggestions } = await api<{ suggestions: Suggestion[] }>('/v1/noise/suggestions?k=50');
    expect(suggestions.length).toBeGreaterThan(1);
    await page.reload();
    const list = page.getByTestId('suggestions');
    await list.waitFor();
    const items = list.locator('> li');
    expect(await items.count()).toBe(suggestions.length);
    const first = suggestions[0]!;
    const item = items.first();
    await expect(item.textContent()).resolves.toContain(first.title);
    // Each feature is a labelled row with its value; the strongest show, the rest fold away.
    expect(await item.locator('.feature-list li').count()).toBe(Object.keys(first.features).length);
    expect(await item.locator('svg.feature-bar').count()).toBe(Object.keys(first.features).length);
    const shown = item.locator('.feature-list li:visible');
    expect(await shown.count()).toBe(4);
    await expect(shown.first().textContent()).resolves.toMatch(/\+1\.\d\d$/);
    await item.getByText(`All ${Object.keys(first.features).length} features`).click();
    await item.getByText('Boilerplate phrases').waitFor();
    await page.getByRole('button', { name: `Mark ${first.title} as junk` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${first.title} marked as junk.` })
      .waitFor();
    expect((await api<{ marks: Mark[] }>('/v1/noise/marks')).marks).toEqual([
      expect.objectContaining({ doc_id: first.doc_id, noisy: true }),
    ]);
    await page.getByTestId('marks').getByText(first.title).waitFor();
    await expect.poll(() => items.count()).toBe(suggestions.length - 1);
    const second = suggestions[1]!;
    await page.getByRole('button', { name: `Keep ${second.title}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${second.title} marked as a keeper.` })
      .waitFor();
    const marks = (await api<{ marks: Mark[] }>('/v1/noise/marks')).marks;
    expect(marks).toContainEqual(expect.objectContaining({ doc_id: second.doc_id, noisy: false }));
    expect(marks).toHaveLength(2);
    // A mark can be turned the other way from the marks list.
    await page.getByRole('button', { name: `Keep instead: ${first.title}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${first.title} marked as a keeper.` })
      .waitFor();
    expect((await api<{ marks: Mark[] }>('/v1/noise/marks')).marks).toContainEqual(
      expect.objectContaining({ doc_id: first.doc_id, noisy: false }),
    );
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('marks every suggestion as junk after a confirmation, then fits the blend to the marks and uses it', async () => {
    // Two more footers, so the queue is not empty after the keepers above.
    await api('/v1/documents', {
      texts: [4, 5].map((i) => ({ text: junk(i), source: `junk-${i}.txt`, title: `Site footer ${i}` })),
    });
    await page.reload();
    const blend = page.getByTestId('noise-blend');
    await blend.getByText('Suggestions use the fixed weights; no blend fitted yet.').waitFor();
    // Every mark so far is a keeper: a fit needs a junk one too, and the server says so.
    const marksBefore = (await api<{ marks: Mark[] }>('/v1/noise/marks')).marks;
    expect(marksBefore.every((m) => !m.noisy)).toBe(true);
    await blend.getByRole('button', { name: 'Fit to the marks' }).click();
    await blend.getByRole('alert').filter({ hasText: 'at least one marked as noise' }).waitFor();
    // Chromium logs the refused fit; it was the point of this step.
    expect(dropProblems(problems, /Failed to load resource: .* 404 \(Not Found\)/)).toBe(1);
    const { suggestions } = await api<{ suggestions: Suggestion[] }>('/v1/noise/suggestions?k=50');
    expect(suggestions.length).toBeGreaterThan(0);
    await page.getByRole('button', { name: `Mark all ${suggestions.length} as junk…` }).click();
    // The first press only asks; nothing is marked yet.
    expect((await api<{ marks: Mark[] }>('/v1/noise/marks')).marks).toHaveLength(marksBefore.length);
    await page.getByRole('button', { name: 'Yes, mark all' }).click();
    await page
      .getByRole('status')
      .filter({
        hasText: `${suggestions.length} ${suggestions.length === 1 ? 'document' : 'documents'} marked as junk.`,
      })
      .waitFor();
    const marks = (await api<{ marks: Mark[] }>('/v1/noise/marks')).marks;
    for (const sug of suggestions)
      expect(marks).toContainEqual(expect.objectContaining({ doc_id: sug.doc_id, noisy: true }));
    await page.getByTestId('no-suggestions').waitFor();
    await blend.getByRole('button', { name: 'Fit to the marks' }).click();
    await blend
      .getByRole('status')
      .filter({ hasText: `Blend fitted on ${marks.length} marked documents and saved.` })
      .waitFor();
    await blend.getByRole('button', { name: 'Use the fitted blend' }).click();
    await blend.getByText(/^Suggestions use the fitted blend; a blend was fitted /).waitFor();
    expect(await api<{ noise: { on: boolean; fitted_at: string | null } }>('/v1/ranker')).toMatchObject({
      noise: { on: true },
    });
    expect(await axeViolations(page)).toEqual([]);
    await blend.getByRole('button', { name: 'Use the fixed weights' }).click();
    await blend.getByText(/^Suggestions use the fixed weights; a blend was fitted /).waitFor();
  });

  it('logged no console errors', () => {
    expect(problems).toEqual([]);
  });
});
