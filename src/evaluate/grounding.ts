/**
 * The five grounding measurements of one answer (seed 000, `design/grounding.md`) plus two
 * ALCE-style citation columns. Pure apart from the judge calls, which are memoised per
 * (section, claim) so each pair is asked at most once.
 *
 * | measurement        | formula                                                        | Undefined when      |
 * |--------------------|----------------------------------------------------------------|---------------------|
 * | contextRelevance   | relevant retrieved / retrieved                                 | nothing retrieved   |
 * | faithfulness       | claims supported by any retrieved section / claims             | no claims           |
 * | citationSupport    | claims with ≥1 cited section retrieved and supporting alone / claims | no claims     |
 * | citationPrecision  | valid citations / citations present                            | no citations        |
 * | completeness       | distinct required facts present in the answer / |F|           | F is empty          |
 * | alceCitationRecall | claims whose cited+retrieved sections jointly support it / claims | no claims        |
 * | alceCitationPrecision | precise citations / citations present                       | no citations        |
 */
import { factKey, factPresent } from './judges/judge.js';
import type { JudgeCallOptions, JudgeClaim, JudgeSource, RequiredFact } from './judges/judge.js';
import { ratio } from './measurement.js';
import type { Measurement } from './measurement.js';

/** A retrieved section (the numbered context `[1]..[n]`, in order). */
export interface GroundingSection {
  id: string;
  /** Question-relevant? Unlabelled sections count as not relevant (the TREC convention). */
  relevant?: boolean;
  /** Text shown to the judge (defaults to ''). */
  text?: string;
  factIds?: readonly string[];
}

/**
 * One claim and its citations. A string citation is a section id; a number `n` is the bracketed
 * marker `[n]`, i.e. the n-th retrieved section (1-based). Out-of-range numbers and ids of sections
 * that were not retrieved are citations present but never valid. Duplicates within a claim count once.
 */
export interface GroundingClaim {
  text: string;
  citations: readonly (string | number)[];
  factIds?: readonly string[];
}

/** Anything with a `supports` method, sync or async (every `Judge` qualifies). */
export interface SupportJudge {
  supports(source: JudgeSource, claim: JudgeClaim, options?: JudgeCallOptions): boolean | Promise<boolean>;
  supportsJointly?(
    sources: readonly JudgeSource[],
    claim: JudgeClaim,
    options?: JudgeCallOptions,
  ): boolean | Promise<boolean>;
}

/** Everything the measurements need for one answer to one question. */
export interface GroundingInput {
  retrieved: readonly GroundingSection[];
  claims: readonly GroundingClaim[];
  /** Required facts F of the reference; empty when the question has no reference. */
  requiredFacts: readonly RequiredFact[];
  answerText: string;
  judge: SupportJudge;
  signal?: AbortSignal;
}

/** How one citation of one claim was judged. */
export interface CitationVerdict {
  /** The citation as written (section id or marker number). */
  ref: string | number;
  /** The retrieved section it resolves to, or null (out of range, or not retrieved). */
  sectionId: string | null;
  /** Retrieved and supports the claim on its own. */
  valid: boolean;
  /** ALCE: the claim is jointly supported and this citation is needed or sufficient. */
  precise: boolean;
}

/** Per-claim detail, for reports and debugging. */
export interface ClaimVerdict {
  text: string;
  /** Supported by at least one retrieved section. */
  supported: boolean;
  /** At least one valid citation. */
  validlyCited: boolean;
  /** Cited and retrieved sections jointly support it (ALCE recall). */
  jointlySupported: boolean;
  citations: CitationVerdict[];
}

export interface GroundingResult {
  contextRelevance: Measurement;
  faithfulness: Measurement;
  citationSupport: Measurement;
  citationPrecision: Measurement;
  completeness: Measurement;
  alceCitationRecall: Measurement;
  alceCitationPrecision: Measurement;
  claims: ClaimVerdict[];
}

/** Names of the measurement columns of `GroundingResult`, in report order. */
export const GROUNDING_METRICS = [
  'contextRelevance',
  'faithfulness',
  'citationSupport',
  'citationPrecision',
  'completeness',
  'alceCitationRecall',
  'alceCitationPrecision',
] as const;

export type GroundingMetric = (typeof GROUNDING_METRICS)[number];

interface ResolvedCitation {
  ref: string | number;
  key: string;
  /** Index into the de-duplicated retrieved list, or -1. */
  index: number;
}

/**
 * Compute every grounding measurement for one answer. See the module comment for the formulas.
 *
 * Edge cases: nothing retrieved → context relevance Undefined and faithfulness 0 (when there are
 * claims); a nonempty answer without citations → citation support 0, citation precision Undefined;
 * an empty answer → completeness 0, everything claim-based Undefined; no required facts →
 * completeness Undefined. Retrieved sections with a repeated id count once.
 */
export async function measureGrounding(input: GroundingInput): Promise<GroundingResult> {
  const { judge, signal } = input;
  const callOptions: JudgeCallOptions = signal === undefined ? {} : { signal };

  const sections: GroundingSection[] = [];
  const indexById = new Map<string, number>();
  for (const s of input.retrieved) {
    if (indexById.has(s.id)) continue;
    indexById.set(s.id, sections.length);
    sections.push(s);
  }
  const sources: JudgeSource[] = sections.map((s) => toSource(s));

  const relevant = sections.filter((s) => s.relevant === true).length;
  const contextRelevance = ratio(relevant, sections.length, 'nothing retrieved');

  const memo = new Map<string, Promise<boolean>>();
  const supports = (sectionIndex: number, claimIndex: number, claim: JudgeClaim): Promise<boolean> => {
    const key = `${sectionIndex}:${claimIndex}`;
    let p = memo.get(key);
    if (p === undefined) {
      p = Promise.resolve(judge.supports(sources[sectionIndex]!, claim, callOptions));
      memo.set(key, p);
    }
    return p;
  };
  const jointly = async (
    indexes: readonly number[],
    claimIndex: number,
    claim: JudgeClaim,
  ): Promise<boolean> => {
    if (indexes.length === 0) return false;
    if (indexes.length === 1) return supports(indexes[0]!, claimIndex, claim);
    if (judge.supportsJointly !== undefined) {
      return Promise.resolve(
        judge.supportsJointly(
          indexes.map((i) => sources[i]!),
          claim,
          callOptions,
        ),
      );
    }
    for (const i of indexes) if (await supports(i, claimIndex, claim)) return true;
    return false;
  };

  const verdicts = await Promise.all(
    input.claims.map(async (c, claimIndex): Promise<ClaimVerdict> => {
      const claim: JudgeClaim =
        c.factIds === undefined ? { text: c.text } : { text: c.text, factIds: c.factIds };
      const cited = resolveCitations(c.citations, sections.length, indexById);
      const citedRetrieved = cited.filter((r) => r.index >= 0).map((r) => r.index);

      // Faithfulness: any retrieved section; ask the cited ones first so the search can stop early.
      let supported = false;
      const order = [...citedRetrieved, ...sections.keys()].filter((i, pos, all) => all.indexOf(i) === pos);
      for (const i of order) {
        if (await supports(i, claimIndex, claim)) {
          supported = true;
          break;
        }
      }

      const alone = await Promise.all(
        cited.map((r) => (r.index >= 0 ? supports(r.index, claimIndex, claim) : false)),
      );
      const joint = await jointly(citedRetrieved, claimIndex, claim);
      const citations: CitationVerdict[] = [];
      for (const [pos, r] of cited.entries()) {
        const valid = alone[pos] === true;
        let precise = false;
        if (joint && r.index >= 0) {
          precise =
            valid ||
            !(await jointly(
              citedRetrieved.filter((i) => i !== r.index),
              claimIndex,
              claim,
            ));
        }
        citations.push({
          ref: r.ref,
          sectionId: r.index >= 0 ? sections[r.index]!.id : null,
          valid,
          precise,
        });
      }
      return {
        text: c.text,
        supported,
        validlyCited: citations.some((x) => x.valid),
        jointlySupported: joint,
        citations,
      };
    }),
  );

  const nClaims = verdicts.length;
  const nCitations = verdicts.reduce((n, v) => n + v.citations.length, 0);
  const count = (pred: (v: ClaimVerdict) => boolean): number => verdicts.filter(pred).length;
  const citationCount = (pred: (c: CitationVerdict) => boolean): number =>
    verdicts.reduce((n, v) => n + v.citations.filter(pred).length, 0);

  return {
    contextRelevance,
    faithfulness: ratio(
      count((v) => v.supported),
      nClaims,
      'no claims (empty answer)',
    ),
    citationSupport: ratio(
      count((v) => v.validlyCited),
      nClaims,
      'no claims (empty answer)',
    ),
    citationPrecision: ratio(
      citationCount((c) => c.valid),
      nCitations,
      nClaims === 0 ? 'no citations (empty answer)' : 'no citations',
    ),
    completeness: measureCompleteness(input.requiredFacts, input.answerText, input.claims),
    alceCitationRecall: ratio(
      count((v) => v.jointlySupported),
      nClaims,
      'no claims (empty answer)',
    ),
    alceCitationPrecision: ratio(
      citationCount((c) => c.precise),
      nCitations,
      nClaims === 0 ? 'no citations (empty answer)' : 'no citations',
    ),
    claims: verdicts,
  };
}

/**
 * Completeness = distinct required facts present in the answer / |distinct F|. Presence follows
 * `factPresent`: a phrasing in the answer text, or (for `{id}` facts) a claim carrying the fact id,
 * whether or not anything supports it. An empty answer scores 0; Undefined only when F is empty.
 */
export function measureCompleteness(
  requiredFacts: readonly RequiredFact[],
  answerText: string,
  claims: readonly { factIds?: readonly string[] }[] = [],
): Measurement {
  const distinct = new Map<string, RequiredFact>();
  for (const f of requiredFacts) if (!distinct.has(factKey(f))) distinct.set(factKey(f), f);
  const answer = { text: answerText, factIds: claims.flatMap((c) => c.factIds ?? []) };
  let present = 0;
  for (const f of distinct.values()) if (factPresent(f, answer)) present++;
  return ratio(present, distinct.size, 'no required facts (the question has no reference)');
}

function toSource(s: GroundingSection): JudgeSource {
  const src: JudgeSource = { id: s.id, text: s.text ?? '' };
  if (s.factIds !== undefined) src.factIds = s.factIds;
  return src;
}

/** Resolve and de-duplicate one claim's citations, keeping the order of first appearance. */
function resolveCitations(
  refs: readonly (string | number)[],
  nSections: number,
  indexById: ReadonlyMap<string, number>,
): ResolvedCitation[] {
  const seen = new Set<string>();
  const out: ResolvedCitation[] = [];
  for (const ref of refs) {
    let key: string;
    let index: number;
    if (typeof ref === 'number') {
      const inRange = Number.isInteger(ref) && ref >= 1 && ref <= nSections;
      index = inRange ? ref - 1 : -1;
      key = inRange ? `#${index}` : `out-of-range:${ref}`;
    } else {
      index = indexById.get(ref) ?? -1;
      key = index >= 0 ? `#${index}` : `id:${ref}`;
    }
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ ref, key, index });
  }
  return out;
}
