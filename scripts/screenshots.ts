// `npm run screenshots`: the Ask view with a cited section open (and rated up) in the side panel,
// the Documents view with a document's outline open, and the Feedback view, at desktop (1280×800)
// and phone (390×844) widths, light and dark, as PNGs in a temporary folder it prints.
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
const server = await startDemoServer();
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
      await page.goto(`${server.served.url}/#/feedback`);
      await page.getByTestId('ratings').waitFor();
      await page.screenshot({ path: join(out, `feedback-${size.name}-${scheme}.png`), fullPage: true });
      await context.close();
    }
  console.log(out);
} finally {
  await browser.close();
  await server.close();
}
