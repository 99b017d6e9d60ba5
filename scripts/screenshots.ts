// `npm run screenshots`: the Ask view (and its Dartboard plot) with a cited section open (and rated up) in the side panel,
// the Documents view with a document's outline open, an upload's finished progress and a refused
// folder ingest, the Feedback view, the Noise view (empty, then with seeded junk and a mark), and
// the Evaluation view (a run of demo/questions.jsonl to its end, its report embedded), the
// Grounding lab (Experiment 1 made and explained),
// at desktop (1280×800) and phone (390×844) widths, light and dark, as PNGs in a temporary folder
// it prints.
// Needs the built page (`npm run build`) and Debian's Chromium.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ask,
  DEMO_QUESTION,
  enterToken,
  launchChromium,
  requireBuiltPage,
  startDemoServer,
} from '../test/web-driver.js';

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const SCHEMES = ['light', 'dark'] as const;

requireBuiltPage();
const out = mkdtempSync(join(tmpdir(), 'quiver-screenshots-'));
const server = await startDemoServer({ worker: true });
const auth = { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' };
const browser = await launchChromium();
try {
  for (const size of SIZES)
    for (const scheme of SCHEMES) {
      const context = await browser.newContext({
        viewport: { width: size.width, height: size.height },
        colorScheme: scheme,
        deviceScaleFactor: 1,
      });
      const page = await context.newPage();
      await page.goto(server.served.url);
      if (size.name === 'desktop')
        await page.screenshot({ path: join(out, `token-${size.name}-${scheme}.png`) });
      // An admin token: every view shows all it can (the job list needs write, Undo admin).
      await enterToken(page, server.adminToken);
      await ask(page, DEMO_QUESTION);
      await page.screenshot({ path: join(out, `answer-${size.name}-${scheme}.png`), fullPage: true });
      // The Dartboard plot with a mark hovered, its passage shown beside (or under) it.
      await page.getByTestId('plot-mark').first().waitFor();
      await page.locator('[data-testid="plot-mark"][data-picked="true"]').first().hover();
      await page.locator('section[aria-labelledby="plot-title"]').screenshot({
        path: join(out, `plot-${size.name}-${scheme}.png`),
      });
      await page
        .getByTestId('answer')
        .getByRole('button', { name: /^Source 1:/ })
        .first()
        .click();
      await page.getByTestId('highlight').waitFor();
      await page
        .getByTestId('panel')
        .getByRole('button', { name: /^Rate source 1 up/ })
        .click();
      await page.getByTestId('panel').locator('button[aria-pressed="true"]').waitFor();
      await page.screenshot({ path: join(out, `ask-panel-${size.name}-${scheme}.png`) });
      await page.keyboard.press('Escape');
      await page.goto(`${server.served.url}/#/documents`);
      await page.getByTestId('documents').waitFor();
      await page.getByTestId('batches').waitFor();
      await page.screenshot({ path: join(out, `documents-${size.name}-${scheme}.png`), fullPage: true });
      await page.getByLabel('Filter by title or source').fill('sourdough');
      await page
        .getByTestId('documents')
        .getByRole('button', { name: /^Open / })
        .first()
        .click();
      await page.getByTestId('panel').getByRole('navigation').waitFor();
      await page.screenshot({ path: join(out, `documents-outline-${size.name}-${scheme}.png`) });
      await page.keyboard.press('Escape');
      // An upload run to its end, and a folder outside the roots refused.
      await page.getByLabel('Choose files to upload').setInputFiles({
        name: `note-${size.name}-${scheme}.md`,
        mimeType: 'text/markdown',
        buffer: Buffer.from(`# A note\n\nUploaded for the ${size.name} ${scheme} screenshot.\n`),
      });
      await page.getByTestId('job-run').getByText('Done.', { exact: true }).waitFor();
      await page.getByLabel('Path on the server').fill('/etc');
      await page.getByRole('button', { name: 'Ingest' }).click();
      await page.getByRole('alert').filter({ hasText: 'not under' }).waitFor();
      await page.locator('section[aria-labelledby="add-title"]').screenshot({
        path: join(out, `documents-add-${size.name}-${scheme}.png`),
      });
      await page.goto(`${server.served.url}/#/feedback`);
      await page.getByTestId('ratings').waitFor();
      await page.screenshot({ path: join(out, `feedback-${size.name}-${scheme}.png`), fullPage: true });
      await page.goto(`${server.served.url}/#/noise`);
      await page.getByRole('heading', { name: 'Marks' }).waitFor();
      await page
        .getByText(/^Nothing looks like junk|^No marks yet/)
        .first()
        .waitFor();
      await page.screenshot({ path: join(out, `noise-${size.name}-${scheme}.png`), fullPage: true });
      // An evaluation of the demo question set run to its end, its report embedded.
      await page.goto(`${server.served.url}/#/eval`);
      await page.getByRole('checkbox', { name: 'MMR' }).check();
      await page.getByLabel('Choose a question set (JSONL)').setInputFiles('demo/questions.jsonl');
      await page.getByTestId('eval-run').getByText('Done: the report is below.').waitFor({ timeout: 60_000 });
      await page.frameLocator('[data-testid="eval-report"]').getByRole('heading', { level: 1 }).waitFor();
      // The sandboxed report is painted in a process of its own, a moment after it loads: without
      // this pause a narrow window's shots caught it blank.
      await page.waitForTimeout(500);
      await page.screenshot({ path: join(out, `eval-${size.name}-${scheme}.png`), fullPage: true });
      await page.getByTestId('eval-report').scrollIntoViewIfNeeded();
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(out, `eval-report-${size.name}-${scheme}.png`) });
      // The Grounding lab: Experiment 1 predicted, made (precision Undefined) and explained.
      await page.goto(`${server.served.url}/#/lab`);
      await page.getByRole('button', { name: /^Experiment 1:/ }).click();
      await page.getByRole('checkbox', { name: 'Citation support' }).check();
      await page.getByRole('button', { name: 'Make the change' }).click();
      await page.getByTestId('lab-changed').getByRole('radio').first().check();
      await page.screenshot({ path: join(out, `lab-${size.name}-${scheme}.png`), fullPage: true });
      // The answer asked above, opened in the lab with its first section switched off (once the Ask
      // view hands its answer over).
      const openAnswer = page.getByRole('button', { name: 'Open my last answer in the lab' });
      if ((await openAnswer.count()) > 0) {
        await openAnswer.click();
        await page.getByTestId('lab-answer').getByRole('checkbox').first().uncheck();
        await page.locator('[data-testid="lab-answer-cards"][data-state="1"]').waitFor();
        await page.screenshot({ path: join(out, `lab-answer-${size.name}-${scheme}.png`), fullPage: true });
      }
      await context.close();
    }
  // The queue with junk in it: three footer pages, the first marked as junk.
  const junk = (i: number): string =>
    `Home | About | Contact | Login\nCookie policy: we use cookies. Accept all cookies. Click here to subscribe to our newsletter. Share on Facebook Twitter. Copyright 2024 All rights reserved. Privacy policy. Terms of use. ${i}`;
  await fetch(`${server.served.url}/v1/documents`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      texts: [1, 2, 3, 4].map((i) => ({ text: junk(i), source: `junk-${i}.txt`, title: `Site footer ${i}` })),
    }),
  });
  await fetch(`${server.served.url}/v1/noise/marks`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ document: 'junk-4.txt', noisy: true }),
  });
  for (const size of SIZES)
    for (const scheme of SCHEMES) {
      const context = await browser.newContext({
        viewport: { width: size.width, height: size.height },
        colorScheme: scheme,
        deviceScaleFactor: 1,
      });
      const page = await context.newPage();
      await page.goto(`${server.served.url}/#/noise`);
      await enterToken(page, server.adminToken);
      await page.getByTestId('suggestions').waitFor();
      await page.getByTestId('marks').waitFor();
      await page.locator('.features details').first().locator('summary').click();
      await page.screenshot({ path: join(out, `noise-queue-${size.name}-${scheme}.png`), fullPage: true });
      await context.close();
    }
  console.log(out);
} finally {
  await browser.close();
  await server.close();
}
