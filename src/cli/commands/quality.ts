import { QuiverError } from '../../errors.js';
import type { Vault } from '../../index.js';
import { num, str, type Command, type CommandContext, type Subcommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { table } from '../table.js';
import {
  feedbackJson,
  markJson,
  noiseFitJson,
  noiseJson,
  rankerFitJson,
  rankerInfoJson,
  requireFitted,
  transcriptJson,
} from '../../wire/quality.js';

type Loop = Vault['quality'];
type NoiseRow = Awaited<ReturnType<Loop['noiseScores']>>[number];
type MarkRow = Awaited<ReturnType<Loop['marks']>>[number];

function onOff(cmd: string, v: string | undefined): boolean {
  if (v === 'on') return true;
  if (v === 'off') return false;
  throw new QuiverError(
    'BAD_INPUT',
    `quiver ${cmd}: say on or off, got ${v === undefined ? 'nothing' : JSON.stringify(v)}`,
  );
}

const fixed = (x: number | null, d = 3): string => (x === null ? '' : x.toFixed(d));

export const rateCommand: Command = {
  name: 'rate',
  usage: 'quiver rate <section-id> up|down|good|bad|read|cited|shown [--question Q]',
  options: { question: { type: 'string', value: 'Q', help: 'the question the section was judged for' } },
  maxArgs: 2,
  async run(ctx) {
    const [sectionId, signal, ...extra] = ctx.positionals;
    if (sectionId === undefined || signal === undefined || extra.length > 0) {
      throw new QuiverError(
        'BAD_INPUT',
        'quiver rate: give a section id and a signal, e.g. quiver rate 1a2b3c4d5e6f7081#2 up',
      );
    }
    const vault = await ctx.openVault();
    const row = await vault.quality.rate(str(ctx.values, 'question') ?? '', sectionId, signal);
    if (ctx.json) ctx.out(`${JSON.stringify(feedbackJson(row))}\n`);
    else ctx.out(`rated ${row.sectionId} ${row.signal} (label ${row.label}, weight ${row.weight})\n`);
    return EXIT.OK;
  },
};

export const ratingsCommand: Command = {
  name: 'ratings',
  usage: 'quiver ratings [--doc ID] [--limit N]',
  options: {
    doc: { type: 'string', value: 'ID', help: 'only this document id' },
    limit: { type: 'integer', min: 1, help: 'rows to show (default 50)' },
  },
  maxArgs: 0,
  async run(ctx) {
    const vault = await ctx.openVault();
    const doc = str(ctx.values, 'doc');
    const limit = num(ctx.values, 'limit');
    const rows = await vault.quality.ratings({
      ...(doc === undefined ? {} : { docId: doc }),
      ...(limit === undefined ? {} : { limit }),
    });
    if (ctx.json) ctx.out(`${JSON.stringify(rows.map(feedbackJson))}\n`);
    else if (rows.length === 0) ctx.out('no feedback yet\n');
    else
      ctx.out(
        table(
          ['at', 'signal', 'section', 'rank', 'score', 'ask', 'question'],
          rows.map((r) => [
            r.at.replace('T', ' ').slice(0, 19),
            r.signal,
            r.sectionId,
            r.rank,
            fixed(r.score),
            r.askId,
            r.q,
          ]),
        ),
      );
    return EXIT.OK;
  },
};

export const learnCommand: Command = {
  name: 'learn',
  usage: 'quiver learn [on|off]',
  options: {},
  maxArgs: 1,
  async run(ctx) {
    const arg = ctx.positionals[0];
    const vault = await ctx.openVault();
    if (arg !== undefined) await vault.quality.learn(onOff('learn', arg));
    const on = await vault.quality.isLearning();
    if (ctx.json) ctx.out(`${JSON.stringify({ learning: on })}\n`);
    else ctx.out(`learning is ${on ? 'on: answers are logged as feedback' : 'off'}\n`);
    return EXIT.OK;
  },
};

function suggestionTable(rows: readonly NoiseRow[]): string {
  const names = Object.keys(rows[0]?.features ?? {});
  return (
    table(
      ['#', 'score', 'doc', 'title', 'source', ...names],
      rows.map((r, i) => [
        i + 1,
        fixed(r.score),
        r.docId,
        r.title,
        r.source,
        ...names.map((n) => fixed(r.features[n] ?? 0, 2)),
      ]),
      32,
    ) + 'Feature values are rank-normalised over the vault, in [-1.73, 1.73]; larger = noisier.\n'
  );
}

function printMarks(ctx: CommandContext, marks: readonly MarkRow[], verb?: string): void {
  if (ctx.json) {
    ctx.out(`${JSON.stringify(marks.map(markJson))}\n`);
    return;
  }
  if (verb !== undefined) {
    for (const m of marks)
      ctx.out(`${verb} ${m.docId}  ${m.title}${m.reason === null ? '' : `  (${m.reason})`}\n`);
    if (marks.length === 0) ctx.out('nothing to mark\n');
    return;
  }
  if (marks.length === 0) ctx.out('no marks yet\n');
  else
    ctx.out(
      table(
        ['doc', 'judged', 'title', 'source', 'reason'],
        marks.map((m) => [m.docId, m.noisy ? 'noise' : 'keep', m.title, m.source, m.reason]),
      ),
    );
}

function modelLines(
  weights: readonly [string, number][],
  meta: { nPairs: number; nRows: number; nGroups: number } | null,
): string {
  if (meta === null) return '  (not fitted)\n';
  const head = `  ${meta.nRows} rows, ${meta.nGroups} groups, ${meta.nPairs} pairs\n`;
  return head + weights.map(([n, w]) => `  ${n.padEnd(18)} ${w >= 0 ? ' ' : ''}${w.toFixed(4)}\n`).join('');
}

/** `noise mark|keep <ref>`: the reference is the rest of the line (ids, sources or a title fragment). */
function docRef(ctx: CommandContext, sub: string): string {
  const r = ctx.positionals.join(' ').trim();
  if (r === '')
    throw new QuiverError('BAD_INPUT', `quiver noise ${sub}: give a document id, source or title fragment`);
  return r;
}

const K_OPTION = { type: 'integer', min: 0, help: 'suggestions to show or accept (default 20)' } as const;
const MIN_SCORE_OPTION = { type: 'number', help: 'lowest score suggested (default 1.0)' } as const;
const REASON_OPTION = { type: 'string', value: 'TEXT', help: 'why (stored with the mark)' } as const;

function markSub(noisy: boolean): Subcommand {
  const sub = noisy ? 'mark' : 'keep';
  return {
    usage: `quiver noise ${sub} <doc id|source|title> [--reason TEXT]`,
    summary: noisy
      ? "mark a document as noise: it leaves both retrieval legs at once (a person's mark)"
      : 'confirm a document is worth keeping (a negative label for `noise fit`)',
    options: { reason: REASON_OPTION },
    maxArgs: null,
    async run(ctx) {
      const r = docRef(ctx, sub);
      const vault = await ctx.openVault();
      const mark = await vault.quality.markNoisy(r, noisy, str(ctx.values, 'reason') ?? '');
      printMarks(ctx, [mark], noisy ? 'marked as noise:' : 'kept:');
      return EXIT.OK;
    },
  };
}

export const noiseCommand: Command = {
  name: 'noise',
  usage: 'quiver noise suggest|mark|keep|unmark|accept|fit|use|marks [options]',
  options: {},
  maxArgs: 0,
  run: () => Promise.resolve(EXIT.USAGE),
  subcommands: {
    suggest: {
      usage: 'quiver noise suggest [--k N] [--min-score X]',
      summary: 'documents that look like junk, with the features behind each score',
      options: { k: K_OPTION, 'min-score': MIN_SCORE_OPTION },
      maxArgs: 0,
      async run(ctx) {
        const k = num(ctx.values, 'k');
        const minScore = num(ctx.values, 'min-score');
        const vault = await ctx.openVault();
        const rows = await vault.quality.suggestNoisy({
          ...(k === undefined ? {} : { k }),
          ...(minScore === undefined ? {} : { minScore }),
        });
        if (ctx.json) ctx.out(`${JSON.stringify(rows.map(noiseJson))}\n`);
        else
          ctx.out(rows.length === 0 ? 'no suggestions (try a lower --min-score)\n' : suggestionTable(rows));
        return EXIT.OK;
      },
    },
    mark: markSub(true),
    keep: markSub(false),
    unmark: {
      usage: 'quiver noise unmark <doc id|source|title>',
      summary: 'take back a mark: the document is neither junk nor a keeper any more',
      options: {},
      maxArgs: null,
      async run(ctx) {
        const r = docRef(ctx, 'unmark');
        const vault = await ctx.openVault();
        const mark = await vault.quality.unmark(r);
        if (ctx.json) ctx.out(`${JSON.stringify(markJson(mark))}\n`);
        else ctx.out(`unmarked: ${mark.docId}  ${mark.title}\n`);
        return EXIT.OK;
      },
    },
    accept: {
      usage: 'quiver noise accept [--k N] [--min-score X] [--reason TEXT]',
      summary: 'mark the current suggestions as noise',
      options: { k: K_OPTION, 'min-score': MIN_SCORE_OPTION, reason: REASON_OPTION },
      maxArgs: 0,
      async run(ctx) {
        const reason = str(ctx.values, 'reason') ?? '';
        const vault = await ctx.openVault();
        printMarks(
          ctx,
          await vault.quality.acceptNoisy(
            num(ctx.values, 'k'),
            reason === '' ? 'suggested' : reason,
            num(ctx.values, 'min-score'),
          ),
          'marked as noise:',
        );
        return EXIT.OK;
      },
    },
    fit: {
      usage: 'quiver noise fit [--save]',
      summary: "fit the noise blend to people's marks (needs a noisy and a keeper mark)",
      options: {
        save: { type: 'boolean', help: 'store the fitted blend (switch it on with `noise use on`)' },
      },
      maxArgs: 0,
      async run(ctx) {
        const vault = await ctx.openVault();
        // Nothing to fit from: exit 3 with what the fit needs.
        const r = requireFitted(await vault.quality.fitNoise({ save: ctx.values.save === true }));
        if (ctx.json) ctx.out(`${JSON.stringify(noiseFitJson(r))}\n`);
        else {
          ctx.out(
            `noise blend fitted on ${r.labelled} documents${r.saved ? '; saved (switch it on with `quiver noise use on`)' : '; not saved (add --save)'}\n`,
          );
          ctx.out(modelLines(r.model.weights(), r.model.meta));
        }
        return EXIT.OK;
      },
    },
    use: {
      usage: 'quiver noise use on|off',
      summary: 'suggest with the saved fitted blend (on) or the fixed weights (off)',
      options: {},
      maxArgs: 1,
      async run(ctx) {
        const on = onOff('noise use', ctx.positionals[0]);
        const vault = await ctx.openVault();
        await vault.quality.useNoise(on);
        if (ctx.json) ctx.out(`${JSON.stringify({ noise_on: on })}\n`);
        else ctx.out(`suggestions now use the ${on ? 'fitted blend' : 'fixed weights'}\n`);
        return EXIT.OK;
      },
    },
    marks: {
      usage: 'quiver noise marks',
      summary: "people's marks: noise and keepers, with their reasons",
      options: {},
      maxArgs: 0,
      async run(ctx) {
        const vault = await ctx.openVault({ readonly: true });
        printMarks(ctx, await vault.quality.marks());
        return EXIT.OK;
      },
    },
  },
};

export const rankerCommand: Command = {
  name: 'ranker',
  usage: 'quiver ranker fit [--save] | use on|off | show',
  options: {},
  maxArgs: 0,
  run: () => Promise.resolve(EXIT.USAGE),
  subcommands: {
    fit: {
      usage: 'quiver ranker fit [--save]',
      summary: 'fit the pairwise ranker on the feedback log',
      options: { save: { type: 'boolean', help: 'store the model (switch it on with `ranker use on`)' } },
      maxArgs: 0,
      async run(ctx) {
        const vault = await ctx.openVault();
        const r = requireFitted(await vault.quality.fitRanker({ save: ctx.values.save === true }));
        if (ctx.json) ctx.out(`${JSON.stringify(rankerFitJson(r))}\n`);
        else {
          ctx.out(
            `ranker fitted${r.saved ? '; saved (switch it on with `quiver ranker use on`)' : '; not saved (add --save)'}\n`,
          );
          ctx.out(modelLines(r.model.weights(), r.model.meta));
        }
        return EXIT.OK;
      },
    },
    use: {
      usage: 'quiver ranker use on|off',
      summary: 'let the saved ranker nudge context and ask (on), or not (off)',
      options: {},
      maxArgs: 1,
      async run(ctx) {
        const on = onOff('ranker use', ctx.positionals[0]);
        const vault = await ctx.openVault();
        await vault.quality.useRanker(on);
        if (ctx.json) ctx.out(`${JSON.stringify({ ranker_on: on })}\n`);
        else ctx.out(`the ranker is ${on ? 'on: it nudges context and ask (α 0.25)' : 'off'}\n`);
        return EXIT.OK;
      },
    },
    show: {
      usage: 'quiver ranker show',
      summary: 'the learning switch, the ranker and the noise blend, with their weights',
      options: {},
      maxArgs: 0,
      async run(ctx) {
        const vault = await ctx.openVault({ readonly: true });
        const i = await vault.quality.rankerInfo();
        if (ctx.json) {
          ctx.out(`${JSON.stringify(rankerInfoJson(i))}\n`);
          return EXIT.OK;
        }
        ctx.out(`learning: ${i.learning ? 'on' : 'off'} (${i.feedbackRows} feedback rows)\n`);
        ctx.out(
          `ranker: ${i.ranker.on ? 'on' : 'off'}${i.ranker.fittedAt === null ? ', never saved' : `, fitted ${i.ranker.fittedAt}`}\n`,
        );
        ctx.out(modelLines(i.ranker.weights, i.ranker.meta));
        ctx.out(
          `noise blend: ${i.noise.on ? 'fitted' : 'fixed weights'}${i.noise.fittedAt === null ? '' : `, fitted ${i.noise.fittedAt}`}\n`,
        );
        if (i.noise.meta !== null) ctx.out(modelLines(i.noise.weights, i.noise.meta));
        return EXIT.OK;
      },
    },
  },
};

export const transcriptsCommand: Command = {
  name: 'transcripts',
  usage: 'quiver transcripts [ID] [--limit N] [--json]',
  options: { limit: { type: 'integer', min: 1, help: 'transcripts to list (default 20)' } },
  maxArgs: 1,
  async run(ctx) {
    const id = ctx.positionals[0];
    const vault = await ctx.openVault();
    if (id !== undefined) {
      const t = await vault.transcript(id);
      if (ctx.json) ctx.out(`${JSON.stringify(transcriptJson(t))}\n`);
      else {
        ctx.out(
          `transcript ${t.id}  ${t.at}\ngenerator ${t.generator}; config ${t.configFingerprint.slice(0, 12)}; tokens ${t.usage.promptTokens}+${t.usage.completionTokens}\n\n`,
        );
        ctx.out(`Question: ${t.question}\n\nAnswer:\n${t.answer}\n\n`);
        ctx.out(`Cited: ${t.cited.join(', ') || '(none)'}\n`);
        if (t.invalidCitations.length > 0)
          ctx.out(`Invalid citations: ${t.invalidCitations.map((n) => `[${n}]`).join(' ')}\n`);
        ctx.out(`\n--- system ---\n${t.prompt.system}\n\n--- user ---\n${t.prompt.user}\n`);
      }
      return EXIT.OK;
    }
    const limit = num(ctx.values, 'limit');
    const list = await vault.transcripts(limit === undefined ? {} : { limit });
    if (ctx.json) ctx.out(`${JSON.stringify(list.map(transcriptJson))}\n`);
    else if (list.length === 0) ctx.out('no transcripts yet\n');
    else
      ctx.out(
        table(
          ['id', 'at', 'generator', 'cited', 'question'],
          list.map((t) => [
            t.id,
            t.at.replace('T', ' ').slice(0, 19),
            t.generator,
            t.cited.length,
            t.question,
          ]),
        ),
      );
    return EXIT.OK;
  },
};
