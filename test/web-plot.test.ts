// The Ask view's Dartboard plot in Debian's Chromium, against a real server over the demo vault:
// after a demo question it has one mark per candidate of `POST /v1/selection-map` for the same
// question, each method's filled marks are that method's picks (in pick order), hovering shows the
// passage, a click or Enter opens the section in the side panel; a read token's Documents view has
// no upload form; axe-core's check in both themes; no console errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  ask,
  axeViolations,
  DEMO_QUESTION,
  enterToken,
  startPageRig,
  type PageRig,
} from './web-driver.js';

interface SelectionMap {
  candidates: { section_id: string; title: string; snippet: string }[];
  picks: Record<'topk' | 'mmr' | 'dartboard', number[]>;
}

let rig: PageRig;
let map: SelectionMap;

beforeAll(async () => {
  rig = await startPageRig();
  await rig.page.goto(rig.server.served.url);
  await enterToken(rig.page, rig.server.token);
  map = await apiJson<SelectionMap>(rig.server, rig.server.token, '/v1/selection-map', {
    query: DEMO_QUESTION,
  });
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

describe('the Dartboard plot', () => {
  it('has one mark per candidate of the selection map for the question asked', async () => {
    await ask(rig.page, DEMO_QUESTION);
    const marks = rig.page.getByTestId('plot-mark');
    await marks.first().waitFor();
    expect(map.candidates.length).toBeGreaterThan(1);
    expect(await marks.count()).toBe(map.candidates.length);
    const shown = await marks.evaluateAll((els) => els.map((e) => e.getAttribute('data-section')));
    expect(new Set(shown)).toEqual(new Set(map.candidates.map((c) => c.section_id)));
    expect(await axeViolations(rig.page)).toEqual([]);
  });

  it('fills the picks of the method chosen, numbered in pick order', async () => {
    for (const [method, label] of [
      ['topk', 'Top-k'],
      ['mmr', 'MMR'],
      ['dartboard', 'Dartboard'],
    ] as const) {
      await rig.page.getByRole('radio', { name: label }).check();
      const picked = rig.page.locator('[data-testid="plot-mark"][data-picked="true"]');
      expect(await picked.count()).toBe(map.picks[method].length);
      const numbered = await picked.evaluateAll((els) =>
        els.map((e) => [e.getAttribute('data-section'), e.textContent] as const),
      );
      const expected = map.picks[method].map(
        (i, n) => [map.candidates[i]!.section_id, String(n + 1)] as const,
      );
      expect(new Map(numbered)).toEqual(new Map(expected));
    }
  });

  it('shows a mark’s passage on hover and opens its section with a click, or Enter', async () => {
    const first = map.candidates[0]!;
    const mark = rig.page.locator(`[data-testid="plot-mark"][data-section="${first.section_id}"]`);
    await mark.hover();
    await expect(rig.page.getByTestId('plot-caption').textContent()).resolves.toContain(
      first.snippet.replace(/\*\*/g, ''),
    );
    await mark.click();
    const panel = rig.page.getByTestId('panel');
    const section = await apiJson<{ breadcrumb: string }>(
      rig.server,
      rig.server.token,
      `/v1/sections/${encodeURIComponent(first.section_id)}`,
    );
    await panel.getByText(section.breadcrumb, { exact: true }).waitFor();
    await rig.page.keyboard.press('Escape');
    expect(await panel.count()).toBe(0);
    // Escape gives focus back to the mark; Enter opens it again.
    expect(await rig.page.evaluate(() => document.activeElement?.getAttribute('data-section'))).toBe(
      first.section_id,
    );
    await rig.page.keyboard.press('Enter');
    await panel.getByText(section.breadcrumb, { exact: true }).waitFor();
    await rig.page.keyboard.press('Escape');
  });

  it('shows a read token no upload form, but which role adding documents needs', async () => {
    await rig.page.goto(`${rig.server.served.url}/#/documents`);
    await rig.page.getByTestId('documents').waitFor();
    expect(await rig.page.getByLabel('Choose files to upload').count()).toBe(0);
    expect(await rig.page.getByLabel('Path on the server').count()).toBe(0);
    await expect(
      rig.page.getByText(/^Uploading files needs a write or admin token/).isVisible(),
    ).resolves.toBe(true);
  });

  it('has no serious accessibility violations in the dark theme, and no console errors', async () => {
    await rig.page.goto(`${rig.server.served.url}/#/ask`);
    await rig.page.emulateMedia({ colorScheme: 'dark' });
    await ask(rig.page, DEMO_QUESTION);
    await rig.page.getByTestId('plot-mark').first().waitFor();
    expect(await axeViolations(rig.page)).toEqual([]);
    expect(rig.problems).toEqual([]);
  });
});
