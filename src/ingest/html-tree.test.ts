import fc from 'fast-check';
import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { NEVER_CONTENT, parseTree, linkDensity, summarise, textOf, type HtmlNode } from './html-tree.js';

const tree = parseTree;
const find = (root: HtmlNode, tag: string): HtmlNode => {
  const stack = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.tag === tag) return n;
    stack.push(...n.children);
  }
  throw new Error(`no ${tag}`);
};

describe('parseTree', () => {
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

  it('puts text foster-parented out of a table before the table, as browsers do', () => {
    const t = tree('<table>before<tr><td>cell</td></tr></table>');
    expect(t.root.children.map((c) => (c.tag === '#text' ? c.text : c.tag))).toEqual(['before', 'TABLE']);
  });

  it('builds any depth without recursion, and summarise leaves removed subtrees out', () => {
    const t = tree(`${'<div>'.repeat(5000)}deep${'</div>'.repeat(5000)}<p>kept text</p>`);
    expect(t.root.chars).toBe('deepkepttext'.length);
    const first = t.root.children[0]!;
    summarise(t, new Set([first]));
    expect(t.root.chars).toBe('kepttext'.length);
  });
});

/** A tree as one string: each element's tag, hints and flags, each text's text, in document order. */
function signature(node: HtmlNode): string {
  if (node.tag === '#text') return JSON.stringify(node.text);
  const flags = `${node.hint}|${node.role}|${node.itemprop}|${+node.hidden}${+node.modal}${+node.localLink}|${node.ownControls},${node.ownEmbeds}`;
  return `<${node.tag} ${flags}>${node.children.map(signature).join('')}</${node.tag}>`;
}

/** The same signature read off jsdom's DOM (the browser's tree) with the rules of `parseTree`: the reference. */
function domSignature(el: Element, root = false): string {
  const controls = new Set(['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON']);
  const embeds = new Set(['IFRAME', 'OBJECT', 'EMBED', 'VIDEO', 'AUDIO']);
  let inner = '';
  let ownControls = 0;
  let ownEmbeds = 0;
  for (const c of Array.from(el.childNodes)) {
    if (c.nodeType === 3) inner += JSON.stringify(c.nodeValue);
    if (c.nodeType !== 1) continue;
    const tag = (c as Element).tagName.toUpperCase();
    if (NEVER_CONTENT.has(tag)) {
      if (controls.has(tag)) ownControls++;
      if (embeds.has(tag)) ownEmbeds++;
    } else inner += domSignature(c as Element);
  }
  const tag = el.tagName.toUpperCase();
  // The root (the body) is read for its children only, as parseTree does.
  const get = (name: string): string => (root ? '' : (el.getAttribute(name) ?? ''));
  const hint = `${get('id')} ${get('class')}`.trim().toLowerCase();
  const style = get('style');
  const hidden =
    (!root && el.hasAttribute('hidden')) ||
    get('aria-hidden') === 'true' ||
    /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
  const href = get('href').trim();
  const local = tag === 'A' && (href.startsWith('#') || href.toLowerCase().startsWith('javascript:'));
  const flags = `${hint}|${get('role').toLowerCase()}|${get('itemprop').toLowerCase()}|${+hidden}${+(get('aria-modal') === 'true')}${+local}|${ownControls},${ownEmbeds}`;
  return `<${tag} ${flags}>${inner}</${tag}>`;
}

describe('parseTree against the DOM jsdom builds', () => {
  const window = new JSDOM('', { virtualConsole: new VirtualConsole() }).window;
  const reference = (html: string): { title: string; signature: string } => {
    const doc = new window.DOMParser().parseFromString(html, 'text/html');
    const top = doc.body ?? doc.documentElement;
    return {
      title: doc.querySelector('title')?.textContent ?? '',
      signature: top === null ? '' : domSignature(top, true),
    };
  };

  it('builds the same tree from tag soup: misnested formatting, tables, forms, foreign content (property)', () => {
    const piece = fc.constantFrom(
      '<div class="Post Body">',
      '</div>',
      '<p id=x>',
      '</p>',
      '<b>',
      '</b>',
      '<i>',
      '</i>',
      '<a href="#top">',
      '<a href="/page">',
      '</a>',
      '<table>',
      '<tr>',
      '<td>',
      '</table>',
      '<ul>',
      '<li>',
      '</ul>',
      '<nav role="navigation">',
      '</nav>',
      '<span hidden>',
      '<span style="display: none">',
      '</span>',
      '<input>',
      '<button>go</button>',
      '<select><option>o</select>',
      '<iframe src=x></iframe>',
      '<noscript><p>no js</p></noscript>',
      '<template><p>t</p></template>',
      '<script>if (a < b) x()</script>',
      '<!-- note -->',
      '<svg><title>icon</title><g>s</g></svg>',
      '<title>Page</title>',
      '<h2 aria-modal="true">',
      '</h2>',
      '<body class="late">',
      '<frameset>',
      'text, more ',
      ' ',
      '&amp; &lt;',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const html = pieces.join('');
        const t = parseTree(html);
        const want = reference(html);
        expect(t.title).toBe(want.title);
        if (!html.includes('<table>')) expect(signature(t.root)).toBe(want.signature);
        else {
          // Text foster-parented out of a table goes before the table (the spec, parse5, browsers);
          // jsdom's adapter appends it to the end of the parent instead. Same elements, same text.
          const texts = (sig: string): string =>
            [...(sig.match(/"(?:[^"\\]|\\.)*"/g) ?? []).map((t) => JSON.parse(t) as string).join('')]
              .sort()
              .join('');
          const elements = (sig: string): string => sig.replace(/"(?:[^"\\]|\\.)*"/g, '');
          expect(elements(signature(t.root))).toBe(elements(want.signature));
          expect(texts(signature(t.root))).toBe(texts(want.signature));
        }
      }),
      { numRuns: 1500 },
    );
  });
});

describe('textOf', () => {
  it('squashes whitespace, separates blocks and stops near max', () => {
    const t = tree('<div>a  <b>b</b><p>c</p>d</div>');
    expect(textOf(find(t.root, 'DIV'))).toBe('a b c d');
    expect(textOf(tree(`<p>${'word '.repeat(1000)}</p>`).root, 20).length).toBeLessThanOrEqual(20);
  });
});
