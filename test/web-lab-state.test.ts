// The Grounding lab's rules (web/src/lab/lab-state.ts): a real change of state clears the
// explanation answers and reapplying the same state keeps them; Reset, an experiment's start and a
// prediction restore Fully supported; Reset from free exploration starts Experiment 1.
import { describe, expect, it } from 'vitest';
import { EXPERIMENTS, FULLY_SUPPORTED, PRESETS } from '../web/src/lab/lab-lesson.js';
import {
  applySelection,
  changedMetrics,
  explain,
  exploreFreely,
  INITIAL_LAB,
  predict,
  resetLab,
  selectionKey,
  setControl,
  startExperiment,
  type LabState,
} from '../web/src/lab/lab-state.js';

const first = EXPERIMENTS[0]!.id;
const answered = (): LabState => {
  const s = startExperiment(INITIAL_LAB, first);
  return explain(applySelection(s, EXPERIMENTS[0]!.target), 'denominators');
};

describe('the Grounding lab state', () => {
  it('starts at Fully supported, exploring freely, with nothing answered', () => {
    expect(selectionKey(INITIAL_LAB.selection)).toBe('current/fully-supported/matched');
    expect(INITIAL_LAB.experiment).toBeNull();
    expect(INITIAL_LAB.explanations).toEqual({});
  });

  it('reapplying the same state keeps the explanation answers (a control, a preset, the same object)', () => {
    const s = answered();
    expect(s.explanations).toEqual({ [first]: 'denominators' });
    expect(setControl(s, 'citationRule', 'none')).toBe(s);
    expect(applySelection(s, { ...EXPERIMENTS[0]!.target })).toBe(s);
  });

  it('a real change clears them, and going back does not bring them back', () => {
    const s = setControl(answered(), 'citationRule', 'matched');
    expect(s.explanations).toEqual({});
    expect(setControl(s, 'citationRule', 'none').explanations).toEqual({});
    const preset = PRESETS.find((p) => p.id === 'fragment')!;
    expect(applySelection(answered(), preset.selection).explanations).toEqual({});
  });

  it('Reset restores Fully supported in the current experiment, or starts the first from free exploration', () => {
    const inSecond = setControl(startExperiment(INITIAL_LAB, EXPERIMENTS[1]!.id), 'answer', 'empty');
    const r = resetLab(inSecond);
    expect(r.selection).toEqual(FULLY_SUPPORTED);
    expect(r.experiment).toBe(EXPERIMENTS[1]!.id);
    const free = resetLab(exploreFreely(setControl(INITIAL_LAB, 'context', 'nothing')));
    expect(free.selection).toEqual(FULLY_SUPPORTED);
    expect(free.experiment).toBe(first);
    // Reset at Fully supported is the same state: answers stay.
    const atStart = explain(startExperiment(INITIAL_LAB, first), 'x');
    expect(resetLab(atStart).explanations).toEqual({ [first]: 'x' });
  });

  it('a prediction restores Fully supported and survives later changes; none without an experiment', () => {
    let s = predict(
      setControl(startExperiment(INITIAL_LAB, first), 'answer', 'garden'),
      'faithfulness',
      true,
    );
    expect(s.selection).toEqual(FULLY_SUPPORTED);
    s = predict(predict(s, 'completeness', true), 'faithfulness', true);
    expect(s.predictions[first]).toEqual(['faithfulness', 'completeness']);
    s = setControl(s, 'context', 'outdated');
    expect(s.predictions[first]).toEqual(['faithfulness', 'completeness']);
    expect(predict(s, 'faithfulness', false).predictions[first]).toEqual(['completeness']);
    expect(predict(INITIAL_LAB, 'faithfulness', true)).toBe(INITIAL_LAB);
    expect(explain(INITIAL_LAB, 'x')).toBe(INITIAL_LAB);
  });

  it('what changed compares values: Undefined differs from a number, 3/3 and 1/1 are both 1', () => {
    const one = { value: 1 };
    const before = {
      context_relevance: one,
      faithfulness: one,
      citation_support: one,
      citation_precision: one,
      completeness: one,
    };
    expect(changedMetrics(before, before)).toEqual([]);
    expect(
      changedMetrics(before, {
        ...before,
        citation_support: { value: 0 },
        citation_precision: { value: null },
      }),
    ).toEqual(['citation_support', 'citation_precision']);
  });

  it('every experiment and preset names a state of the model', () => {
    const ids = {
      context: ['current', 'schedule-only', 'with-garden', 'outdated', 'nothing'],
      answer: ['fully-supported', 'fragment', 'garden', 'outdated', 'free-admission', 'empty'],
      citationRule: ['matched', 'misplaced', 'mixed', 'none'],
    };
    for (const s of [...EXPERIMENTS.map((e) => e.target), ...PRESETS.map((p) => p.selection)]) {
      expect(ids.context).toContain(s.context);
      expect(ids.answer).toContain(s.answer);
      expect(ids.citationRule).toContain(s.citationRule);
    }
    for (const e of EXPERIMENTS) expect(e.choices.filter((c) => c.correct)).toHaveLength(1);
  });
});
