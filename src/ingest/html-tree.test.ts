import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { buildTree, linkDensity, summarise, textOf, type HtmlNode } from './html-tree.js';

const tree = (html: string) =>
  buildTree(new new JSDOM('').window.DOMParser().parseFromString(html, 'text/html'));
const find = (root: HtmlNode, tag: string): HtmlNode => {
  const stack = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.tag === tag) return n;
    stack.push(...n.children);
  }
  throw new Error(`no ${tag}`);
};

describe('buildTree', () => {
  it('keeps the body and the title, leaving out scripts, styles and form controls (counted)', () => {
    const t = tree('<title>T</title><body><div>a<script>x()</script><input><button>Go</button></div></body>');
    expect(t.title).toBe('T');
    const div = find(t.root, 'DIV');
    expect(div.children.map((c) => c.tag)).toEqual(['#text']);
    expect(div.controls).toBe(2);
  });

  it('sums text, links and own inline text bottom-up', () => {
    const t = tree('<div id="Main" class="Post">ab, cd <a href="/x">link</a><p>para text</p></div>');
    const div = find(t.root, 'DIV');
    expect(div.hint).toBe('main post');
    expect(div.chars).toBe('ab,cdlinkparatext'.length);
    expect(div.linkChars).toBe(4);
    expect(div.ownChars).toBe('ab,cdlink'.length); // the P is a block of its own
    expect(div.commas).toBe(1);
    expect(div.paragraphs).toBe(1);
    expect(div.hasBlockChild).toBe(true);
    expect(linkDensity(div)).toBeCloseTo(4 / 17);
  });

  it('weighs fragment and javascript: links at 0.3, and marks hidden elements', () => {
    const t = tree(
      '<div><a href="#top">abcdefghij</a></div><p hidden>h</p><p style="display:none">i</p><p aria-hidden="true">j</p>',
    );
    expect(find(t.root, 'DIV').linkChars).toBe(3);
    expect(t.root.children.filter((c) => c.tag === 'P').map((p) => p.hidden)).toEqual([true, true, true]);
    expect(linkDensity(find(t.root, 'P'))).toBe(0);
  });

  it('builds any depth without recursion, and summarise leaves removed subtrees out', () => {
    const t = tree(`${'<div>'.repeat(5000)}deep${'</div>'.repeat(5000)}<p>kept text</p>`);
    expect(t.root.chars).toBe('deepkepttext'.length);
    const first = t.root.children[0]!;
    summarise(t, new Set([first]));
    expect(t.root.chars).toBe('kepttext'.length);
  });
});

describe('textOf', () => {
  it('squashes whitespace, separates blocks and stops near max', () => {
    const t = tree('<div>a  <b>b</b><p>c</p>d</div>');
    expect(textOf(find(t.root, 'DIV'))).toBe('a b c d');
    expect(textOf(tree(`<p>${'word '.repeat(1000)}</p>`).root, 20).length).toBeLessThanOrEqual(20);
  });
});
