import { QuiverError, type Vault } from '../../index.js';
import { str, type Command, type CommandContext } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { table } from '../table.js';

type Loop = Vault['quality'];
type FeedbackRow = Awaited<ReturnType<Loop['ratings']>>[number];
type NoiseRow = Awaited<ReturnType<Loop['noiseScores']>>[number];
type MarkRow = Awaited<ReturnType<Loop['marks']>>[number];
type Transcript = NonNullable<Awaited<ReturnType<Vault['store']['getTranscript']>>>;

function onOff(cmd: string, v: string | undefined): boolean {
  if (v === 'on') return true;
  if (v === 'off') return false;
  throw new QuiverError(
    'BAD_INPUT',
    `quiver ${cmd}: say on or off, got ${v === undefined ? 'nothing' : JSON.stringify(v)}`,
  );
}

function intFlag(ctx: CommandContext, name: string, min: number): number | undefined {
  const raw = str(ctx.values, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) {
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: --${name} must be an integer ≥ ${min}, got ${JSON.stringify(raw)}`,
    );
  }
  return n;
}

function numFlag(ctx: CommandContext, name: string): number | undefined {
  const raw = str(ctx.values, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n))
    throw new QuiverError('BAD_INPUT', `quiver: --${name} must be a number, got ${JSON.stringify(raw)}`);
  return n;
}

const fixed = (x: number | null, d = 3): string => (x === null ? '' : x.toFixed(d));

function feedbackJson(r: FeedbackRow): Record<string, unknown> {
  return {
    id: r.id,
    at: r.at,
    question: r.q,
    ask_id: r.askId,
    section_id: r.sectionId,
    doc_id: r.docId,
    rank: r.rank,
    score: r.score,
    signal: r.signal,
    label: r.label,
    weight: r.weight,
  };
}

function markJson(m: MarkRow): Record<string, unknown> {
  return { doc_id: m.docId, title: m.title, source: m.source, noisy: m.noisy, reason: m.reason };
}

function noiseJson(r: NoiseRow): Record<string, unknown> {
  return {
    doc_id: r.docId,
    title: r.title,
    source: r.source,
    score: r.score,
    features: r.features,
    raw: r.raw,
  };
}

export const rateCommand: Command = {
  name: 'rate',
  usage: 'quiver rate <section-id> up|down|good|bad|read|cited|shown [--question Q]',
  options: { question: { type: 'string', help: 'the question the section was judged for' } },
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
    doc: { type: 'string', help: 'only this document id' },
    limit: { type: 'string', help: 'rows to show (default 50)' },
  },
  async run(ctx) {
    const vault = await ctx.openVault();
    const doc = str(ctx.values, 'doc');
    const limit = intFlag(ctx, 'limit', 1);
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
  usage: 'quiver learn on|off',
  options: {},
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

export const noiseCommand: Command = {
  name: 'noise',
  usage:
    'quiver noise suggest [--k N] [--min-score X] | mark <ref> [--reason R] | keep <ref> | accept [--k N] | fit [--save] | use on|off | marks',
  options: {
    k: { type: 'string', help: 'suggestions to show or accept (default 20)' },
    'min-score': { type: 'string', help: 'lowest score suggested (default 1.0)' },
    reason: { type: 'string', help: 'why (stored with the mark)' },
    save: { type: 'boolean', help: 'fit: store the fitted blend (switch it on with `noise use on`)' },
  },
  async run(ctx) {
    const [sub, ...args] = ctx.positionals;
    const k = intFlag(ctx, 'k', 0);
    const minScore = numFlag(ctx, 'min-score');
    const reason = str(ctx.values, 'reason') ?? '';
    const ref = (): string => {
      const r = args.join(' ').trim();
      if (r === '')
        throw new QuiverError(
          'BAD_INPUT',
          `quiver noise ${sub}: give a document id, source or title fragment`,
        );
      return r;
    };
    switch (sub) {
      case 'suggest': {
        const vault = await ctx.openVault();
        const rows = await vault.quality.suggestNoisy({
          ...(k === undefined ? {} : { k }),
          ...(minScore === undefined ? {} : { minScore }),
        });
        if (ctx.json) ctx.out(`${JSON.stringify(rows.map(noiseJson))}\n`);
        else
          ctx.out(rows.length === 0 ? 'no suggestions (try a lower --min-score)\n' : suggestionTable(rows));
        return EXIT.OK;
      }
      case 'mark':
      case 'keep': {
        const r = ref();
        const vault = await ctx.openVault();
        printMarks(
          ctx,
          [await vault.quality.markNoisy(r, sub === 'mark', reason)],
          sub === 'mark' ? 'marked as noise:' : 'kept:',
        );
        return EXIT.OK;
      }
      case 'accept': {
        const vault = await ctx.openVault();
        printMarks(
          ctx,
          await vault.quality.acceptNoisy(k, reason === '' ? 'suggested' : reason, minScore),
          'marked as noise:',
        );
        return EXIT.OK;
      }
      case 'fit': {
        const vault = await ctx.openVault();
        const r = await vault.quality.fitNoise({ save: ctx.values.save === true });
        if (ctx.json)
          ctx.out(
            `${JSON.stringify({ fitted: r.model.fitted, saved: r.saved, labelled: r.labelled, meta: r.model.meta, weights: r.model.weights() })}\n`,
          );
        else {
          ctx.out(
            `noise blend ${r.model.fitted ? 'fitted' : 'not fitted (no noisy/keeper pair)'} on ${r.labelled} documents${r.saved ? '; saved (switch it on with `quiver noise use on`)' : r.model.fitted ? '; not saved (add --save)' : ''}\n`,
          );
          ctx.out(modelLines(r.model.weights(), r.model.fitted ? r.model.meta : null));
        }
        return EXIT.OK;
      }
      case 'use': {
        const on = onOff('noise use', args[0]);
        const vault = await ctx.openVault();
        await vault.quality.useNoise(on);
        if (ctx.json) ctx.out(`${JSON.stringify({ noise_on: on })}\n`);
        else ctx.out(`suggestions now use the ${on ? 'fitted blend' : 'fixed weights'}\n`);
        return EXIT.OK;
      }
      case 'marks': {
        const vault = await ctx.openVault();
        printMarks(ctx, await vault.quality.marks());
        return EXIT.OK;
      }
      default:
        throw new QuiverError(
          'BAD_INPUT',
          `quiver noise: say suggest, mark, keep, accept, fit, use or marks, got ${sub === undefined ? 'nothing' : JSON.stringify(sub)}`,
        );
    }
  },
};

export const rankerCommand: Command = {
  name: 'ranker',
  usage: 'quiver ranker fit [--save] | use on|off | show',
  options: { save: { type: 'boolean', help: 'fit: store the model (switch it on with `ranker use on`)' } },
  async run(ctx) {
    const [sub, ...args] = ctx.positionals;
    const vault = sub === 'fit' || sub === 'use' || sub === 'show' ? await ctx.openVault() : undefined;
    switch (sub) {
      case 'fit': {
        const r = await vault!.quality.fitRanker({ save: ctx.values.save === true });
        if (ctx.json)
          ctx.out(
            `${JSON.stringify({ fitted: r.model.fitted, saved: r.saved, meta: r.model.meta, weights: r.model.weights() })}\n`,
          );
        else {
          ctx.out(
            r.model.fitted
              ? `ranker fitted${r.saved ? '; saved (switch it on with `quiver ranker use on`)' : '; not saved (add --save)'}\n`
              : 'ranker not fitted: the log has no question with both a positive and a negative row (turn on `quiver learn on` and ask)\n',
          );
          ctx.out(modelLines(r.model.weights(), r.model.fitted ? r.model.meta : null));
        }
        return EXIT.OK;
      }
      case 'use': {
        const on = onOff('ranker use', args[0]);
        await vault!.quality.useRanker(on);
        if (ctx.json) ctx.out(`${JSON.stringify({ ranker_on: on })}\n`);
        else ctx.out(`the ranker is ${on ? 'on: it nudges context and ask (α 0.25)' : 'off'}\n`);
        return EXIT.OK;
      }
      case 'show': {
        const i = await vault!.quality.rankerInfo();
        if (ctx.json) {
          ctx.out(
            `${JSON.stringify({ learning: i.learning, feedback_rows: i.feedbackRows, ranker: { on: i.ranker.on, fitted_at: i.ranker.fittedAt, meta: i.ranker.meta, weights: i.ranker.weights }, noise: { on: i.noise.on, fitted_at: i.noise.fittedAt, meta: i.noise.meta, weights: i.noise.weights } })}\n`,
          );
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
      }
      default:
        throw new QuiverError(
          'BAD_INPUT',
          `quiver ranker: say fit, use or show, got ${sub === undefined ? 'nothing' : JSON.stringify(sub)}`,
        );
    }
  },
};

function transcriptJson(t: Transcript): Record<string, unknown> {
  return {
    id: t.id,
    at: t.at,
    question: t.question,
    config_fingerprint: t.configFingerprint,
    config: t.config,
    prompt: t.prompt,
    answer: t.answer,
    cited: t.cited,
    invalid_citations: t.invalidCitations,
    generator: t.generator,
    usage: { prompt_tokens: t.usage.promptTokens, completion_tokens: t.usage.completionTokens },
    timings_ms: t.timings,
  };
}

export const transcriptsCommand: Command = {
  name: 'transcripts',
  usage: 'quiver transcripts [ID] [--limit N] [--json]',
  options: { limit: { type: 'string', help: 'transcripts to list (default 20)' } },
  async run(ctx) {
    const id = ctx.positionals[0];
    const vault = await ctx.openVault();
    if (id !== undefined) {
      const t = await vault.store.getTranscript(id);
      if (t === null) throw new QuiverError('NOT_FOUND', `quiver: no transcript ${id}`);
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
    const limit = intFlag(ctx, 'limit', 1);
    const list = await vault.store.listTranscripts(limit === undefined ? {} : { limit });
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
