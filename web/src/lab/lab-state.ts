/**
 * The Grounding lab's state and its rules (seed 000). Pure.
 *
 * - A control, preset or experiment step that actually changes the state clears the explanation
 *   answers (they explained a state that is gone); reapplying the same state keeps them.
 * - Reset, starting an experiment and making a prediction restore Fully supported, the state every
 *   exercise starts from. Reset in free exploration (no experiment) starts the first experiment.
 * - Predictions belong to their experiment and survive control changes (they were made before).
 */
import type { LabSelection } from '../../../src/evaluate/grounding-lab.js';
import { EXPERIMENTS, FULLY_SUPPORTED, METRICS, type MetricKey } from './lab-lesson.js';

const METRIC_KEYS: readonly MetricKey[] = METRICS.map((m) => m.key);

export interface LabState {
  selection: LabSelection;
  /** The experiment being worked through, or null for free exploration. */
  experiment: string | null;
  /** Per experiment: the measurements the person predicts will change. */
  predictions: Readonly<Record<string, readonly MetricKey[]>>;
  /** Per experiment: the chosen explanation (an `ExplanationChoice` id). */
  explanations: Readonly<Record<string, string>>;
}

export const INITIAL_LAB: LabState = {
  selection: FULLY_SUPPORTED,
  experiment: null,
  predictions: {},
  explanations: {},
};

/** A state's name, `context/answer/rule` (the fixture's ids). */
export function selectionKey(s: LabSelection): string {
  return `${s.context}/${s.answer}/${s.citationRule}`;
}

export function sameSelection(a: LabSelection, b: LabSelection): boolean {
  return selectionKey(a) === selectionKey(b);
}

/** Move to `selection`: the same state keeps everything, another clears the explanation answers. */
export function applySelection(state: LabState, selection: LabSelection): LabState {
  if (sameSelection(state.selection, selection)) return state;
  return { ...state, selection: { ...selection }, explanations: {} };
}

/** One control set to `value` (the others kept). */
export function setControl(state: LabState, control: keyof LabSelection, value: string): LabState {
  return applySelection(state, { ...state.selection, [control]: value });
}

/** Fully supported again, in the current experiment, or the first one when exploring freely. */
export function resetLab(state: LabState): LabState {
  const first = EXPERIMENTS[0]?.id ?? null;
  return { ...applySelection(state, FULLY_SUPPORTED), experiment: state.experiment ?? first };
}

/** Work through experiment `id`, from Fully supported. */
export function startExperiment(state: LabState, id: string): LabState {
  return { ...applySelection(state, FULLY_SUPPORTED), experiment: id };
}

/** Leave the experiments; the state and the answers stay. */
export function exploreFreely(state: LabState): LabState {
  return { ...state, experiment: null };
}

/** Add or remove `metric` from the current experiment's prediction, back at Fully supported. */
export function predict(state: LabState, metric: MetricKey, on: boolean): LabState {
  const id = state.experiment;
  if (id === null) return state;
  const was = state.predictions[id] ?? [];
  const now = on ? [...new Set([...was, metric])] : was.filter((m) => m !== metric);
  return { ...applySelection(state, FULLY_SUPPORTED), predictions: { ...state.predictions, [id]: now } };
}

/** Record the current experiment's explanation answer (nothing without an experiment). */
export function explain(state: LabState, choice: string): LabState {
  const id = state.experiment;
  if (id === null) return state;
  return { ...state, explanations: { ...state.explanations, [id]: choice } };
}

/** A measurement as the cards compare it: its value, or null for Undefined. */
interface Valued {
  value: number | null;
}

/**
 * The measurements whose value differs between two results (Undefined ↔ a number counts; 3/3 → 1/1
 * does not, both being 1), in card order.
 */
export function changedMetrics(
  before: Readonly<Record<MetricKey, Valued>>,
  after: Readonly<Record<MetricKey, Valued>>,
): MetricKey[] {
  return METRIC_KEYS.filter((k) => before[k].value !== after[k].value);
}
