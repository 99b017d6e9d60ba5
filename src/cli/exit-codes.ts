import type { QuiverErrorCode } from '../errors.js';

/** The one place error codes become process exit codes. README's table is generated from the same rows. */
export const EXIT = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  NOT_FOUND: 3,
  PARTIAL: 4,
  INCOMPATIBLE: 5,
  REMOTE: 6,
  BUDGET: 7,
  CONFLICT: 8,
  NO_SPACE: 9,
  ABORTED: 130,
} as const;

/** Every exit code, what it means, and the library error codes that lead to it (README's table). */
export const EXIT_TABLE: readonly { exit: number; meaning: string; codes: readonly QuiverErrorCode[] }[] = [
  { exit: EXIT.OK, meaning: 'success', codes: [] },
  {
    exit: EXIT.FAILURE,
    meaning:
      'the store failed (a damaged or unreadable vault) or an internal error (`QUIVER_DEBUG=1` prints the stack)',
    codes: ['STORE', 'INTERNAL'],
  },
  {
    exit: EXIT.USAGE,
    meaning:
      "bad input, options or configuration, a request not allowed, or one the vault's store cannot do (or its driver is missing); nothing was changed",
    codes: ['BAD_INPUT', 'CONFIG', 'FORBIDDEN', 'UNSUPPORTED'],
  },
  {
    exit: EXIT.NOT_FOUND,
    meaning:
      'not found: a document, section, input path, output folder, a missing vault for a command that only reads, or nothing to fit yet',
    codes: ['NOT_FOUND'],
  },
  {
    exit: EXIT.PARTIAL,
    meaning: 'some files failed (the good ones were ingested)',
    codes: [
      'UNSUPPORTED_FILE',
      'FILE_TOO_LARGE',
      'BINARY_FILE',
      'INVALID_UTF8',
      'EMPTY_FILE',
      'CORRUPT_FILE',
      'UNREADABLE',
    ],
  },
  {
    exit: EXIT.INCOMPATIBLE,
    meaning: 'incompatible vault: another embedder, a newer schema, or a file that is not a quiver vault',
    codes: ['EMBEDDER_MISMATCH', 'SCHEMA'],
  },
  {
    exit: EXIT.REMOTE,
    meaning: 'a remote service (model server) failed or timed out',
    codes: ['REMOTE', 'TIMEOUT'],
  },
  {
    exit: EXIT.BUDGET,
    meaning: 'the token budget would be exceeded; no model was called',
    codes: ['BUDGET'],
  },
  {
    exit: EXIT.CONFLICT,
    meaning:
      'conflict: another process is writing the vault, the SQLite file is locked, or the target exists',
    codes: ['CONFLICT'],
  },
  {
    exit: EXIT.NO_SPACE,
    meaning: 'the disk is full: the write was rolled back, nothing half-written',
    codes: ['NO_SPACE'],
  },
  {
    exit: EXIT.ABORTED,
    meaning: 'aborted (Ctrl-C: the document in hand is finished, the batch is marked interrupted)',
    codes: ['ABORTED'],
  },
];

const BY_CODE = new Map<QuiverErrorCode, number>(
  EXIT_TABLE.flatMap((row) => row.codes.map((c) => [c, row.exit] as const)),
);

/** The exit code for a library error code (every code is in `EXIT_TABLE`; a test checks it). */
export function exitCodeFor(code: QuiverErrorCode): number {
  return BY_CODE.get(code) ?? EXIT.FAILURE;
}
