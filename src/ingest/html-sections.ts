/**
 * The text of a page's chosen content as sections: cut at h1–h6, paragraph breaks (blank lines)
 * between blocks, list items (`- item`) and table rows on their own lines, cells joined by ` | `,
 * `pre` kept verbatim. Walks the light tree of `html-tree.ts` once.
 */
import type { ParsedSection } from './parsed.js';
import { HEADING, textOf, type HtmlNode } from './html-tree.js';

/** Block-level elements: a blank line before and after. */
const PARAGRAPH_TAGS = new Set([
  'P',
  'DIV',
  'SECTION',
  'ARTICLE',
  'MAIN',
  'BLOCKQUOTE',
  'PRE',
  'TABLE',
  'UL',
  'OL',
  'DL',
  'FIGURE',
  'FIGCAPTION',
  'HEADER',
  'FOOTER',
  'ASIDE',
  'ADDRESS',
  'DETAILS',
  'SUMMARY',
  'HR',
  'FORM',
  'FIELDSET',
  'CENTER',
  'HGROUP',
]);
/** Line-level elements: a line break before and after. */
const LINE_TAGS = new Set(['LI', 'TR', 'DT', 'DD', 'CAPTION']);

/** Walks chosen subtrees, cutting sections at headings and writing text with paragraph breaks. */
export class SectionWalker {
  private readonly sections: ParsedSection[] = [];
  private current: ParsedSection = { level: 0, title: '', segments: [] };
  /** The section's text so far, in pieces (never empty strings). */
  private out: string[] = [];
  /** Pending break before the next text: 0 none, 1 line, 2 paragraph. */
  private pending = 0;
  private listDepth = 0;

  /** @param skip Elements not to read (dropped boilerplate). */
  constructor(private readonly skip: ReadonlySet<HtmlNode>) {}

  /** Write `root` itself (its tag's breaks) and everything under it. */
  walkRoot(root: HtmlNode): void {
    this.visit(root, false);
  }

  finish(): ParsedSection[] {
    this.closeSection();
    return this.sections;
  }

  private walk(node: HtmlNode): void {
    let previousElement = false;
    for (const child of node.children) {
      this.visit(child, previousElement);
      if (child.tag !== '#text' && !this.skip.has(child)) previousElement = true;
    }
  }

  private visit(node: HtmlNode, previousElement: boolean): void {
    if (node.tag === '#text') {
      this.emit(node.text.replace(/\s+/g, ' '));
      return;
    }
    if (this.skip.has(node)) return;
    const tag = node.tag;
    const heading = HEADING.exec(tag);
    if (heading !== null) {
      const title = textOf(node);
      if (title.length === 0) return;
      this.closeSection();
      this.current = { level: Number(heading[1]), title, segments: [] };
      return;
    }
    if (tag === 'BR') {
      this.brk(1);
      return;
    }
    if (tag === 'PRE') {
      this.brk(2);
      this.emit(rawText(node, this.skip), true);
      this.brk(2);
      return;
    }
    if (tag === 'IMG') return;
    if (PARAGRAPH_TAGS.has(tag)) {
      const list = tag === 'UL' || tag === 'OL';
      this.brk(list ? (this.listDepth > 0 ? 1 : 2) : 2);
      if (list) this.listDepth++;
      this.walk(node);
      if (list) this.listDepth--;
      this.brk(this.listDepth > 0 ? 1 : 2);
      return;
    }
    if (LINE_TAGS.has(tag)) {
      if (node.chars === 0) return; // an empty item writes no bare `- `
      this.brk(1);
      if (tag === 'LI') this.emit('  '.repeat(Math.max(0, this.listDepth - 1)) + '- ', true);
      this.walk(node);
      this.brk(1);
      return;
    }
    if (tag === 'TD' || tag === 'TH') {
      if (previousElement) this.emit(' | ', true);
      this.walk(node);
      return;
    }
    this.walk(node);
  }

  /** Request a line (1) or paragraph (2) break before the next text. */
  private brk(kind: number): void {
    if (this.out.length > 0) this.pending = Math.max(this.pending, kind);
  }

  private emit(text: string, verbatim = false): void {
    if (!verbatim && text.trim() === '') {
      // Whitespace between inline elements: one space unless a break is pending.
      if (this.pending === 0 && this.out.length > 0 && this.lastChar() !== ' ') this.out.push(' ');
      return;
    }
    if (this.pending > 0) {
      this.trimTail();
      this.out.push(this.pending === 2 ? '\n\n' : '\n');
      this.pending = 0;
      if (!verbatim) text = text.trimStart();
    } else if (this.out.length === 0 || this.lastChar() === '\n') {
      if (!verbatim) text = text.trimStart();
    } else if (this.lastChar() === ' ' && !verbatim) {
      text = text.trimStart();
    }
    if (text !== '') this.out.push(text);
  }

  /** The last character written ('' when nothing is). */
  private lastChar(): string {
    const last = this.out[this.out.length - 1];
    return last === undefined ? '' : last.charAt(last.length - 1);
  }

  /**
   * Drop trailing whitespace from what is written. Only the last pieces can hold it, so this stays
   * cheap however long the section grows (trimming the joined text each time was quadratic).
   */
  private trimTail(): void {
    for (;;) {
      const last = this.out[this.out.length - 1];
      if (last === undefined) return;
      const trimmed = last.trimEnd();
      if (trimmed.length > 0) {
        this.out[this.out.length - 1] = trimmed;
        return;
      }
      this.out.pop();
    }
  }

  private closeSection(): void {
    const text = this.out
      .join('')
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    this.current.segments = [{ page: null, text }];
    this.sections.push(this.current);
    this.out = [];
    this.pending = 0;
  }
}

/** The text under `node` exactly as written (for `pre`), skipping dropped elements. */
function rawText(node: HtmlNode, skip: ReadonlySet<HtmlNode>): string {
  const out: string[] = [];
  const stack: HtmlNode[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.tag === '#text') out.push(n.text);
    else if (n === node || !skip.has(n)) {
      if (n.tag === 'BR') out.push('\n');
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
    }
  }
  return out.join('');
}
