// The web page of `quiver serve` in Debian's Chromium, against a real server over the demo vault:
// the token, a streamed answer, a citation opened with its sentence highlighted, the five
// measurement cards, the evidence table, no rating for a read token (it says which role rating
// needs), keyboard use, no console errors, and axe-core's check.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_CSP } from '../src/server/page.js';
import { reflow } from '../web/src/highlight.js';
import {
  apiJson,
  ask,
  axeViolations as axeViolationsOf,
  DEMO_QUESTION,
  dropProblems,
  enterToken,
  recordAskStream,
  startPageRig,
  type DemoServer,
  type PageRig,
  type SeenEvent,
} from './web-driver.js';

let rig: PageRig;
let server: DemoServer;
let page: Page;
let problems: string[];

beforeAll(async () => {
  rig = await startPageRig();
  ({ server, page, problems } = rig);
  await recordAskStream(page);
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

/** axe-core's serious and critical violations on the page as it is now. */
const axeViolations = (): Promise<string[]> => axeViolationsOf(page);

const api = <T>(path: string): Promise<T> => apiJson<T>(server, server.token, path);

describe('the web page', () => {
  it('is served at / with the self-only CSP and no token, and asks for one', async () => {
    const res = await page.goto(server.served.url);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toBe(PAGE_CSP);
    await expect(page.getByRole('heading', { name: 'Open your vault' }).isVisible()).resolves.toBe(true);
    await expect(page.getByText('quiver token create --role read').isVisible()).resolves.toBe(true);
    expect(await axeViolations()).toEqual([]);
  });

  it('shows a rejected token as a message, then takes a good one (kept in the session only)', async () => {
    await enterToken(page, 'qv_not-a-token');
    await ask(page, DEMO_QUESTION);
    const alert = page.getByRole('alert');
    await expect(alert.textContent()).resolves.toMatch(/401 UNAUTHORIZED.*valid bearer token/);
    await alert.getByRole('button', { name: 'Enter a token' }).click();
    await enterToken(page, server.token);
    // Chromium logs each refused request (the token's role, the context, the answer); they were
    // the point of this step.
    expect(dropProblems(problems, /Failed to load resource: .* 401 \(Unauthorized\)/)).toBe(3);
    expect(await page.evaluate(() => [sessionStorage.getItem('quiver.token'), localStorage.length])).toEqual([
      server.token,
      0,
    ]);
  });

  it('takes a token from the link quiver serve prints: kept in the session, gone from the address', async () => {
    const tab = await rig.browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await tab.goto(`${server.served.url}/?token=${encodeURIComponent(server.token)}#/documents`);
      await tab.getByTestId('documents').waitFor();
      expect(new URL(tab.url()).search).toBe('');
      expect(new URL(tab.url()).hash).toBe('#/documents');
      expect(await tab.evaluate(() => sessionStorage.getItem('quiver.token'))).toBe(server.token);
      // The new tab's blank page and this one: the address was replaced, not pushed, so Back never
      // shows the link with the token again.
      expect(await tab.evaluate(() => history.length)).toBe(2);
    } finally {
      await tab.close();
    }
  });

  it('streams the answer: context first, tokens before done, the page showing what streamed', async () => {
    await page.evaluate(() => ((window as unknown as { __askEvents: unknown[] }).__askEvents.length = 0));
    await ask(page, DEMO_QUESTION);
    const seen = await page.evaluate(() => (window as unknown as { __askEvents: SeenEvent[] }).__askEvents);
    const names = seen.map((e) => e.event);
    expect(names[0]).toBe('context');
    expect(names.at(-1)).toBe('done');
    const firstToken = names.indexOf('token');
    expect(firstToken).toBeGreaterThan(0);
    expect(firstToken).toBeLessThan(names.indexOf('done'));
    const streamed = seen
      .filter((e) => e.event === 'token')
      .map((e) => (JSON.parse(e.data) as { text: string }).text)
      .join('');
    const shown = await page.getByTestId('answer').textContent();
    // What the page shows is the streamed text (markers become buttons with the same text, **bold** bold).
    const plain = (t: string): string => t.replace(/\*\*/g, '').replace(/\s+/g, ' ').trim();
    expect(plain(shown ?? '')).toBe(plain(streamed));
    expect(await page.getByTestId('answer').locator('strong').count()).toBeGreaterThan(0);
    expect(
      await page
        .getByTestId('answer')
        .getByRole('button', { name: /^Source \d+/ })
        .count(),
    ).toBeGreaterThan(0);
  });

  it('opens [1] in the side panel with the sentence the claim rests on highlighted', async () => {
    const seen = await page.evaluate(() => (window as unknown as { __askEvents: SeenEvent[] }).__askEvents);
    const done = JSON.parse(seen.at(-1)!.data) as {
      context: { n: number; section_id: string; breadcrumb: string; source: string }[];
      claims: { text: string; citations: number[] }[];
    };
    const first = done.context.find((c) => c.n === 1)!;
    const cite = page
      .getByTestId('answer')
      .getByRole('button', { name: /^Source 1:/ })
      .first();
    await cite.click();
    const panel = page.getByTestId('panel');
    const mark = panel.getByTestId('highlight');
    await mark.waitFor();
    const section = await api<{ text: string; breadcrumb: string; source: string }>(
      `/v1/sections/${encodeURIComponent(first.section_id)}`,
    );
    const marked = (await mark.textContent()) ?? '';
    expect(marked.length).toBeGreaterThan(10);
    // The panel shows the section's text reflowed (soft line breaks as spaces) with **bold** bold.
    const shownText = (t: string): string => reflow(t).replace(/\*\*/g, '');
    expect(shownText(section.text)).toContain(marked);
    expect(await panel.getByTestId('section-text').textContent()).toBe(shownText(section.text));
    await expect(panel.getByText(section.breadcrumb, { exact: true }).isVisible()).resolves.toBe(true);
    await expect(panel.getByText(section.source, { exact: true }).isVisible()).resolves.toBe(true);
    // The highlighted sentence is the one a claim citing [1] states.
    const words = (t: string): string[] => t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    const claim = done.claims.find((c) => c.citations.includes(1))!;
    const shared = words(claim.text).filter((w) => words(marked).includes(w));
    expect(shared.length / words(claim.text).length).toBeGreaterThanOrEqual(0.5);
    expect(
      await mark.evaluate(
        (m) => m.getBoundingClientRect().top >= 0 && m.getBoundingClientRect().bottom <= innerHeight,
      ),
    ).toBe(true);
    expect(await axeViolations()).toEqual([]);
  });

  it('reaches the document outline from the panel, and Escape closes it back to the citation', async () => {
    await page.getByTestId('panel').getByRole('button', { name: 'Document outline' }).click();
    const outline = page.getByTestId('panel').getByRole('navigation');
    await outline.waitFor();
    expect(await outline.getByRole('button').count()).toBeGreaterThan(0);
    await page.keyboard.press('Escape');
    expect(await page.getByTestId('panel').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '')).toMatch(
      /^Source 1:/,
    );
    // Keyboard alone: Enter on the focused citation opens it again.
    await page.keyboard.press('Enter');
    await page.getByTestId('panel').getByTestId('highlight').waitFor();
  });

  it('shows the five measurement cards, each a value or Undefined with its reason, and the judge', async () => {
    const cards = page.getByTestId('measurement');
    expect(await cards.count()).toBe(5);
    const names = await cards.locator('h3').allTextContents();
    expect(names).toEqual([
      'Context relevance',
      'Faithfulness',
      'Citation support',
      'Citation precision',
      'Completeness',
    ]);
    for (let i = 0; i < 5; i++) {
      const card = cards.nth(i);
      const value = (await card.getByTestId('measurement-value').textContent()) ?? '';
      expect(value).toMatch(/^(\d{1,3}%|Undefined)$/);
      expect(await card.getByText(/^\d+ \/ \d+/).count()).toBe(1);
      expect(await card.getByText(/^Judged by: /).count()).toBe(1);
      if (value === 'Undefined')
        expect(await card.getByTestId('undefined-reason').textContent()).toMatch(/^Undefined: \S/);
    }
    // A live question has no relevance labels nor reference facts; the answer's claims are measured.
    await expect(cards.nth(0).getByTestId('measurement-value').textContent()).resolves.toBe('Undefined');
    await expect(cards.nth(4).getByTestId('undefined-reason').textContent()).resolves.toMatch(
      /no required facts/,
    );
    await expect(cards.nth(1).getByTestId('measurement-value').textContent()).resolves.toMatch(/%$/);
    await expect(cards.nth(1).textContent()).resolves.toMatch(/lexical-proxy/);
    // Opening a card lists the claims and the sources that support each.
    await cards.nth(1).getByText('Claims and sources').click();
    expect(await cards.nth(1).locator('.claims > li').count()).toBeGreaterThan(0);
    await expect(cards.nth(1).locator('.claims').textContent()).resolves.toMatch(/supported/);
  });

  it('lists every context section in the evidence table with its ranks and whether it is cited', async () => {
    const seen = await page.evaluate(() => (window as unknown as { __askEvents: SeenEvent[] }).__askEvents);
    const done = JSON.parse(seen.at(-1)!.data) as { context: unknown[]; cited: { n: number }[] };
    const rows = page.getByTestId('evidence').locator('tbody tr');
    expect(await rows.count()).toBe(done.context.length);
    await expect(rows.first().locator('td').nth(1).textContent()).resolves.toMatch(/^#\d+$/);
    expect(await page.getByTestId('evidence').getByText('cited', { exact: true }).count()).toBe(
      new Set(done.cited.map((c) => c.n)).size,
    );
  });

  it('offers a read token no rating, and says which role rating needs', async () => {
    const panel = page.getByTestId('panel');
    await panel.getByTestId('highlight').waitFor();
    expect(await page.getByRole('button', { name: /^Rate source/ }).count()).toBe(0);
    await expect(panel.getByTestId('needs-role').textContent()).resolves.toMatch(
      /^Rating needs a write or admin token; this token’s role is read/,
    );
    await expect(page.getByTestId('evidence').locator('thead th').allTextContents()).resolves.not.toContain(
      'Rate',
    );
    expect((await api<{ ratings: unknown[] }>('/v1/feedback')).ratings).toEqual([]);
  });

  it('has no serious accessibility violations in the dark theme, and no console errors at all', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await axeViolations()).toEqual([]);
    expect(problems).toEqual([]);
  });
});
