import { describe, expect, it } from 'vitest';
import type { ContextSection } from './context-section.js';
import { disagreementNote, disagreements } from './disagreements.js';
import { buildPrompt } from './prompt.js';

function section(n: number, title: string, text: string): ContextSection {
  return {
    n,
    sectionId: `d${n}#0`,
    docId: `d${n}`,
    title,
    breadcrumb: title,
    source: `${n}.md`,
    pages: null,
    text,
    score: 1,
  };
}

const BRIDGE =
  'The Hollow Oak Bridge crosses the river Wend at Marlow. The bridge was opened in 1887 by the county council.';
const COPY = BRIDGE.replace('1887', '1893');

describe('disagreements', () => {
  it('reports a changed value between two copies of one passage', () => {
    const c = disagreements('When was the bridge opened?', [section(1, 'A', BRIDGE), section(2, 'B', COPY)]);
    expect(c).toHaveLength(1);
    expect(c[0]!.sides.map((s) => s.span)).toEqual(['1887', '1893']);
  });

  it('does not report sibling pages that only share a sentence template', () => {
    const a =
      'The club was founded in 1901. It played its 44th season in the northern league that year, winning the cup.';
    const b =
      'Riverside hosts a ferry and a mill museum. It played its 45th season in the northern league that year, winning the cup.';
    expect(
      disagreements('Which season did it play in the northern league?', [
        section(1, 'Club A', a),
        section(2, 'Club B', b),
      ]),
    ).toEqual([]);
    // The same title makes them one subject: then the difference is reported.
    expect(
      disagreements('Which season did it play in the northern league?', [
        section(1, 'Club', a),
        section(2, 'Club', b),
      ]),
    ).toHaveLength(1);
  });

  it('leaves out a disagreement that is not about the question, and needs two sections', () => {
    expect(
      disagreements('Who painted the ceiling?', [section(1, 'A', BRIDGE), section(2, 'B', COPY)]),
    ).toEqual([]);
    expect(disagreements('When was the bridge opened?', [section(1, 'A', BRIDGE)])).toEqual([]);
  });
});

describe('the prompt', () => {
  it('tells a model where the sections disagree, and says nothing when they agree', () => {
    const p = buildPrompt('When was the bridge opened?', [section(1, 'A', BRIDGE), section(2, 'B', COPY)]);
    expect(p.conflicts).toHaveLength(1);
    expect(p.user).toContain('[1] says "1887" where [2] says "1893"');
    expect(p.user.endsWith('Question: When was the bridge opened?')).toBe(true);
    expect(buildPrompt('When was the bridge opened?', [section(1, 'A', BRIDGE)]).user).not.toContain(
      'disagree',
    );
    expect(disagreementNote([])).toBe('');
  });
});
