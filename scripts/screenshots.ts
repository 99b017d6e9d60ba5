// `npm run screenshots`: the Ask view with a cited section open in the side panel, at desktop
// (1280×800) and phone (390×844) widths, light and dark, as PNGs in a temporary folder it prints.
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
      await enterToken(page, server.token);
      await ask(page, DEMO_QUESTION);
      await page.screenshot({ path: join(out, `answer-${size.name}-${scheme}.png`), fullPage: true });
      await page
        .getByTestId('answer')
        .getByRole('button', { name: /^Source 1:/ })
        .first()
        .click();
      await page.getByTestId('highlight').waitFor();
      await page.screenshot({ path: join(out, `ask-panel-${size.name}-${scheme}.png`) });
      await context.close();
    }
  console.log(out);
} finally {
  await browser.close();
  await server.close();
}
