/**
 * The page's one door to the server: the public HTTP API with the user's bearer token. Every
 * failure becomes an `ApiError` with the server's code and message (`{error: {code, message}}`),
 * or a code of the page's own when the server could not be reached or did not answer JSON.
 */
import type { ErrorJson } from './wire.js';

export class ApiError extends Error {
  constructor(
    /** HTTP status, or 0 when no reply arrived. */
    readonly status: number,
    /** The server's error code (`UNAUTHORIZED`, `RATE_LIMITED`, …) or `NETWORK` / `BAD_REPLY`. */
    readonly code: string,
    message: string,
    /** Seconds to wait before retrying (429), when the server said. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** What a person should do about an error, by status: shown under the server's message. */
export function adviceFor(e: ApiError): string {
  if (e.status === 401) return 'The token was not accepted. Enter a valid token again.';
  if (e.status === 403) return 'This token’s role does not allow that; use a token with a higher role.';
  if (e.status === 429)
    return e.retryAfter === null
      ? 'Too many requests for this token; wait a moment and try again.'
      : `Too many requests for this token; try again in ${e.retryAfter} s.`;
  if (e.status === 0) return 'Is `quiver serve` still running?';
  if (e.status >= 500) return 'The server failed; its log says why.';
  return '';
}

/** The ApiError of a failed reply: the server's `{error}` body when it sent one. */
export async function errorOf(res: Response): Promise<ApiError> {
  const retry = Number(res.headers.get('retry-after'));
  const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : null;
  try {
    const body = (await res.json()) as Partial<ErrorJson>;
    if (typeof body.error?.message === 'string')
      return new ApiError(res.status, body.error.code ?? 'ERROR', body.error.message, retryAfter);
  } catch {
    // not JSON: fall through
  }
  return new ApiError(
    res.status,
    'BAD_REPLY',
    `The server answered ${res.status} ${res.statusText}`,
    retryAfter,
  );
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  /** Sent as JSON, or as it is when `FormData` (multipart, with the browser's boundary). */
  body?: unknown;
  accept?: string;
  signal?: AbortSignal;
}

/**
 * `fetch` with the token, a JSON (or multipart `FormData`) body when given; a non-2xx reply or no
 * reply throws an ApiError.
 */
export async function call(path: string, token: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    accept: options.accept ?? 'application/json',
  };
  if (options.body !== undefined && !(options.body instanceof FormData))
    headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers,
      ...(options.body === undefined
        ? {}
        : { body: options.body instanceof FormData ? options.body : JSON.stringify(options.body) }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    throw new ApiError(0, 'NETWORK', 'The server could not be reached.');
  }
  if (!res.ok) throw await errorOf(res);
  return res;
}

/** `call` and its JSON reply. */
export async function getJson<T>(path: string, token: string, options: CallOptions = {}): Promise<T> {
  const res = await call(path, token, options);
  try {
    return (await res.json()) as T;
  } catch {
    throw new ApiError(res.status, 'BAD_REPLY', 'The server’s reply was not JSON.');
  }
}
