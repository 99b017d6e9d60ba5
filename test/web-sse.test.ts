// The page's Server-Sent Events parser (web/src/sse.ts), against the WHATWG rules it follows.
import { describe, expect, it } from 'vitest';
import { parseSse } from '../web/src/sse.js';

describe('parseSse', () => {
  it('reads named events with ids and keeps an unfinished one for the next chunk', () => {
    const r = parseSse('event: token\nid: 3\ndata: {"text":"Hi"}\n\nevent: do');
    expect(r.messages).toEqual([{ event: 'token', data: '{"text":"Hi"}', id: '3' }]);
    expect(r.rest).toBe('event: do');
    const next = parseSse(`${r.rest}ne\ndata: {}\n\n`);
    expect(next).toEqual({ messages: [{ event: 'done', data: '{}', id: null }], rest: '' });
  });

  it('joins data lines, skips comments, strips one leading space and defaults the name', () => {
    const r = parseSse(': keep-alive\ndata:  two spaces\ndata:b\n\n');
    expect(r.messages).toEqual([{ event: 'message', data: ' two spaces\nb', id: null }]);
  });

  it('accepts \\r\\n and \\r line ends, holding back a \\r that may be half of \\r\\n', () => {
    expect(parseSse('data: a\r\n\r\ndata: b\r\rdata: c\r').messages.map((m) => m.data)).toEqual(['a', 'b']);
    const held = parseSse('data: x\r\n\r');
    expect(held.messages).toEqual([]);
    expect(parseSse(`${held.rest}\n`).messages).toEqual([{ event: 'message', data: 'x', id: null }]);
  });

  it('dispatches nothing for an event without data, or for empty input', () => {
    expect(parseSse('event: ping\n\n').messages).toEqual([]);
    expect(parseSse('')).toEqual({ messages: [], rest: '' });
    expect(parseSse('\n\n\n\n').messages).toEqual([]);
  });

  it('gives the same events however the stream is cut into chunks', () => {
    const stream = 'event: context\ndata: {"a":1}\n\nevent: token\ndata: x\r\n\r\nevent: done\ndata: {}\n\n';
    const whole = parseSse(stream).messages;
    for (let cut = 0; cut <= stream.length; cut++) {
      const a = parseSse(stream.slice(0, cut));
      const b = parseSse(a.rest + stream.slice(cut));
      expect([...a.messages, ...b.messages]).toEqual(whole);
    }
  });
});
