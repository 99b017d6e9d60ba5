import { isQuiverError, type QuiverErrorCode } from '../errors.js';

/**
 * The one place MCP turns library errors into tool errors (as `server/http-status.ts` does for
 * HTTP statuses and `cli/exit-codes.ts` for exit codes). A failed tool call is a result with
 * `isError: true` that a model reads: the error's code, its message (which names the field and
 * value), and what to do next. Exhaustive by type: a new error code does not compile until it
 * has a hint here.
 */
export const NEXT_STEP: Readonly<Record<QuiverErrorCode, string>> = {
  BAD_INPUT: 'Fix the argument named in the message and call the tool again.',
  NOT_FOUND:
    'Take ids from `search` or `context` results (section ids look like `<doc>#<n>`); do not guess them.',
  UNSUPPORTED_FILE: 'Give Markdown, HTML, PDF, plain text or JSON Lines.',
  FILE_TOO_LARGE: 'Split the text into smaller pieces and add them one by one.',
  BINARY_FILE: 'Give text, not binary content.',
  INVALID_UTF8: 'Give UTF-8 text.',
  EMPTY_FILE: 'Give some text.',
  CORRUPT_FILE: 'The file cannot be parsed; give another one or its text.',
  UNREADABLE: 'Check that the path exists and is readable on the server.',
  CONFIG: 'The vault is misconfigured; tell the person running it (the message says which setting).',
  EMBEDDER_MISMATCH: 'The vault needs `quiver reindex`; tell the person running it.',
  SCHEMA: 'The vault file is from another quiver version; tell the person running it.',
  STORE: 'The vault failed; try again later or tell the person running it.',
  REMOTE: 'The model server failed; try again, or use the extractive generator.',
  TIMEOUT: 'The model server took too long; try again with a shorter question or fewer sections.',
  ABORTED: 'The call was cancelled; nothing more was done.',
  BUDGET: 'The token budget is spent; use `search` or `context` instead of `ask`.',
  CONFLICT: 'Another process is writing the vault; wait a moment and call the tool again.',
  FORBIDDEN: 'This session may not do that; ask the person running quiver for a token with the needed role.',
  UNSUPPORTED: "The vault's store cannot do this; do without it, or tell the person running quiver.",
  NO_SPACE: 'The disk is full; nothing was written. Tell the person running quiver.',
  INTERNAL: 'An unexpected error; the server log has the details.',
};

/** A tool's failure as the model sees it (the `isError` result of `tools/call`). */
export interface ToolError {
  [key: string]: unknown;
  isError: true;
  content: { type: 'text'; text: string }[];
}

/**
 * The tool result for anything thrown by a tool: a QuiverError keeps its code and message;
 * anything else is INTERNAL with a fixed message (told to `log`), so no stack trace reaches a
 * client. The text is one JSON object, `{"error": {"code", "message", "next"}}`.
 */
export function toolError(e: unknown, log?: (line: string) => void): ToolError {
  let code: QuiverErrorCode = 'INTERNAL';
  let message = 'quiver: internal error (see the server log)';
  if (isQuiverError(e)) ({ code, message } = e);
  else log?.(`mcp: tool failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify({ error: { code, message, next: NEXT_STEP[code] } }) }],
  };
}
