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
import {
  AcceptNoiseRequest,
  FitRequest,
  LearnRequest,
  MarkRequest,
  RateRequest,
  SwitchRequest,
} from '../../wire/requests.js';
import { intQuery, param, route, type Route } from '../route.js';

/**
 * The quality loop: ratings, learning, noise suggestions and marks, the fitted noise blend and the
 * ranker, transcripts. Fitting and switching a model changes every client's results: admin.
 */
export const QUALITY_ROUTES: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/feedback',
    role: 'write',
    tag: 'quality',
    summary: 'Rate a section for a question (up, down, …): the ranker learns from it',
    body: RateRequest,
    status: 201,
    handle: async (c, d, b) => {
      const row = await d.writer.quality.rate(
        b.question,
        b.sectionId,
        b.signal,
        b.askId === undefined ? {} : { askId: b.askId },
      );
      return c.json(feedbackJson(row), 201);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/feedback',
    role: 'read',
    tag: 'quality',
    summary: 'Ratings, newest first',
    query: { doc: 'only this document', limit: '1–1000 (default 50)' },
    handle: async (c, d) => {
      const doc = c.req.query('doc');
      const rows = await d.reader.quality.ratings({
        limit: intQuery(c, 'limit', 50, 1, 1000),
        ...(doc === undefined ? {} : { docId: doc }),
      });
      return c.json({ ratings: rows.map(feedbackJson), learning: await d.reader.quality.isLearning() });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/learning',
    role: 'admin',
    tag: 'quality',
    summary: 'Switch logging of answers for learning on or off',
    body: LearnRequest,
    handle: async (c, d, b) => {
      await d.writer.quality.learn(b.on);
      return c.json({ learning: b.on });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/noise/suggestions',
    role: 'read',
    tag: 'quality',
    summary: 'Documents that look like junk, with their score and the features behind it',
    query: { k: 'at most this many (1–500, default 20)' },
    handle: async (c, d) => {
      const rows = await d.reader.quality.suggestNoisy({ k: intQuery(c, 'k', 20, 1, 500) });
      return c.json({ suggestions: rows.map(noiseJson) });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/noise/marks',
    role: 'read',
    tag: 'quality',
    summary: 'Documents a person marked as junk or as a keeper',
    handle: async (c, d) => c.json({ marks: (await d.reader.quality.marks()).map(markJson) }),
  }),
  route({
    method: 'POST',
    path: '/v1/noise/marks',
    role: 'write',
    tag: 'quality',
    summary: 'Mark a document as junk (noisy: true) or a keeper (noisy: false)',
    body: MarkRequest,
    handle: async (c, d, b) =>
      c.json(markJson(await d.writer.quality.markNoisy(b.document, b.noisy, b.reason ?? ''))),
  }),
  route({
    method: 'DELETE',
    path: '/v1/noise/marks/:id',
    role: 'write',
    tag: 'quality',
    summary: "Take back a document's mark (404 when it has none)",
    handle: async (c, d) => c.json(markJson(await d.writer.quality.unmark(param(c, 'id')))),
  }),
  route({
    method: 'POST',
    path: '/v1/noise/accept',
    role: 'write',
    tag: 'quality',
    summary: 'Mark the current suggestions as junk (the k best, at or above minScore)',
    body: AcceptNoiseRequest,
    handle: async (c, d, b) => {
      const marks = await d.writer.quality.acceptNoisy(
        b.k,
        b.reason === undefined || b.reason === '' ? 'suggested' : b.reason,
        b.minScore,
      );
      return c.json({ marks: marks.map(markJson) });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/noise/fit',
    role: 'admin',
    tag: 'quality',
    summary:
      "Fit the noise blend to people's marks (404 until there is a junk and a keeper mark); save stores it",
    body: FitRequest,
    handle: async (c, d, b) =>
      c.json(noiseFitJson(requireFitted(await d.writer.quality.fitNoise({ save: b.save === true })))),
  }),
  route({
    method: 'POST',
    path: '/v1/noise/use',
    role: 'admin',
    tag: 'quality',
    summary: 'Suggest with the saved fitted blend (on) or the fixed weights (off)',
    body: SwitchRequest,
    handle: async (c, d, b) => {
      await d.writer.quality.useNoise(b.on);
      return c.json({ noise_on: b.on });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/ranker',
    role: 'read',
    tag: 'quality',
    summary: 'The learning switch, the ranker and the noise blend, with their weights',
    handle: async (c, d) => c.json(rankerInfoJson(await d.reader.quality.rankerInfo())),
  }),
  route({
    method: 'POST',
    path: '/v1/ranker/fit',
    role: 'admin',
    tag: 'quality',
    summary:
      'Fit the pairwise ranker on the feedback log (404 until a question has an up and a down row); save stores it',
    body: FitRequest,
    handle: async (c, d, b) =>
      c.json(rankerFitJson(requireFitted(await d.writer.quality.fitRanker({ save: b.save === true })))),
  }),
  route({
    method: 'POST',
    path: '/v1/ranker/use',
    role: 'admin',
    tag: 'quality',
    summary: 'Let the saved ranker nudge context and ask (on), or not (off)',
    body: SwitchRequest,
    handle: async (c, d, b) => {
      await d.writer.quality.useRanker(b.on);
      return c.json({ ranker_on: b.on });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/transcripts',
    role: 'read',
    tag: 'quality',
    summary: 'Answer transcripts (prompt, answer, citations, timings), newest first',
    query: { limit: '1–1000 (default 50)' },
    handle: async (c, d) => {
      const list = await d.reader.transcripts({ limit: intQuery(c, 'limit', 50, 1, 1000) });
      return c.json({ transcripts: list.map(transcriptJson) });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/transcripts/:id',
    role: 'read',
    tag: 'quality',
    summary: 'One transcript',
    handle: async (c, d) => c.json(transcriptJson(await d.reader.transcript(param(c, 'id')))),
  }),
];
