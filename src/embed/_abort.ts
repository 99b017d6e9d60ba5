/** Shared by the embedders: the error an honoured AbortSignal turns into. Internal. */
import { QuiverError } from '../errors.js';

/** QuiverError('ABORTED') carrying the signal's reason as `cause`. */
export function abortedError(signal: AbortSignal): QuiverError {
  return new QuiverError('ABORTED', 'quiver: embedding was aborted', { cause: signal.reason });
}
