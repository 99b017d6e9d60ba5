/**
 * Seed 000's teaching model, bundled into the page (no fetch, no network), and its measurements
 * computed by the project's own `measureGrounding` with the fact-id judge.
 */
import {
  labClaims,
  labInput,
  type GroundingLabModel,
  type LabClaim,
  type LabSelection,
} from '../../../src/evaluate/grounding-lab.js';
import { measureGrounding, type GroundingResult } from '../../../src/evaluate/grounding.js';
import { createFactIdJudge, factsCover } from '../../../src/evaluate/judges/fact-id.js';
import type { Measurement } from '../../../src/evaluate/measurement.js';
import fixture from '../../../src/evaluate/fixtures/grounding-states.json';
import type { MetricKey } from './lab-lesson.js';
import { METRICS } from './lab-lesson.js';

export const MODEL: GroundingLabModel = fixture;

const judge = createFactIdJudge();

/** One state measured: its claims (with citations) and the result. */
export interface LabMeasured {
  selection: LabSelection;
  claims: LabClaim[];
  result: GroundingResult;
}

/** The five measurements of `selection`. */
export async function measureLab(selection: LabSelection): Promise<LabMeasured> {
  const claims = labClaims(MODEL, selection);
  const result = await measureGrounding(labInput(MODEL, selection.context, claims, judge));
  return { selection, claims, result };
}

/** The result's five measurements, by the fixture's keys. */
export function byMetric(result: GroundingResult): Record<MetricKey, Measurement> {
  return Object.fromEntries(METRICS.map((m) => [m.key, result[m.result]])) as Record<MetricKey, Measurement>;
}

/** What the claims table shows for one claim. */
export interface ClaimRow {
  claim: LabClaim;
  /** Retrieved sources that entail it (fact-id membership). */
  supportedBy: string[];
  /** Whether the cited source was retrieved, entails it, and so is a valid citation; null without a citation. */
  cited: { retrieved: boolean; entails: boolean; valid: boolean } | null;
}

/** One row per claim: support in the retrieved context and how its citation fares. */
export function claimRows(measured: LabMeasured): ClaimRow[] {
  const retrieved = MODEL.contexts[measured.selection.context] ?? [];
  return measured.claims.map((claim, i) => {
    const entails = (id: string): boolean => factsCover(MODEL.sources[id]?.facts ?? [], [claim.fact]);
    const verdict = measured.result.claims[i]?.citations[0];
    return {
      claim,
      supportedBy: retrieved.filter(entails),
      cited:
        claim.cites === null
          ? null
          : {
              retrieved: retrieved.includes(claim.cites),
              entails: entails(claim.cites),
              valid: verdict?.valid ?? false,
            },
    };
  });
}
