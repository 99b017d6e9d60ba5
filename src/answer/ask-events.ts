import type { Abstention, AskResult, CitedSection } from './ask.js';
import type { Claim } from './citations.js';
import type { Conflict } from './conflicts.js';
import type { ContextSection } from './context-section.js';
import type { TokenUsage } from './generator.js';

/**
 * What an `ask` reports as it goes, in this order: the evidence chosen (`context`: after
 * retrieval and selection, with the stage timings so far), each token the generator writes
 * (`token`; the extractive generator writes its answer as one), the claims and their citations
 * (`claims`, after abstention and conflicts are decided), the measurements (`measured`: timings,
 * token usage), and `done` with the whole result. The CLI, the server's Server-Sent Events and MCP
 * all consume this one stream.
 */
export type AskEvent =
  | { type: 'context'; sections: ContextSection[]; timings: Record<string, number> }
  | { type: 'token'; text: string }
  | {
      type: 'claims';
      answer: string;
      claims: Claim[];
      cited: CitedSection[];
      invalidCitations: number[];
      abstained: Abstention | null;
      conflicts: Conflict[];
    }
  | { type: 'measured'; timings: Record<string, number>; usage: TokenUsage; generator: string }
  | { type: 'done'; result: AskResult };

export type AskEventType = AskEvent['type'];
