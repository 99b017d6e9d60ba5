/**
 * Find a page's main content on the tree of `html-tree.ts`: drop page chrome, score the blocks that
 * hold paragraphs of text, take the best one with its like siblings, and drop the furniture inside
 * it. The idea is Readability's (paragraphs vote for their ancestors; link-heavy candidates lose),
 * written over precomputed statistics so that every step is one linear pass.
 */
import { chromeReason, furnitureReason, hintWeight, isTeaserList } from './boilerplate.js';
import {
  HEADING,
  eachElement,
  linkDensity,
  summarise,
  textOf,
  type HtmlNode,
  type HtmlTree,
} from './html-tree.js';

/** A block's own inline text must be at least this long (non-space characters) to vote. */
export const MIN_PARAGRAPH_CHARS = 25;
/** How many ancestors a paragraph votes for (its parent first). */
export const VOTE_LEVELS = 5;
/** Below this much text (non-space characters) the result is tried again with fewer rules. */
export const MIN_ARTICLE_CHARS = 400;
/** How many times more text a retry with fewer rules must find to replace the stricter result. */
export const RETRY_GAIN = 3;

/** One dropped piece: why, the element, and whether it went as page chrome (before scoring) or as furniture inside the article. */
export interface Removal {
  reason: string;
  node: HtmlNode;
  stage: 'chrome' | 'furniture';
}

/** What {@link findContent} chose. */
export interface Content {
  /** The elements to read, in document order (the best candidate and the siblings that join it). */
  roots: HtmlNode[];
  /** Elements under `roots` not to read. */
  dropped: ReadonlySet<HtmlNode>;
  /** Everything dropped with its reason, in the order decided: page chrome first, then furniture. */
  removals: Removal[];
  /** Non-space characters of text kept. */
  chars: number;
  /** False when no paragraph voted, and the content is the whole body without its chrome. */
  scored: boolean;
  /** Nodes visited by all passes together (a measure of work: linear in the page). */
  work: number;
}

/** Which rules an attempt applies: the second one keeps the page chrome (it may have held the article). */
interface Attempt {
  stripChrome: boolean;
}

const ATTEMPTS: readonly Attempt[] = [{ stripChrome: true }, { stripChrome: false }];

/** Score an element starts with when first voted for, by tag. */
const TAG_SCORE: Readonly<Record<string, number>> = {
  DIV: 5,
  ARTICLE: 5,
  MAIN: 3,
  PRE: 3,
  TD: 3,
  BLOCKQUOTE: 3,
  ADDRESS: -3,
  OL: -3,
  UL: -3,
  DL: -3,
  DD: -3,
  DT: -3,
  LI: -3,
  FORM: -3,
  TH: -5,
  H1: -5,
  H2: -5,
  H3: -5,
  H4: -5,
  H5: -5,
  H6: -5,
};

/** Blocks whose own text does not vote (list items and cells of lists, captions, headings). */
const NON_VOTING = new Set([
  'LI',
  'DT',
  'DD',
  'TH',
  'H1',
  'FIGCAPTION',
  'CAPTION',
  'ADDRESS',
  'BODY',
  'HTML',
]);

/**
 * The points a paragraph of `chars` characters with `commas` commas gives: 1 + commas +
 * min(3, ⌊chars / 100⌋). Its parent gets them all, the grandparent half, the ancestor `k` levels up
 * (k ≥ 2) a share 1 / (3k).
 *
 * @example paragraphPoints(250, 2) // 5
 */
export function paragraphPoints(chars: number, commas: number): number {
  return 1 + commas + Math.min(3, Math.floor(chars / 100));
}

/** The share of a paragraph's points its ancestor `level` levels up gets (0 = the first). */
export function voteShare(level: number): number {
  return level === 0 ? 1 : level === 1 ? 0.5 : 1 / (3 * level);
}

/**
 * Find the main content of `tree`: an attempt with all rules, then one that does not strip page
 * chrome before scoring (furniture inside the article is still dropped). The first attempt in which paragraphs voted
 * is taken, unless a later one keeps at least {@link RETRY_GAIN} times its text (the stricter rules
 * then lost the article); attempts stop once the taken one has {@link MIN_ARTICLE_CHARS} of text.
 * When no attempt finds a paragraph long
 * enough to vote ({@link MIN_PARAGRAPH_CHARS}), the content is the body without its chrome and
 * furniture (the first attempt's). Recomputes the tree's statistics for the rules it applies.
 */
export function findContent(tree: HtmlTree): Content {
  let first: Content | undefined;
  let best: Content | undefined;
  let last: Content | undefined;
  let work = 0;
  for (const attempt of ATTEMPTS) {
    const content = attemptContent(tree, attempt);
    work += content.work;
    first ??= content;
    last = content;
    // A later attempt (fewer rules) wins only when it finds much more: then the rules lost the article.
    if (content.scored && (best === undefined || content.chars >= RETRY_GAIN * best.chars)) best = content;
    if (best !== undefined && best.chars >= MIN_ARTICLE_CHARS) break;
  }
  const chosen = best ?? first!;
  // Leave the statistics as the chosen attempt saw them (the last attempt's are in the tree now).
  if (chosen !== last) summarise(tree, chosen.dropped);
  return { ...chosen, work: work + tree.order.length };
}

function attemptContent(tree: HtmlTree, attempt: Attempt): Content {
  let work = 0;
  const removals: Removal[] = [];
  const stripped = new Set<HtmlNode>();
  summarise(tree);
  work += tree.order.length;
  if (attempt.stripChrome) {
    const pageChars = tree.root.chars;
    const articles = articleHolders(tree);
    const inside = insideArticle(tree);
    eachElement(tree.root, (node) => {
      work++;
      if (node.chars * 2 >= pageChars && pageChars > 0) return true; // most of the page: never chrome
      if (node.tag === 'ARTICLE' || node.tag === 'MAIN' || node.itemprop === 'articlebody') return true;
      if (articles.has(node)) return true; // holds an article
      const reason = chromeReason(node, inside.has(node));
      if (reason === undefined) return true;
      removals.push({ reason, node, stage: 'chrome' });
      stripped.add(node);
      return false;
    });
    summarise(tree, stripped);
    work += tree.order.length;
  }

  // Votes: each paragraph's points go to its ancestors.
  const scores = new Map<HtmlNode, number>();
  const headline = headlineArticle(tree, stripped);
  const initial = (node: HtmlNode): number =>
    (TAG_SCORE[node.tag] ?? 0) + hintWeight(node) + (node === headline ? HEADLINE_BONUS : 0);
  eachElement(tree.root, (node) => {
    work++;
    if (stripped.has(node)) return false;
    if (!node.block || NON_VOTING.has(node.tag) || node.ownChars < MIN_PARAGRAPH_CHARS) return true;
    const points = paragraphPoints(node.ownChars, node.ownCommas);
    let target: HtmlNode | undefined = node.hasBlockChild || HEADING.test(node.tag) ? node : node.parent;
    for (let level = 0; level < VOTE_LEVELS && target !== undefined; level++, target = target.parent) {
      if (target.tag === 'HTML') break;
      const score = scores.get(target) ?? initial(target);
      scores.set(target, score + points * voteShare(level));
    }
    return true;
  });

  // The best candidate, its score scaled by how little of its text is links.
  let top: HtmlNode | undefined;
  let topScore = -Infinity;
  for (const [node, score] of scores) {
    work++;
    const final = score * (1 - linkDensity(node));
    scores.set(node, final);
    if (final > topScore) {
      top = node;
      topScore = final;
    }
  }
  if (top === undefined) return finish([tree.root], stripped, removals, work + tree.order.length, false);
  // Climb while a parent scores higher, and past a wrapper with no siblings.
  for (let parent = top.parent; parent !== undefined && parent.tag !== 'HTML'; parent = parent.parent) {
    work++;
    const score = scores.get(parent);
    if (score !== undefined && score > topScore) {
      top = parent;
      topScore = score;
    } else if (parent.children.filter((c) => c.tag !== '#text' && !stripped.has(c)).length === 1) {
      top = parent;
    } else break;
  }
  const articleChars = top.chars;
  const roots = withSiblings(top, topScore, scores, stripped).filter(
    (r) => r === top || furnitureReason(r, articleChars, () => textOf(r, 200)) === undefined,
  );
  return finish(
    roots,
    stripped,
    removals,
    work + (top.parent?.children.length ?? 0) + tree.order.length,
    true,
  );
}

/** Drop the furniture under `roots` and count what is kept. */
function finish(
  roots: HtmlNode[],
  stripped: ReadonlySet<HtmlNode>,
  removals: Removal[],
  work: number,
  scored: boolean,
): Content {
  const dropped = new Set(stripped);
  let chars = roots.reduce((n, r) => n + r.chars, 0);
  const articleChars = chars;
  for (const root of roots) {
    eachElement(root, (node) => {
      if (stripped.has(node)) return false;
      const reason = furnitureReason(node, articleChars, () => textOf(node, 200));
      if (reason === undefined) return true;
      dropped.add(node);
      chars -= node.chars;
      removals.push({ reason, node, stage: 'furniture' });
      return false;
    });
  }
  return { roots, dropped, removals, chars, work, scored };
}

/** What the `ARTICLE` holding the page's only `H1` starts with (the headline marks the story among several). */
export const HEADLINE_BONUS = 25;

/** The nearest `ARTICLE` around the page's only `H1` (not stripped), when there is one `H1`. */
function headlineArticle(tree: HtmlTree, stripped: ReadonlySet<HtmlNode>): HtmlNode | undefined {
  let h1: HtmlNode | undefined;
  for (const node of tree.order) {
    if (node.tag !== 'H1' || node.chars === 0) continue;
    if (h1 !== undefined) return undefined;
    h1 = node;
  }
  for (let p = h1?.parent; p !== undefined; p = p.parent) {
    if (stripped.has(p)) return undefined;
    if (p.tag === 'ARTICLE') return p;
  }
  return undefined;
}

/** Every element that holds an `ARTICLE`, `MAIN` or `itemprop=articleBody` below it (each ancestor chain walked once). */
function articleHolders(tree: HtmlTree): Set<HtmlNode> {
  const holders = new Set<HtmlNode>();
  for (const node of tree.order) {
    if (node.tag !== 'ARTICLE' && node.tag !== 'MAIN' && node.itemprop !== 'articlebody') continue;
    for (let p = node.parent; p !== undefined && !holders.has(p); p = p.parent) holders.add(p);
  }
  return holders;
}

/** Every node with an `ARTICLE` or `MAIN` ancestor (parents come before children in document order). */
function insideArticle(tree: HtmlTree): Set<HtmlNode> {
  const inside = new Set<HtmlNode>();
  for (const node of tree.order) {
    const p = node.parent;
    if (p !== undefined && (inside.has(p) || p.tag === 'ARTICLE' || p.tag === 'MAIN')) inside.add(node);
  }
  return inside;
}

/**
 * The top candidate and those of its siblings that belong with it: a sibling scoring at least
 * max(10, 0.2 × top) (with a bonus of 0.2 × top when it shares the top's class), or a paragraph
 * (a `p`, or a block with only inline content) with over 80 characters and under 25% links, or a shorter one with no links that ends a sentence;
 * never another `ARTICLE` beside an `ARTICLE`, nor a list of teasers (`isTeaserList`). (The caller
 * also drops a sibling that is furniture by `furnitureReason`.)
 */
function withSiblings(
  top: HtmlNode,
  topScore: number,
  scores: ReadonlyMap<HtmlNode, number>,
  stripped: ReadonlySet<HtmlNode>,
): HtmlNode[] {
  const parent = top.parent;
  if (parent === undefined) return [top];
  const threshold = Math.max(10, topScore * 0.2);
  const roots: HtmlNode[] = [];
  for (const sibling of parent.children) {
    if (sibling === top) {
      roots.push(top);
      continue;
    }
    if (sibling.tag === '#text' || stripped.has(sibling) || sibling.chars === 0) continue;
    // Another article beside an article is another story; a list of teasers is none.
    if ((top.tag === 'ARTICLE' && sibling.tag === 'ARTICLE') || isTeaserList(sibling)) continue;
    const bonus = top.hint !== '' && sibling.hint === top.hint ? topScore * 0.2 : 0;
    const score = scores.get(sibling);
    if (score !== undefined && score + bonus >= threshold) {
      roots.push(sibling);
      continue;
    }
    // A paragraph, or a block holding only inline text (a `div` used as one).
    if (sibling.tag === 'P' || (sibling.block && !sibling.hasBlockChild && !NON_VOTING.has(sibling.tag))) {
      const density = linkDensity(sibling);
      if (sibling.chars > 80 && density < 0.25) roots.push(sibling);
      else if (sibling.chars <= 80 && density === 0 && /\.( |$)/.test(textOf(sibling, 200)))
        roots.push(sibling);
    }
  }
  return roots;
}
