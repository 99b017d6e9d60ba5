/**
 * The Grounding lab's lesson (seed 000): names for the fixture's bundles, the five measurements as
 * the seed words them, the presets (complete states) and the experiments (one change from Fully
 * supported, a prediction, then a question about why). Data only.
 */
import type { LabSelection } from '../../../src/evaluate/grounding-lab.js';
import type { GroundingMetric } from '../../../src/evaluate/grounding.js';

/** The fixture's question and its current reference, both fictional. */
export const QUESTION = 'When does the Harbor Museum open, and what is admission?';
export const REFERENCE = 'Tuesday · 10:00 · 4 fictional credits';

/** One option of a control: the fixture's id and what a person reads. */
export interface Choice {
  id: string;
  label: string;
}

export const CONTEXT_CHOICES: readonly Choice[] = [
  { id: 'current', label: 'Current sources (D1, D2)' },
  { id: 'schedule-only', label: 'Schedule only (D1)' },
  { id: 'with-garden', label: 'With the garden note (D1, D2, D3)' },
  { id: 'outdated', label: 'Outdated schedule (D4)' },
  { id: 'nothing', label: 'Nothing retrieved' },
];

export const ANSWER_CHOICES: readonly Choice[] = [
  { id: 'fully-supported', label: 'Fully supported' },
  { id: 'fragment', label: 'Faithful fragment' },
  { id: 'garden', label: 'Garden answer' },
  { id: 'outdated', label: 'Outdated answer' },
  { id: 'free-admission', label: 'Free admission' },
  { id: 'empty', label: 'Empty answer' },
];

export const RULE_CHOICES: readonly Choice[] = [
  { id: 'matched', label: 'Matched' },
  { id: 'misplaced', label: 'Misplaced (all cite D3)' },
  { id: 'mixed', label: 'Mixed (D3 after two)' },
  { id: 'none', label: 'No citations' },
];

/** The five measurements: the fixture's key, the result's key, and the seed's wording. */
export interface MetricCard {
  key: 'context_relevance' | 'faithfulness' | 'citation_support' | 'citation_precision' | 'completeness';
  result: GroundingMetric;
  name: string;
  formula: string;
  note: string;
}

export const METRICS: readonly MetricCard[] = [
  {
    key: 'context_relevance',
    result: 'contextRelevance',
    name: 'Context relevance',
    formula: 'relevant retrieved ÷ retrieved',
    note: 'A plain fraction, not rank-aware. Relevance is not freshness: D4 is relevant but outdated.',
  },
  {
    key: 'faithfulness',
    result: 'faithfulness',
    name: 'Faithfulness',
    formula: 'claims supported by any retrieved source ÷ claims',
    note: 'Relative to these sources, not guaranteed current truth.',
  },
  {
    key: 'citation_support',
    result: 'citationSupport',
    name: 'Citation support',
    formula: 'claims whose cited source is retrieved and entails them ÷ claims',
    note: 'Support elsewhere does not validate the cited source.',
  },
  {
    key: 'citation_precision',
    result: 'citationPrecision',
    name: 'Citation precision',
    formula: 'valid citations ÷ citations present',
    note: 'No citations makes precision Undefined; citation support is then 0.',
  },
  {
    key: 'completeness',
    result: 'completeness',
    name: 'Completeness',
    formula: 'required current facts in the answer ÷ required facts',
    note: 'An empty answer scores 0; extra unsupported claims are not penalised.',
  },
];

export type MetricKey = MetricCard['key'];

/** The state every exercise starts from, and Reset restores. */
export const FULLY_SUPPORTED: LabSelection = {
  context: 'current',
  answer: 'fully-supported',
  citationRule: 'matched',
};

/** A complete state a button restores. */
export interface Preset {
  id: string;
  label: string;
  selection: LabSelection;
}

export const PRESETS: readonly Preset[] = [
  { id: 'fully-supported', label: 'Fully supported', selection: FULLY_SUPPORTED },
  {
    id: 'fragment',
    label: 'Faithful fragment',
    selection: { context: 'current', answer: 'fragment', citationRule: 'matched' },
  },
  {
    id: 'off-topic',
    label: 'Faithful but off-topic',
    selection: { context: 'with-garden', answer: 'garden', citationRule: 'matched' },
  },
  {
    id: 'outdated',
    label: 'Well cited, outdated',
    selection: { context: 'outdated', answer: 'outdated', citationRule: 'matched' },
  },
  {
    id: 'unretrieved',
    label: 'Correct without retrieval',
    selection: { context: 'nothing', answer: 'fully-supported', citationRule: 'matched' },
  },
  {
    id: 'empty',
    label: 'Empty answer',
    selection: { context: 'current', answer: 'empty', citationRule: 'matched' },
  },
];

/** One option of an experiment's question. */
export interface ExplanationChoice {
  id: string;
  text: string;
  correct: boolean;
}

/** One change from Fully supported, to predict, make, and explain. */
export interface Experiment {
  id: string;
  title: string;
  /** What to change, in words. */
  task: string;
  /** The state after the change. */
  target: LabSelection;
  question: string;
  choices: readonly ExplanationChoice[];
}

export const EXPERIMENTS: readonly Experiment[] = [
  {
    id: 'drop-citations',
    title: 'Drop the citations',
    task: 'Set Citations to “No citations”.',
    target: { context: 'current', answer: 'fully-supported', citationRule: 'none' },
    question: 'Why is citation support 0 while citation precision is Undefined?',
    choices: [
      {
        id: 'denominators',
        text: 'Support divides by the claims (there are three, none validly cited); precision divides by the citations present (there are none).',
        correct: true,
      },
      { id: 'unsupported', text: 'The sources no longer support the claims.', correct: false },
      { id: 'zero', text: 'Undefined is how the lab writes 0.', correct: false },
    ],
  },
  {
    id: 'schedule-only',
    title: 'Retrieve only the schedule',
    task: 'Set Retrieved context to “Schedule only (D1)”.',
    target: { context: 'schedule-only', answer: 'fully-supported', citationRule: 'matched' },
    question: 'The fee claim still cites D2, and D2 entails it. Why is that citation invalid?',
    choices: [
      {
        id: 'not-retrieved',
        text: 'A valid citation must point at a retrieved source; D2 was not retrieved.',
        correct: true,
      },
      { id: 'wrong-fact', text: 'D2 states a different fee.', correct: false },
      { id: 'relevance', text: 'Context relevance fell, so every citation is invalid.', correct: false },
    ],
  },
  {
    id: 'fragment',
    title: 'Answer with a fragment',
    task: 'Set Answer to “Faithful fragment”.',
    target: { context: 'current', answer: 'fragment', citationRule: 'matched' },
    question: 'Faithfulness stays at 1. Why does completeness fall to 1/3?',
    choices: [
      {
        id: 'coverage',
        text: 'Completeness counts the required facts present; a faithful fragment states only one of three.',
        correct: true,
      },
      { id: 'unfaithful', text: 'The fragment is not supported by the sources.', correct: false },
      { id: 'citations', text: 'The fragment cites the wrong source.', correct: false },
    ],
  },
  {
    id: 'misplace',
    title: 'Misplace the citations',
    task: 'Set Citations to “Misplaced (all cite D3)”.',
    target: { context: 'current', answer: 'fully-supported', citationRule: 'misplaced' },
    question: 'Faithfulness stays at 1. Why does citation support fall to 0?',
    choices: [
      {
        id: 'cited-source',
        text: 'Faithfulness accepts any retrieved source; citation support checks the cited one, and D3 is not retrieved and entails none of the claims.',
        correct: true,
      },
      { id: 'garden', text: 'D3 makes the answer off-topic.', correct: false },
      { id: 'precision', text: 'Citation support is the same number as context relevance.', correct: false },
    ],
  },
  {
    id: 'outdated',
    title: 'Answer from the outdated source',
    task: 'Use the preset “Well cited, outdated” (or set context and answer to Outdated).',
    target: { context: 'outdated', answer: 'outdated', citationRule: 'matched' },
    question: 'Faithfulness and citation support are 1. Why is completeness 0?',
    choices: [
      {
        id: 'reference',
        text: 'Monday and 09:00 are supported by D4 but are not the current reference’s facts (Tuesday, 10:00, 4 credits).',
        correct: true,
      },
      { id: 'irrelevant', text: 'D4 is not question-relevant.', correct: false },
      { id: 'uncited', text: 'The outdated answer has no citations.', correct: false },
    ],
  },
];
