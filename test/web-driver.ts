// Shared by the page's browser test and `npm run screenshots`: a real `quiver serve` over a fresh
// copy of the demo vault, Debian's Chromium driven by playwright-core, and the page's steps.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { Vault } from '../src/index.js';
import { work } from '../src/jobs/worker.js';
import { startServer, type Served } from '../src/server/serve.js';
import { createToken } from '../src/server/tokens.js';

export const CHROMIUM = '/usr/bin/chromium';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const WEB_DIST = join(ROOT, 'dist', 'web');
/** A demo question (demo/queries.jsonl q2) whose answer cites [1] and [2] (demo/corpus/sourdough). */
export const DEMO_QUESTION = 'What temperature kills a sourdough starter?';

/** Fails with what to do when the page was never built. */
export function requireBuiltPage(): void {
  if (!existsSync(join(WEB_DIST, 'index.html')))
    throw new Error(`the web page is not built (no ${WEB_DIST}/index.html): run \`npm run build\` first`);
}

export interface DemoServer {
  served: Served;
  /** A read token (what a person asking needs). */
  token: string;
  /** A write token (rating sections, the job list). */
  writeToken: string;
  /** An admin token (learning, undo, retry). */
  adminToken: string;
  /** The one folder server-side paths may be under (`server.roots`), holding `notes/cleaning.md`. */
  root: string;
  close(): Promise<void>;
}

export interface DemoServerOptions {
  /** Run queued jobs (uploads, folder ingests) as `quiver serve`'s worker does, in this process. */
  worker?: boolean;
}

/**
 * `quiver serve` (the same `startServer`) on 127.0.0.1, any free port, over the demo corpus in a
 * temp folder, with `server.roots` set to a folder of its own (one Markdown file in `notes/`).
 */
export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  // A project folder as a person has one: the demo corpus in it and the vault in its `.quiver/`,
  // so sources are relative to it (`demo/corpus/…`), never the folders of the machine.
  const dir = mkdtempSync(join(tmpdir(), 'quiver-web-'));
  const path = join(dir, '.quiver', 'demo.db');
  mkdirSync(join(dir, '.quiver'));
  cpSync(join(ROOT, 'demo', 'corpus'), join(dir, 'demo', 'corpus'), { recursive: true });
  const root = join(dir, 'root');
  mkdirSync(join(root, 'notes'), { recursive: true });
  writeFileSync(
    join(root, 'notes', 'cleaning.md'),
    '# Cleaning a cast-iron pan\n\nScrub the pan with coarse salt and a little oil, never soap left to soak.\n',
  );
  const writer = await Vault.open({
    overrides: { vault: path, 'server.burst': 1000, 'server.ratePerSecond': 1000, 'server.roots': root },
  });
  await writer.add([join(dir, 'demo', 'corpus')]);
  const reader = await Vault.open({ overrides: { vault: path }, readonly: true });
  const served = await startServer({ reader, writer }, { host: '127.0.0.1', port: 0 });
  const token = (await createToken(writer.store, 'read', 'web page test')).token;
  const writeToken = (await createToken(writer.store, 'write', 'web page test')).token;
  const adminToken = (await createToken(writer.store, 'admin', 'web page test')).token;
  const stop = new AbortController();
  const worker = options.worker === true ? work(writer, { signal: stop.signal, pollMs: 100 }) : null;
  return {
    served,
    token,
    writeToken,
    adminToken,
    root,
    close: async () => {
      stop.abort();
      await worker;
      await served.close();
      await reader.close();
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
}

/** One Server-Sent Event the page received from `POST /v1/ask`, in arrival order. */
export interface SeenEvent {
  event: string;
  data: string;
}

/**
 * Before the page's scripts run: copy every `POST /v1/ask` stream the page reads into
 * `window.__askEvents` (names and data, in arrival order), so a test sees what streamed.
 */
export async function recordAskStream(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __askEvents: { event: string; data: string }[] };
    w.__askEvents = [];
    const original = window.fetch.bind(window);
    window.fetch = async (input, init) => {
      const res = await original(input, init);
      if (!String(input).endsWith('/v1/ask') || res.body === null) return res;
      const [mine, theirs] = res.body.tee();
      void (async () => {
        const reader = mine.pipeThrough(new TextDecoderStream()).getReader();
        let rest = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          rest += value;
          let end: number;
          while ((end = rest.indexOf('\n\n')) >= 0) {
            const block = rest.slice(0, end);
            rest = rest.slice(end + 2);
            const event = /^event: ?(.*)$/m.exec(block)?.[1] ?? 'message';
            const data = [...block.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join('\n');
            w.__askEvents.push({ event, data });
          }
        }
      })();
      return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
    };
  });
}

/** Enter `token` in the page's token form. */
export async function enterToken(page: Page, token: string): Promise<void> {
  await page.getByLabel('Token', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Use token' }).click();
}

/** Ask `question` and wait until the page says it answered (or that it failed). */
export async function ask(page: Page, question: string): Promise<void> {
  await page.getByLabel('Question').fill(question);
  await page.getByLabel('Question').press('Enter');
  await page
    .getByRole('status')
    .filter({ hasText: /Answered|failed/ })
    .waitFor();
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is now (none is the goal). */
export async function axeViolations(page: Page): Promise<string[]> {
  // evaluate runs outside the page's CSP (an injected <script> would be refused by it).
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    return (await axe.run()).violations;
  });
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** A demo server, Chromium, and one desktop-sized page whose console errors are collected. */
export interface PageRig {
  server: DemoServer;
  browser: Browser;
  page: Page;
  /** Console errors and uncaught page errors, in order (a test empties what it meant to cause). */
  problems: string[];
  close(): Promise<void>;
}

export interface PageRigOptions extends DemoServerOptions {
  /** A console error to leave out of `problems` (a refusal a test means to cause). */
  expected?: (m: ConsoleMessage) => boolean;
}

/** `startDemoServer`, Chromium and a 1280×800 page with its console errors collected. */
export async function startPageRig(options: PageRigOptions = {}): Promise<PageRig> {
  requireBuiltPage();
  const server = await startDemoServer(options);
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && options.expected?.(m) !== true) problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page: ${e.message}`));
  return {
    server,
    browser,
    page,
    problems,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

/** Takes the problems matching `meant` out of `problems` and says how many there were. */
export function dropProblems(problems: string[], meant: RegExp): number {
  const kept = problems.filter((p) => !meant.test(p));
  const dropped = problems.length - kept.length;
  problems.splice(0, problems.length, ...kept);
  return dropped;
}

/**
 * The JSON reply of `path` on `server` with `token` (a POST of `body` when given); fails the test
 * unless the status is 2xx.
 */
export async function apiJson<T>(
  server: DemoServer,
  token: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${server.served.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}
