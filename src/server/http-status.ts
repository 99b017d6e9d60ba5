import { isQuiverError, type QuiverErrorCode } from '../errors.js';

/**
 * The one place the server turns library error codes into HTTP statuses (as `cli/exit-codes.ts`
 * does for exit codes). Exhaustive by type: a new error code does not compile until it has a
 * status here. 4xx when the request can be fixed by its sender, 5xx when the service failed.
 */
export const HTTP_STATUS: Readonly<Record<QuiverErrorCode, number>> = {
  BAD_INPUT: 400,
  NOT_FOUND: 404,
  UNSUPPORTED_FILE: 415,
  FILE_TOO_LARGE: 413,
  BINARY_FILE: 415,
  INVALID_UTF8: 422,
  EMPTY_FILE: 422,
  CORRUPT_FILE: 422,
  UNREADABLE: 422,
  // A per-request setting that is wrong arrives as BAD_INPUT; CONFIG is the server's own.
  CONFIG: 500,
  EMBEDDER_MISMATCH: 409,
  SCHEMA: 500,
  STORE: 500,
  REMOTE: 502,
  TIMEOUT: 504,
  // The client went away (nginx's "client closed request"); nobody reads the reply.
  ABORTED: 499,
  // A quota, like a rate limit: the token's budget is spent.
  BUDGET: 429,
  CONFLICT: 409,
  FORBIDDEN: 403,
  // The vault's store lacks the capability (a backup of a server database) or its driver.
  UNSUPPORTED: 501,
  NO_SPACE: 507,
  INTERNAL: 500,
};

/** What the server answers for a failure: `{error: {code, message}}` and its status. */
export interface ErrorReply {
  status: number;
  body: { error: { code: QuiverErrorCode; message: string } };
}

/**
 * The reply for anything thrown while serving a request. A QuiverError keeps its code and message
 * (messages name the field and value, never a secret); anything else becomes INTERNAL with a fixed
 * message, so a stack trace or an exception's text never reaches a client.
 */
export function errorReply(e: unknown): ErrorReply {
  if (isQuiverError(e))
    return { status: HTTP_STATUS[e.code], body: { error: { code: e.code, message: e.message } } };
  return {
    status: 500,
    body: { error: { code: 'INTERNAL', message: 'quiver: internal error (see the server log)' } },
  };
}
