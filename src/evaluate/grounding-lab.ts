/**
 * Seed 000's teaching model (`fixtures/grounding-states.json`) as inputs to `measureGrounding`:
 * four authored sources with fact ids, five retrieved-context bundles, six answer bundles and four
 * citation rules, 120 states. Shared by the fixture test and the web page's Grounding lab, so both
 * measure the same input. Pure; no I/O (the caller reads or bundles the JSON).
 *
 * Citation rules (the fixture's `citation_rule_meaning`): `matched` cites the source that lists the
 * claim's fact (free admission cites D2, which does not entail it); `misplaced` cites D3 for every
 * claim; `mixed` matches the first two claims and cites D3 after; `none` cites nothing.
 */
import type { GroundingInput, SupportJudge } from './grounding.js';
import type { RequiredFact } from './judges/judge.js';

/** One authored source: its exact text, the fact ids it states, and whether it is question-relevant. */
export interface LabSource {
  text: string;
  facts: string[];
  relevant: boolean;
}

/** One claim of an answer bundle under a citation rule: its fact id, its text and the source it cites. */
export interface LabClaim {
  fact: string;
  text: string;
  cites: string | null;
}

/** The parts of the fixture the lab reads (`states` supplies each fact's claim text). */
export interface GroundingLabModel {
  sources: Record<string, LabSource>;
  required: string[];
  contexts: Record<string, string[]>;
  answers: Record<string, string[]>;
  citation_rules: string[];
  states: readonly { claims: readonly LabClaim[] }[];
}

/** One state of the model: a context bundle, an answer bundle and a citation rule, by name. */
export interface LabSelection {
  context: string;
  answer: string;
  citationRule: string;
}

/** The misplaced citation of the `misplaced` and `mixed` rules: the garden note. */
export const MISPLACED_SOURCE = 'D3';

/** Claims the `mixed` rule cites correctly before it starts citing `MISPLACED_SOURCE`. */
export const MIXED_MATCHED_CLAIMS = 2;

/** Facts no source lists, and the source `matched` cites for them (free admission → the admission source). */
export const MATCHED_UNLISTED: Readonly<Record<string, string>> = { free: 'D2' };

/** Each fact id's claim text, as the fixture's states phrase it (first phrasing wins). */
export function claimTexts(model: GroundingLabModel): Map<string, string> {
  const texts = new Map<string, string>();
  for (const s of model.states) for (const c of s.claims) if (!texts.has(c.fact)) texts.set(c.fact, c.text);
  return texts;
}

/** The source the `matched` rule cites for `fact`: the first source listing it, else `MATCHED_UNLISTED`, else none. */
export function matchedSource(model: GroundingLabModel, fact: string): string | null {
  for (const [id, s] of Object.entries(model.sources)) if (s.facts.includes(fact)) return id;
  return MATCHED_UNLISTED[fact] ?? null;
}

/** The source the claim at `index` cites under `rule`, or null (rule `none`, or an unknown rule). */
export function citedSource(
  model: GroundingLabModel,
  fact: string,
  index: number,
  rule: string,
): string | null {
  switch (rule) {
    case 'matched':
      return matchedSource(model, fact);
    case 'misplaced':
      return MISPLACED_SOURCE;
    case 'mixed':
      return index < MIXED_MATCHED_CLAIMS ? matchedSource(model, fact) : MISPLACED_SOURCE;
    default:
      return null;
  }
}

/**
 * The claims of the selected answer bundle with the selected rule's citations. An unknown answer
 * has no claims; a fact without a claim text in the fixture uses its id as its text.
 */
export function labClaims(model: GroundingLabModel, selection: LabSelection): LabClaim[] {
  const texts = claimTexts(model);
  return (model.answers[selection.answer] ?? []).map((fact, i) => ({
    fact,
    text: texts.get(fact) ?? fact,
    cites: citedSource(model, fact, i, selection.citationRule),
  }));
}

/**
 * The `measureGrounding` input of one state: the context bundle's sources as retrieved sections
 * (with relevance, text and fact ids), each claim with its fact id and citation (a source id), the
 * required facts as `{id}` facts (present when a claim carries the id) unless `requiredFacts` is
 * given, and the answer text as the claims joined by spaces. An unknown context retrieves nothing.
 */
export function labInput(
  model: GroundingLabModel,
  context: string,
  claims: readonly LabClaim[],
  judge: SupportJudge,
  requiredFacts?: readonly RequiredFact[],
): GroundingInput {
  const retrieved = (model.contexts[context] ?? []).flatMap((id) => {
    const s = model.sources[id];
    return s === undefined ? [] : [{ id, relevant: s.relevant, text: s.text, factIds: s.facts }];
  });
  return {
    retrieved,
    claims: claims.map((c) => ({
      text: c.text,
      factIds: [c.fact],
      citations: c.cites === null ? [] : [c.cites],
    })),
    requiredFacts: requiredFacts ?? model.required.map((id) => ({ id, phrasings: [] })),
    answerText: claims.map((c) => c.text).join(' '),
    judge,
  };
}

/** Every state of the model, contexts × answers × citation rules, in the fixture's order. */
export function allSelections(model: GroundingLabModel): LabSelection[] {
  return Object.keys(model.contexts).flatMap((context) =>
    Object.keys(model.answers).flatMap((answer) =>
      model.citation_rules.map((citationRule) => ({ context, answer, citationRule })),
    ),
  );
}
