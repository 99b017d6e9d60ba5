/**
 * One worker thread of `quiver search --queries` (`batch-search.ts`): opens the vault read-only
 * with the settings the command was given, then answers `{ i, id, text }` messages with the
 * query's JSON line as bytes (`{ i, line }`, the buffer transferred) or its failure
 * (`{ i, error: { code, message } }`). Warnings were already printed by the main thread's open.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isQuiverError } from '../errors.js';
import { Vault } from '../vault.js';
import { hitJson } from '../wire/hits.js';
import type { BatchSetup, QueryMessage, ReplyMessage } from './batch-search.js';
import { jsonLine } from './json-line.js';

const port = parentPort;
if (port === null) throw new Error('quiver: batch-search-worker runs only as a worker thread');
const setup = workerData as BatchSetup;
const failure = (e: unknown): { code: string; message: string } =>
  isQuiverError(e)
    ? { code: e.code, message: e.message }
    : { code: 'INTERNAL', message: `quiver: ${(e as Error).message ?? String(e)}` };

let vault: Vault;
try {
  vault = await Vault.open({ ...setup.open, readonly: true, logger: { warn: () => undefined } });
} catch (e) {
  port.postMessage({ i: -1, error: failure(e) } satisfies ReplyMessage);
  throw e;
}
port.on('message', (m: QueryMessage) => {
  vault.search(m.text, setup.options).then(
    (r) => {
      const line = jsonLine({ id: m.id, results: r.hits.map(hitJson) });
      port.postMessage({ i: m.i, line } satisfies ReplyMessage, [line.buffer as ArrayBuffer]);
    },
    (e: unknown) => port.postMessage({ i: m.i, error: failure(e) } satisfies ReplyMessage),
  );
});
port.postMessage({ i: -1 } satisfies ReplyMessage);
