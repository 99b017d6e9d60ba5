// `quiver read --removed` (issue 16): what the HTML reader dropped from a real page, and why, read
// back from a real vault through the CLI.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers.js';

const tmp = tempDir('quiver-read-removed-');
const vault = join(tmp.dir, 'vault.db');
afterAll(() => tmp.cleanup());

/** An article with a byline, a share bar and related-story teasers, and a footer menu of `li` links. */
const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Dialling in espresso | Bean Journal</title></head>
<body>
<header class="site-header"><a href="/">Bean Journal</a></header>
<main>
<article>
<h1>Dialling in espresso</h1>
<p class="byline">By Maria Rossi | March 3, 2024</p>
<div class="share-bar"><a href="https://twitter.com/share">Share on Twitter</a> <a href="https://facebook.com/share">Share on Facebook</a></div>
<p>A shot of espresso should run for twenty-five to thirty seconds. Grind finer when the shot runs fast and coarser when it chokes the machine, changing one thing at a time.</p>
<p>Weigh the dose and the yield: eighteen grams in, thirty-six grams out is a good starting ratio for most medium roasts, and it keeps the taste comparable from day to day.</p>
<p>Taste tells the rest. Sour and thin means under-extracted, so grind finer; bitter and dry means over-extracted, so grind coarser or pull a shorter shot.</p>
<section class="related-stories">
<h3><a href="/milk">Steaming milk without big bubbles</a></h3><p>Texture first.</p>
<h3><a href="/water">Water for coffee</a></h3><p>Hardness matters.</p>
<h3><a href="/grinders">Choosing a grinder</a></h3><p>Burrs compared.</p>
</section>
</article>
</main>
<div class="site-end">
<ul><li><a href="/about">About us</a></li><li><a href="/contact">Contact</a></li><li><a href="/privacy">Privacy policy</a></li><li><a href="/terms">Terms of use</a></li></ul>
</div>
</body>
</html>
`;

interface Removed {
  doc_id: string;
  source: string;
  kind: string;
  removed: { reason: string | null; text: string }[];
}

let pageId = '';
let noteId = '';

describe('quiver read --removed', () => {
  beforeAll(async () => {
    writeFileSync(join(tmp.dir, 'espresso.html'), PAGE);
    writeFileSync(join(tmp.dir, 'notes.md'), '# Notes\n\nNothing to strip here: plain Markdown prose.\n');
    const r = await runCli([
      'add',
      join(tmp.dir, 'espresso.html'),
      join(tmp.dir, 'notes.md'),
      '--vault',
      vault,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const items = r.json<{ items: { source: string; docId: string }[] }>().items;
    pageId = items.find((i) => i.source.endsWith('espresso.html'))!.docId;
    noteId = items.find((i) => i.source.endsWith('notes.md'))!.docId;
  });

  it('lists each removed piece of an HTML page with its reason, and the article is not among them', async () => {
    const r = await runCli(['read', pageId, '--removed', '--vault', vault]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Removed from \S*espresso\.html \(\d+ pieces/);
    expect(r.stdout).toMatch(/^byline +By Maria Rossi \| March 3, 2024$/m);
    expect(r.stdout).toMatch(/^share +Share on Twitter Share on Facebook$/m);
    expect(r.stdout).toMatch(/^related +Steaming milk without big bubbles/m);
    expect(r.stdout).toMatch(/About us Contact Privacy policy Terms of use/);
    expect(r.stdout).not.toMatch(/twenty-five to thirty seconds/);
    // The article itself is what `read` prints without the flag.
    const plain = await runCli(['read', pageId, '--vault', vault]);
    expect(plain.stdout).toMatch(/twenty-five to thirty seconds/);
    expect(plain.stdout).not.toMatch(/Maria Rossi|Share on Twitter/);
  });

  it('carries the pieces in a removed array with --json, also for a section id of the page', async () => {
    const r = await runCli(['read', `${pageId}#0`, '--removed', '--json', '--vault', vault]);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json<Removed>();
    expect(out.doc_id).toBe(pageId);
    expect(out.kind).toBe('html');
    expect(out.removed).toContainEqual({ reason: 'byline', text: 'By Maria Rossi | March 3, 2024' });
    expect(out.removed).toContainEqual({ reason: 'share', text: 'Share on Twitter Share on Facebook' });
    const related = out.removed.find((p) => p.reason === 'related');
    expect(related?.text).toMatch(/^Steaming milk without big bubbles Texture first\. Water for coffee/);
    const menu = out.removed.find((p) => p.text.includes('Privacy policy'));
    expect(menu?.text).toBe('About us Contact Privacy policy Terms of use');
    expect(menu?.reason).not.toBeNull();
  });

  it('says so when nothing was removed', async () => {
    const r = await runCli(['read', noteId, '--removed', '--vault', vault]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Nothing was removed from \S*notes\.md \(md\)\.$/m);
    const json = await runCli(['read', noteId, '--removed', '--json', '--vault', vault]);
    expect(json.json<Removed>()).toMatchObject({ doc_id: noteId, kind: 'md', removed: [] });
  });

  it('is NOT_FOUND (exit 3) for an unknown document', async () => {
    const r = await runCli(['read', '0123456789abcdef', '--removed', '--vault', vault]);
    expect(r.code).toBe(3);
  });
});
