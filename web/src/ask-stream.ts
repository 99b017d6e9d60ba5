/**
 * `POST /v1/ask` as a stream of events (context, token…, claims, measured, done; `error` when the
 * answer failed after the stream began), read with `eventStream`.
 */
import { ApiError, call } from './api.js';
import { eventData, eventStream } from './event-stream.js';
import type { SseMessage } from './sse.js';
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
  for await (const m of eventStream(res, STREAM)) {
    const e = toEvent(m);
    if (e !== null) yield e;
  }
}

const STREAM = 'The answer stream';

function toEvent(m: SseMessage): AskEvent | null {
  const d = eventData(m, STREAM) as Record<string, unknown>;
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
