/**
 * A `text/event-stream` reply read with fetch (`EventSource` cannot POST or send the bearer
 * header): its events as they arrive, parsed by `parseSse`, and each event's JSON data.
 */
import { ApiError } from './api.js';
import { parseSse, type SseMessage } from './sse.js';

/** The events of `res`, in order; `what` names the stream in errors (`The answer stream`). */
export async function* eventStream(res: Response, what: string): AsyncGenerator<SseMessage> {
  if (res.body === null) throw new ApiError(res.status, 'BAD_REPLY', `${what} was empty.`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let rest = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const parsed = parseSse(rest + value);
      rest = parsed.rest;
      yield* parsed.messages;
    }
  } finally {
    reader.releaseLock();
  }
}

/** The JSON data of event `m`; unreadable data throws a BAD_REPLY ApiError naming `what`. */
export function eventData(m: SseMessage, what: string): unknown {
  try {
    return JSON.parse(m.data) as unknown;
  } catch {
    throw new ApiError(200, 'BAD_REPLY', `${what} sent an unreadable ${m.event} event.`);
  }
}
