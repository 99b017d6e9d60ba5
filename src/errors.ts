/**
 * One error class for the whole library. Every failure a caller can act on carries a typed `code`;
 * the CLI (`src/cli/exit-codes.ts`) and, later, the server map codes to exit codes and HTTP statuses
 * in one place each. Library code never logs or exits.
 */
export const ERROR_CODES = {
  BAD_INPUT: 'The input is malformed or out of range.',
  NOT_FOUND: 'The thing asked for does not exist.',
  UNSUPPORTED_FILE: 'The file type cannot be read.',
  FILE_TOO_LARGE: 'The file is larger than the configured limit.',
  BINARY_FILE: 'The file looks binary.',
  INVALID_UTF8: 'The file is not valid UTF-8.',
  EMPTY_FILE: 'The file has no text.',
  CORRUPT_FILE: 'The file is damaged and cannot be parsed.',
  UNREADABLE: 'The path cannot be read.',
  CONFIG: 'The configuration is invalid.',
  EMBEDDER_MISMATCH: 'The vault was built with a different embedder.',
  SCHEMA: 'The vault file has an unknown or newer schema.',
  STORE: 'The store failed.',
  REMOTE: 'A remote service failed or answered badly.',
  TIMEOUT: 'A remote call took too long.',
  ABORTED: 'The operation was aborted.',
  BUDGET: 'The token budget would be exceeded.',
  CONFLICT: 'The operation conflicts with the state of the vault.',
  FORBIDDEN: 'The caller may not do this (its role, or a path outside the allowed roots).',
  UNSUPPORTED:
    "The vault's store cannot do this (a capability its backend lacks), or its driver is not installed.",
  NO_SPACE: 'The disk is full: the write was rolled back and nothing was half-written.',
  INTERNAL: 'An unexpected internal error.',
} as const;

export type QuiverErrorCode = keyof typeof ERROR_CODES;

export interface QuiverErrorOptions {
  cause?: unknown;
  /** Structured detail for machines (a path, a field name, the offending value). */
  details?: Record<string, unknown>;
}

/**
 * `new QuiverError('BAD_INPUT', 'quiver: limit must be > 0, got -3')`. Messages name quiver, the
 * field and the value.
 */
export class QuiverError extends Error {
  override readonly name = 'QuiverError';
  readonly code: QuiverErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: QuiverErrorCode, message: string, options: QuiverErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }
}

/** True when `e` is a QuiverError, optionally with the given code. */
export function isQuiverError(e: unknown, code?: QuiverErrorCode): e is QuiverError {
  return e instanceof QuiverError && (code === undefined || e.code === code);
}
