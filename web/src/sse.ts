/**
 * A Server-Sent Events parser (the WHATWG `text/event-stream` format) for streams read with fetch:
 * `EventSource` cannot POST or send an Authorization header, so the page reads `POST /v1/ask` as
 * bytes and parses the events itself. Pure: text in, events and the unfinished rest out.
 */

/** One dispatched event: its name (`message` when none is given), its data lines joined by `\n`, its id. */
export interface SseMessage {
  event: string;
  data: string;
  id: string | null;
}

/**
 * The complete events in `buffer` and the text after the last one, to prepend to the next chunk.
 * Lines end in `\n`, `\r\n` or `\r`; a blank line ends an event; `:` starts a comment; a field's
 * value loses one leading space; an event without a `data` line is not dispatched (as the spec
 * says). A trailing `\r` is held back, since the `\n` of its `\r\n` may arrive in the next chunk.
 *
 * @example parseSse('event: token\ndata: {"text":"Hi"}\n\nevent: do')
 * // { messages: [{ event: 'token', data: '{"text":"Hi"}', id: null }], rest: 'event: do' }
 */
export function parseSse(buffer: string): { messages: SseMessage[]; rest: string } {
  const held = buffer.endsWith('\r') ? '\r' : '';
  const text = buffer.slice(0, buffer.length - held.length).replace(/\r\n?/g, '\n');
  const end = text.lastIndexOf('\n\n');
  if (end < 0) return { messages: [], rest: text + held };
  const messages: SseMessage[] = [];
  for (const block of text.slice(0, end).split('\n\n')) {
    const m = parseBlock(block);
    if (m !== null) messages.push(m);
  }
  return { messages, rest: text.slice(end + 2) + held };
}

/** One event's lines (no blank line inside) as a message, or null when it has no data. */
function parseBlock(block: string): SseMessage | null {
  let event = 'message';
  let id: string | null = null;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) id = value;
  }
  return data.length === 0 ? null : { event, data: data.join('\n'), id };
}
