// The Evaluation view in Debian's Chromium, against a real server over the demo vault whose jobs a
// worker runs: demo/questions.jsonl chosen with the picker runs as an eval job whose progress bar
// runs to the end, and its HTML report shows in a sandboxed frame with its metrics; demo/queries.jsonl
// (BEIR queries, not a question set) is refused with the server's message naming its line; a BEIR
// folder outside the roots is refused; a read token sees the runs and reports but no run controls.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axeViolations,
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
  rig = await startPageRig({
    worker: true,
    // The refusals these tests cause (400, 403) are meant: Chromium logs every failed request.
    expected: (m) => /\/v1\/evals(\/beir)?$/.test(m.location().url) && /status of (403|400)\b/.test(m.text()),
  });
  ({ server, page, problems } = rig);
  await page.goto(`${server.served.url}/#/eval`);
  await enterToken(page, server.adminToken);
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

interface EvalJob {
  id: string;
  state: string;
}

describe('the Evaluation view', () => {
  it('runs an uploaded question set with a progress bar to its end, then shows the report', async () => {
    await page.getByRole('heading', { name: 'Evaluation', level: 1 }).waitFor();
    await page.getByText('No evaluations yet.').waitFor();
    await page.getByLabel('MMR').check();
    await page.getByLabel('Choose a question set (JSONL)').setInputFiles({
      name: 'questions.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: readFileSync('demo/questions.jsonl'),
    });
    const run = page.getByTestId('eval-run');
    const bar = run.getByRole('progressbar', { name: 'Progress: Evaluation of questions.jsonl' });
    await bar.waitFor();
    await run.getByText('Done: the report is below.').waitFor({ timeout: 60_000 });
    await expect(bar.getAttribute('aria-valuenow')).resolves.toBe(await bar.getAttribute('aria-valuemax'));
    const questions = readFileSync('demo/questions.jsonl', 'utf8').trim().split('\n').length;
    // Two configs (top-k, MMR) over every question.
    expect(await bar.getAttribute('aria-valuemax')).toBe(String(2 * questions));
    const { evals } = await apiJson<{ evals: EvalJob[] }>(server, server.token, '/v1/evals');
    expect(evals.map((e) => e.state)).toEqual(['done']);
    // The report, in its sandboxed frame, with the run's metrics.
    await page.getByRole('heading', { name: 'Report: questions.jsonl' }).waitFor();
    const frame = page.getByTestId('eval-report');
    await expect(frame.getAttribute('sandbox')).resolves.toBe('');
    const report = page.frameLocator('[data-testid="eval-report"]');
    await report.getByRole('heading', { level: 1 }).waitFor();
    await report.getByText('ndcg@10').first().waitFor();
    await report.getByText('faithfulness').first().waitFor();
    await report.getByRole('heading', { name: 'Comparisons' }).waitFor();
    expect(await report.locator('table.comparisons tbody tr').count()).toBeGreaterThan(0);
    // The list shows the run with its headline numbers.
    const runs = page.getByTestId('eval-runs');
    await runs.getByText('questions.jsonl').waitFor();
    await runs.getByText(/select=mmr.*nDCG@10 \d\.\d{3}/).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('shows the server’s refusal of a file that is not a question set, and queues nothing', async () => {
    await page.getByLabel('Choose a question set (JSONL)').setInputFiles({
      name: 'queries.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: readFileSync('demo/queries.jsonl'),
    });
    const refusal = page.getByRole('alert').filter({ hasText: 'queries.jsonl line 1' });
    await refusal.waitFor();
    await expect(refusal.textContent()).resolves.toContain('400 BAD_INPUT');
    const { evals } = await apiJson<{ evals: EvalJob[] }>(server, server.token, '/v1/evals');
    expect(evals).toHaveLength(1);
  });

  it('refuses a BEIR folder outside the server’s roots', async () => {
    await page.getByLabel('Path of the BEIR folder').fill('/etc');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const refusal = page.getByRole('alert').filter({ hasText: "/etc is not under the server's roots" });
    await refusal.waitFor();
    await expect(refusal.textContent()).resolves.toContain('403 FORBIDDEN');
  });

  it('works with the keyboard: a past run’s report opens from the list', async () => {
    await page.reload();
    await page.getByText('Run an evaluation, or show the report of a past one below.').waitFor();
    const show = page.getByRole('button', { name: /^Show the report of questions\.jsonl/ });
    await show.focus();
    await page.keyboard.press('Enter');
    await page.frameLocator('[data-testid="eval-report"]').getByText('ndcg@10').first().waitFor();
    await expect(show.getAttribute('aria-pressed')).resolves.toBe('true');
  });

  it('gives a read token the runs and reports, and says which role running needs', async () => {
    await page.getByRole('button', { name: 'Forget token' }).click();
    await enterToken(page, server.token);
    await page.getByTestId('needs-role').filter({ hasText: 'Running an evaluation needs a write' }).waitFor();
    expect(await page.getByLabel('Choose a question set (JSONL)').count()).toBe(0);
    await page.getByRole('button', { name: /^Show the report of questions\.jsonl/ }).click();
    await page.frameLocator('[data-testid="eval-report"]').getByText('ndcg@10').first().waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });

  it('logged no console errors', () => {
    expect(problems).toEqual([]);
  });
});
