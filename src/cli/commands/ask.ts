import { QuiverError } from '../../errors.js';
import type { AskResult, CitedSection, GeneratorName } from '../../index.js';
import { str, type Command } from '../command.js';
import { configOption } from '../config-option.js';
import { EXIT } from '../exit-codes.js';
import { markdownToPlain } from '../../text/plain-text.js';
import { RETRIEVAL_OPTIONS, searchOptionsFrom } from './retrieval-flags.js';
import { whereLabel } from './where-label.js';

/** A cited or context section as JSON (snake_case). */
function sectionRefJson(c: CitedSection): Record<string, unknown> {
  return {
    n: c.n,
    section_id: c.sectionId,
    doc_id: c.docId,
    breadcrumb: c.breadcrumb,
    source: c.source,
    pages: c.pages,
  };
}

/** The stable JSON shape of an answer (snake_case; see README). */
export function askJson(r: AskResult): Record<string, unknown> {
  return {
    question: r.question,
    answer: r.answer,
    claims: r.claims,
    cited: r.cited.map(sectionRefJson),
    invalid_citations: r.invalidCitations,
    abstained: r.abstained,
    conflicts: r.conflicts.map((c) => ({
      kind: c.kind,
      sides: c.sides.map((side) => ({
        n: side.n,
        section_id: side.sectionId,
        sentence: side.sentence,
        span: side.span,
        span_start: side.spanStart,
        span_end: side.spanEnd,
      })),
    })),
    context: r.context.map((c) => ({ ...sectionRefJson(c), score: c.score, text: c.text })),
    generator: r.generator,
    usage: { prompt_tokens: r.usage.promptTokens, completion_tokens: r.usage.completionTokens },
    timings_ms: r.timings,
    shrunk: r.shrunk,
    transcript_id: r.transcriptId,
  };
}

export const askCommand: Command = {
  name: 'ask',
  usage: 'quiver ask "question" [--generator extractive|openai] [--show-context] [--json]',
  options: {
    ...RETRIEVAL_OPTIONS,
    generator: configOption(
      'generator.provider',
      'extractive (offline) or openai (any OpenAI-compatible server)',
    ),
    'show-context': { type: 'boolean', help: 'also print the numbered sections the answer was built from' },
  },
  maxArgs: null,
  async run(ctx) {
    const question = ctx.positionals.join(' ').trim();
    if (question === '') throw new QuiverError('BAD_INPUT', 'quiver ask: give a question');
    const vault = await ctx.openVault();
    const gen = (str(ctx.values, 'generator') ?? vault.config['generator.provider']) as GeneratorName;
    const stream = !ctx.json && gen === 'openai' && ctx.io.stdout.isTTY === true;
    const r = await vault.ask(question, {
      ...searchOptionsFrom(ctx.values),
      generator: gen,
      ...(stream ? { onToken: (t: string) => ctx.out(t) } : {}),
    });
    if (ctx.json) {
      ctx.out(`${JSON.stringify(askJson(r))}\n`);
      return EXIT.OK;
    }
    ctx.out(stream ? '\n\n' : `${markdownToPlain(r.answer)}\n\n`);
    if (r.cited.length > 0) {
      ctx.out('Sources:\n');
      for (const c of r.cited) ctx.out(`  [${c.n}] ${c.breadcrumb}  (${whereLabel(c)})\n`);
    }
    if (r.invalidCitations.length > 0)
      ctx.out(
        `Warning: the answer cites sections that do not exist: ${r.invalidCitations.map((n) => `[${n}]`).join(' ')}\n`,
      );
    if (ctx.values['show-context'] === true) {
      ctx.out('\nContext:\n');
      for (const c of r.context)
        ctx.out(`\n[${c.n}] ${c.breadcrumb}  (${whereLabel(c)})\n${markdownToPlain(c.text)}\n`);
    }
    return EXIT.OK;
  },
};
