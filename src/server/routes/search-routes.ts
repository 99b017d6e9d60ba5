import { isQuiverError, QuiverError } from '../../errors.js';
import { streamSSE } from 'hono/streaming';
import type { AskEvent } from '../../answer/ask-events.js';
import { askEventJson, groundedAskJson } from '../../wire/answers.js';
import { contextJson, searchJson, selectionMapJson } from '../../wire/hits.js';
import { AskRequest, ContextRequest, SearchRequest } from '../../wire/requests.js';
import { searchOptionsOf } from '../../wire/search-options.js';
import { errorReply } from '../http-status.js';
import { route, type Ctx, type Route } from '../route.js';

/** Search, context and ask: read routes, served by the read-only vault. */

function wantsStream(c: Ctx, asked: boolean | undefined): boolean {
  return asked === true || (c.req.header('accept') ?? '').includes('text/event-stream');
}

export const SEARCH_ROUTES: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/search',
    role: 'read',
    tag: 'search',
    summary: 'Ranked sections for a query (hybrid retrieval; every knob per call)',
    body: SearchRequest,
    handle: async (c, d, b) =>
      c.json(searchJson(b.query, await d.reader.search(b.query, searchOptionsOf(b, c.req.raw.signal)))),
  }),
  route({
    method: 'POST',
    path: '/v1/selection-map',
    role: 'read',
    tag: 'search',
    summary:
      'The candidate pool for a query, each at its distance to the query and an angle that keeps near-copies together, with the picks of topk, mmr and dartboard',
    body: SearchRequest,
    handle: async (c, d, b) =>
      c.json(
        selectionMapJson(b.query, await d.reader.selectionMap(b.query, searchOptionsOf(b, c.req.raw.signal))),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/context',
    role: 'read',
    tag: 'search',
    summary: 'Numbered sections chosen to cover the query, with their text, for a prompt',
    body: ContextRequest,
    handle: async (c, d, b) =>
      c.json(contextJson(b.query, await d.reader.context(b.query, searchOptionsOf(b, c.req.raw.signal)))),
  }),
  route({
    method: 'POST',
    path: '/v1/ask',
    role: 'read',
    tag: 'ask',
    summary:
      'An answer with [n] citations; with `Accept: text/event-stream` (or stream: true) a stream of events: context, token…, claims, measured, done',
    body: AskRequest,
    stream: true,
    handle: async (c, d, b) => {
      const token = c.get('token');
      // A generator this server has no settings for is the request's mistake (400), not the server's.
      if (b.generator !== undefined) {
        try {
          d.reader.generator(b.generator);
        } catch (e) {
          if (isQuiverError(e, 'CONFIG'))
            throw new QuiverError('BAD_INPUT', `quiver: "generator": ${e.message.replace(/^quiver: /, '')}`);
          throw e;
        }
      }
      const base = {
        ...searchOptionsOf(b),
        ...(b.generator === undefined ? {} : { generator: b.generator }),
        account: token.id,
      };
      if (!wantsStream(c, b.stream))
        return c.json(
          await groundedAskJson(
            await d.reader.ask(b.question, { ...base, signal: c.req.raw.signal }),
            c.req.raw.signal,
          ),
        );
      // A client that goes away stops the answer: retrieval, the generator and the stream.
      const stop = new AbortController();
      c.req.raw.signal.addEventListener('abort', () => stop.abort(), { once: true });
      return streamSSE(c, async (stream) => {
        stream.onAbort(() => stop.abort());
        const queue: AskEvent[] = [];
        let wake: (() => void) | null = null;
        let finished = false;
        const asked = d.reader
          .ask(b.question, {
            ...base,
            signal: stop.signal,
            onEvent: (e) => {
              queue.push(e);
              wake?.();
            },
          })
          .finally(() => {
            finished = true;
            wake?.();
          });
        asked.catch(() => undefined); // read below, after the events are written
        let id = 0;
        for (;;) {
          while (queue.length > 0) {
            const e = queue.shift()!;
            const data = e.type === 'done' ? await groundedAskJson(e.result, stop.signal) : askEventJson(e);
            await stream.writeSSE({ event: e.type, data: JSON.stringify(data), id: String(id++) });
          }
          if (finished || stop.signal.aborted) break;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = null;
        }
        try {
          await asked;
        } catch (e) {
          if (!stop.signal.aborted) {
            const r = errorReply(e);
            await stream.writeSSE({
              event: 'error',
              data: JSON.stringify({ status: r.status, ...r.body }),
              id: String(id),
            });
          }
        }
      });
    },
  }),
];
