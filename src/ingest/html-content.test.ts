import { describe, expect, it } from 'vitest';
import { findContent, paragraphPoints, voteShare } from './html-content.js';
import { parseTree, textOf } from './html-tree.js';

const content = (html: string) => {
  const tree = parseTree(html);
  return { tree, content: findContent(tree) };
};
const para = (n: number): string =>
  `<p>Paragraph ${n} has words enough to vote, with a comma, and another one.</p>`;

describe('paragraphPoints and voteShare', () => {
  it('gives 1 + commas + min(3, ⌊chars/100⌋)', () => {
    expect(paragraphPoints(25, 0)).toBe(1);
    expect(paragraphPoints(250, 2)).toBe(5);
    expect(paragraphPoints(10_000, 0)).toBe(4);
  });

  it('gives the parent all, the grandparent half, then 1/(3k)', () => {
    expect([0, 1, 2, 3, 4].map(voteShare)).toEqual([1, 0.5, 1 / 6, 1 / 9, 1 / 12]);
  });
});

describe('findContent', () => {
  it('picks the block the paragraphs vote for, not the sidebar of links', () => {
    const links = Array.from({ length: 20 }, (_, i) => `<a href="/${i}">Link number ${i} here</a>`).join(' ');
    const { content: c } = content(
      `<body><div class="main">${para(1)}${para(2)}${para(3)}</div><div class="rail"><p>${links}</p></div></body>`,
    );
    expect(c.scored).toBe(true);
    expect(c.roots.map((r) => r.hint)).toEqual(['main']);
  });

  it('joins paragraph siblings of the best block and leaves a list of teasers out', () => {
    const teasers = [1, 2, 3]
      .map((i) => `<h3><a href="/${i}">Teaser headline ${i}</a></h3><p>Blurb.</p>`)
      .join('');
    const { content: c } = content(
      `<body><div><div class="a">${para(1)}${para(2)}${para(3)}</div><p>${'A loose paragraph after the body, long enough to belong with it. '.repeat(2)}</p><div class="b">${teasers}</div></div></body>`,
    );
    const kept = c.roots.map((r) => textOf(r)).join(' ');
    expect(kept).toContain('A loose paragraph');
    expect(kept).not.toContain('Teaser');
  });

  it('reads the body without chrome when no paragraph is long enough to vote', () => {
    const { content: c, tree } = content('<body><nav>Menu</nav><p>Short.</p></body>');
    expect(c.scored).toBe(false);
    expect(c.roots).toEqual([tree.root]);
    expect(c.removals.map((r) => r.reason)).toEqual(['navigation']);
  });

  it('retries without stripping chrome when the rules lost the article', () => {
    // The whole story sits in an element whose class says "popup": stripping it leaves a stub.
    const { content: c } = content(
      `<body><div class="popup-story">${para(1)}${para(2)}${para(3)}${para(4)}${para(5)}${para(6)}</div><div>${para(7)}</div></body>`,
    );
    expect(c.chars).toBeGreaterThan(300);
  });
});
