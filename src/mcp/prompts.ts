import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { allows } from '../server/tokens.js';
import { MAX_QUERY_CHARS } from '../wire/requests.js';
import type { McpDeps } from './tool.js';

/**
 * The flows a client can start by name: answering from the vault with citations, and reviewing
 * suspected junk. Each fills its message with what the vault holds now (the numbered passages,
 * the suspects), so the model starts from evidence rather than from a search of its own.
 */
export function registerPrompts(server: McpServer, deps: McpDeps): void {
  server.registerPrompt(
    'answer_with_citations',
    {
      title: 'Answer from the vault with citations',
      description:
        'The passages of the vault that cover a question, numbered, and how to answer from them citing [n].',
      argsSchema: z.object({
        question: z.string().min(1).max(MAX_QUERY_CHARS).describe('The question to answer.'),
      }),
    },
    async ({ question }) => {
      const { sections } = await deps.reader.context(question);
      const passages = sections
        .map((s) => `[${s.n}] ${s.breadcrumb} (${s.source}; section ${s.sectionId})\n${s.text.trim()}`)
        .join('\n\n');
      const text =
        sections.length === 0
          ? `The vault has nothing on this question: "${question}". Say so; do not answer from memory.`
          : `Answer the question using only the numbered passages below. After each sentence, cite the passages it rests on as [n]. If they do not answer it, say what is missing instead of guessing. To see more of a passage, read quiver://section/<section id> or call the \`read\` tool.\n\nQuestion: ${question}\n\n${passages}`;
      return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
    },
  );
  server.registerPrompt(
    'review_suspected_junk',
    {
      title: 'Review suspected junk',
      description: 'The documents the noise score suspects, and how to confirm or clear each one.',
      argsSchema: z.object({
        count: z
          .string()
          .regex(/^\d{1,3}$/)
          .optional()
          .describe('How many suspects to review (default 10).'),
      }),
    },
    async ({ count }) => {
      const list = await deps.reader.quality.suggestNoisy({ k: Math.max(1, Number(count ?? 10)) });
      const suspects = list
        .map((s, i) => `${i + 1}. ${s.title} (${s.source}; document ${s.docId}; score ${s.score.toFixed(2)})`)
        .join('\n');
      const act = allows(deps.role, 'write')
        ? 'Then call `noise_mark` with noisy: true for junk (it leaves search and answers) or noisy: false for a keeper, with a short reason.'
        : 'This session cannot mark documents: report your verdict on each to the person instead.';
      const text =
        list.length === 0
          ? 'No document looks like junk right now; nothing to review.'
          : `These documents look like junk to the vault's noise score (a suggestion only). For each, read it (the \`read\` tool with its document id, or quiver://document/<id>) and decide whether it is junk (boilerplate, garbled, empty, a duplicate) or worth keeping. ${act}\n\n${suspects}`;
      return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
    },
  );
}
