/**
 * When a failed job runs again: exponential backoff with full jitter (AWS Architecture Blog,
 * "Exponential Backoff And Jitter"), so many jobs that failed together do not retry together.
 */

export interface BackoffOptions {
  /** The first retry's ceiling (ms). Default 1,000. */
  baseMs?: number;
  /** No wait is longer than this (ms). Default 300,000 (5 min). */
  capMs?: number;
}

/**
 * delay(attempt) = random · min(cap, base · 2^(attempt − 1)), with random ∈ [0, 1).
 * Edge cases: attempt < 1 is read as 1 (the first retry); a huge attempt saturates at `cap`
 * (2^attempt would overflow to Infinity, min keeps it finite); random outside [0, 1) is clamped,
 * so the delay is always in [0, cap].
 */
export function retryDelayMs(attempt: number, random: number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? 1000;
  const cap = options.capMs ?? 300_000;
  const n = Math.max(1, Math.floor(Number.isFinite(attempt) ? attempt : 1));
  const ceiling = Math.min(cap, base * 2 ** Math.min(n - 1, 1023));
  const r = Number.isFinite(random) ? Math.min(Math.max(random, 0), 1) : 0;
  return Math.floor(r * ceiling);
}

/**
 * The time a job that failed its `attempt`-th try runs again, or null when it has had
 * `maxAttempts` tries (it goes to the dead letter): attempt ≥ maxAttempts → null; else
 * now + retryDelayMs(attempt, random).
 */
export function nextRunAt(
  now: number,
  attempt: number,
  maxAttempts: number,
  random: number,
  options: BackoffOptions = {},
): number | null {
  if (attempt >= maxAttempts) return null;
  return now + retryDelayMs(attempt, random, options);
}
