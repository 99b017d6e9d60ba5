/**
 * Test helper (internal): a real `node:http` server on 127.0.0.1 that speaks `/v1/embeddings`.
 * By default it answers with deterministic, deliberately unnormalised vectors derived from each
 * input text (the hashing embedder scaled by 3); tests queue one-shot behaviours (an error status,
 * a hang, a malformed body) to exercise retries, timeouts and reply checks. Records every request.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHashingEmbedder } from './hashing.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** One queued reply: a status with a JSON (or raw text) body, a hang, or a function of the request. */
export type FakeBehaviour =
  | { status: number; json?: unknown; text?: string; headers?: Record<string, string> }
  | 'hang'
  | ((req: RecordedRequest, inputs: string[]) => { status: number; json?: unknown; text?: string });

export interface FakeEmbeddingsServer {
  /** Base URL including `/v1`. */
  url: string;
  dims: number;
  requests: RecordedRequest[];
  /** Queue behaviours for the next requests, in order; afterwards the default answer resumes. */
  enqueue(...behaviours: FakeBehaviour[]): void;
  /** The default (correct) reply body for these inputs. */
  answer(inputs: string[]): unknown;
  close(): Promise<void>;
}

/** Starts the server on an ephemeral loopback port. `dims` of the default vectors: 32. */
export async function startFakeEmbeddingsServer(dims = 32): Promise<FakeEmbeddingsServer> {
  const hashing = createHashingEmbedder({ dims });
  const requests: RecordedRequest[] = [];
  const queue: FakeBehaviour[] = [];
  const answer = (inputs: string[]): unknown => ({
    object: 'list',
    model: 'fake',
    data: inputs.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: Array.from(hashing.embedOne(text), (x) => x * 3),
    })),
    usage: { prompt_tokens: 0, total_tokens: 0 },
  });

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        body = undefined;
      }
      const rec: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
      };
      requests.push(rec);
      const raw = (body as { input?: unknown } | undefined)?.input;
      const inputs = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? [raw] : [];
      const b: FakeBehaviour = queue.shift() ?? (() => ({ status: 200, json: answer(inputs) }));
      if (b === 'hang') return; // never answer; close() destroys the socket
      const r: { status: number; json?: unknown; text?: string } =
        typeof b === 'function' ? b(rec, inputs) : b;
      const headers = { ...(typeof b === 'object' ? b.headers : {}) };
      if (r.text !== undefined) {
        res.writeHead(r.status, { 'content-type': 'text/plain', ...headers }).end(r.text);
      } else {
        res
          .writeHead(r.status, { 'content-type': 'application/json', ...headers })
          .end(JSON.stringify(r.json ?? {}));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    dims,
    requests,
    enqueue: (...b) => queue.push(...b),
    answer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
