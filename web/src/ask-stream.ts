/**
 * `POST /v1/ask` as a stream of events (context, token…, claims, measured, done; `error` when the
 * answer failed after the stream began), read with fetch and `parseSse`.
 */
import { ApiError, call } from './api.js';
import { parseSse, type SseMessage } from './sse.js';
import type { AnswerJson, ClaimsJson, ContextSectionJson, ErrorJson } from './wire.js';

export type AskEvent =
  | { type: 'context'; sections: ContextSectionJson[] }
  | { type: 'token'; text: string }
  | { type: 'claims'; claims: ClaimsJson }
  | { type: 'measured'; generator: string }
  | { type: 'done'; answer: AnswerJson };

/** The events of one streamed answer, in order. A stream `error` event throws its ApiError. */
export async function* askStream(
  question: string,
  token: string,
  signal: AbortSignal,
): AsyncGenerator<AskEvent> {
  const res = await call('/v1/ask', token, {
    body: { question },
    accept: 'text/event-stream',
    signal,
  });
  if (res.body === null) throw new ApiError(res.status, 'BAD_REPLY', 'The answer stream was empty.');
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let rest = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const parsed = parseSse(rest + value);
      rest = parsed.rest;
      for (const m of parsed.messages) {
        const e = toEvent(m);
        if (e !== null) yield e;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function toEvent(m: SseMessage): AskEvent | null {
  let data: unknown;
  try {
    data = JSON.parse(m.data);
  } catch {
    throw new ApiError(200, 'BAD_REPLY', `The answer stream sent an unreadable ${m.event} event.`);
  }
  const d = data as Record<string, unknown>;
  switch (m.event) {
    case 'context':
      return { type: 'context', sections: d.sections as ContextSectionJson[] };
    case 'token':
      return { type: 'token', text: String(d.text ?? '') };
    case 'claims':
      return { type: 'claims', claims: d as unknown as ClaimsJson };
    case 'measured':
      return { type: 'measured', generator: String(d.generator ?? '') };
    case 'done':
      return { type: 'done', answer: d as unknown as AnswerJson };
    case 'error': {
      const e = d as Partial<ErrorJson> & { status?: number };
      throw new ApiError(e.status ?? 500, e.error?.code ?? 'ERROR', e.error?.message ?? 'The answer failed.');
    }
    default:
      return null;
  }
}
