// The page's Feedback and Documents views in Debian's Chromium, against a real server over the
// demo vault with an admin token: up on a cited section writes a feedback row (checked through
// the API) and shows pressed in the panel and the evidence table; the ratings list and the
// learning switch; the documents listed, filtered and opened to their outline and a section;
// the batches with Undo (confirmed first) and the jobs; axe-core's check; no console errors.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  ask,
  axeViolations,
  DEMO_QUESTION,
  enterToken,
  startPageRig,
  type DemoServer,
  type PageRig,
} from './web-driver.js';

let rig: PageRig;
let server: DemoServer;
let page: Page;
let problems: string[];

beforeAll(async () => {
  rig = await startPageRig();
  ({ server, page, problems } = rig);
  await page.goto(server.served.url);
  await enterToken(page, server.adminToken);
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

const api = <T>(path: string): Promise<T> => apiJson<T>(server, server.adminToken, path);

interface Rating {
  question: string;
  section_id: string;
  signal: string;
}

interface Doc {
  id: string;
  title: string;
  source: string;
}

describe('rating the sections of an answer', () => {
  it('writes an up row for the cited section and shows it pressed in the panel and the table', async () => {
    await ask(page, DEMO_QUESTION);
    await page
      .getByTestId('answer')
      .getByRole('button', { name: /^Source 1:/ })
      .first()
      .click();
    await page.getByTestId('panel').getByTestId('highlight').waitFor();
    const up = page.getByTestId('panel').getByRole('button', { name: /^Rate source 1 up/ });
    await expect(up.getAttribute('aria-pressed')).resolves.toBe('false');
    await up.click();
    await page.getByTestId('panel').locator('button[aria-pressed="true"]').waitFor();
    await expect(up.getAttribute('aria-pressed')).resolves.toBe('true');
    const { ratings } = await api<{ ratings: Rating[] }>('/v1/feedback');
    expect(ratings.map((r) => [r.question, r.signal])).toEqual([[DEMO_QUESTION, 'up']]);
    // The same section's row in the evidence table shows the same rating.
    const row = page.getByTestId('evidence').locator('tbody tr').first();
    await expect(
      row.getByRole('button', { name: /^Rate source 1 up/ }).getAttribute('aria-pressed'),
    ).resolves.toBe('true');
    // Down on another row writes a down row for that section.
    const second = page.getByTestId('evidence').getByRole('button', { name: /^Rate source 2 down/ });
    await second.click();
    await page.getByTestId('evidence').locator('.rate-down[aria-pressed="true"]').waitFor();
    const after = await api<{ ratings: Rating[] }>('/v1/feedback');
    expect(after.ratings.map((r) => r.signal)).toEqual(['down', 'up']);
    expect(new Set(after.ratings.map((r) => r.section_id)).size).toBe(2);
    expect(await axeViolations(page)).toEqual([]);
  });
});

describe('the Feedback view', () => {
  it('lists the ratings, opens a rated section, and switches learning on through the API', async () => {
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Feedback' }).click();
    const rows = page.getByTestId('ratings').locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    await expect(rows.first().textContent()).resolves.toContain(DEMO_QUESTION);
    // A rated section opens in the side panel.
    await rows
      .first()
      .getByRole('button', { name: /^Read section / })
      .click();
    await page.getByTestId('panel').getByTestId('section-text').waitFor();
    await page.keyboard.press('Escape');
    const learning = page.getByRole('switch', { name: 'Log answers for learning' });
    await expect(learning.getAttribute('aria-checked')).resolves.toBe('false');
    await learning.click();
    await page.getByRole('switch', { name: 'Log answers for learning', checked: true }).waitFor();
    expect((await api<{ learning: boolean }>('/v1/feedback')).learning).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
  });
});

describe('the Documents view', () => {
  it('lists the demo documents and filters them by text', async () => {
    const { documents } = await api<{ documents: Doc[] }>('/v1/documents?limit=10000');
    expect(documents.length).toBeGreaterThan(1);
    await page.getByRole('link', { name: 'Documents' }).click();
    const rows = page.getByTestId('documents').locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(documents.length);
    const sourdough = documents.filter((d) => `${d.title} ${d.source}`.toLowerCase().includes('sourdough'));
    expect(sourdough.length).toBeGreaterThan(0);
    expect(sourdough.length).toBeLessThan(documents.length);
    await page.getByLabel('Filter by title or source').fill('Sourdough');
    expect(await rows.count()).toBe(sourdough.length);
    await expect(
      page.getByText(`${sourdough.length} of ${documents.length} documents match.`).count(),
    ).resolves.toBe(1);
  });

  it('opens a document to its outline and a section of it to its text', async () => {
    const doc = (await api<{ documents: Doc[] }>('/v1/documents?limit=10000')).documents.find((d) =>
      d.source.includes('sourdough'),
    )!;
    const outline = await api<{ sections: { id: string; title: string }[] }>(
      `/v1/documents/${encodeURIComponent(doc.id)}/outline`,
    );
    await page
      .getByTestId('documents')
      .getByRole('button', { name: new RegExp(`^Open ${doc.title}`) })
      .click();
    const nav = page.getByTestId('panel').getByRole('navigation', { name: `Outline of ${doc.title}` });
    await nav.waitFor();
    expect(await nav.getByRole('button').count()).toBe(outline.sections.length);
    const last = outline.sections.at(-1)!;
    const section = await api<{ text: string; breadcrumb: string }>(
      `/v1/sections/${encodeURIComponent(last.id)}`,
    );
    await nav.getByRole('button').last().click();
    await page.getByTestId('panel').getByTestId('section-text').waitFor();
    await expect(
      page.getByTestId('panel').getByText(section.breadcrumb, { exact: true }).count(),
    ).resolves.toBe(1);
    // A section read from the Documents view is not part of an answer: nothing to rate.
    expect(await page.getByTestId('panel').getByTestId('rate').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    expect(await page.getByTestId('panel').count()).toBe(0);
  });

  it('lists the batches and the jobs, with no serious accessibility violations in either theme', async () => {
    const { batches } = await api<{ batches: { id: string }[] }>('/v1/batches');
    expect(await page.getByTestId('batches').locator('tbody tr').count()).toBe(batches.length);
    const jobs = await api<{ jobs: unknown[] }>('/v1/jobs');
    expect(
      jobs.jobs.length === 0
        ? await page.getByText('No jobs yet.').count()
        : await page.getByTestId('jobs').locator('tbody tr').count(),
    ).toBe(Math.max(1, jobs.jobs.length));
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('undoes a batch only after it is confirmed, and the documents it added leave the list', async () => {
    const { batches } = await api<{ batches: { id: string; status: string; added: number }[] }>(
      '/v1/batches',
    );
    const newest = batches[0]!;
    expect(newest.added).toBeGreaterThan(0);
    const table = page.getByTestId('batches');
    await table
      .getByRole('button', { name: /^Undo batch/ })
      .first()
      .click();
    // The first press only asks; nothing changed yet.
    await expect(api<{ batches: { status: string }[] }>('/v1/batches')).resolves.toMatchObject({
      batches: [{ status: newest.status }],
    });
    await table.getByRole('button', { name: 'Cancel' }).click();
    expect(await table.getByRole('button', { name: 'Yes, undo' }).count()).toBe(0);
    await table
      .getByRole('button', { name: /^Undo batch/ })
      .first()
      .click();
    // Focus moved to the confirmation, so Enter confirms.
    await page.keyboard.press('Enter');
    await page.getByText(/undone: \d+ removed/).waitFor();
    const left = await api<{ documents: Doc[] }>('/v1/documents?limit=10000');
    expect((await api<{ batches: { id: string; status: string }[] }>('/v1/batches')).batches).toContainEqual(
      expect.objectContaining({ id: newest.id, status: 'rolled_back' }),
    );
    await page.getByTestId('batches').getByText('rolled back').first().waitFor();
    await page.getByLabel('Filter by title or source').fill('');
    await page.getByText(`${left.documents.length} documents, newest first.`).waitFor();
    expect(await page.getByTestId('documents').locator('tbody tr').count()).toBe(left.documents.length);
  });

  it('logged no console errors', () => {
    expect(problems).toEqual([]);
  });
});
