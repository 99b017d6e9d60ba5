/**
 * The LLM judge: an OpenAI-compatible chat model asked, per (claim, source), whether the source on
 * its own supports the claim, answering yes or no at temperature 0. Verdicts are cached by the
 * SHA-256 of (model, source text, claim text) in an injectable cache, so re-running an eval asks
 * each pair once; the vault can persist the cache through the `{get, set}` interface.
 */
import { createHash } from 'node:crypto';
import type OpenAI from 'openai';
import { openaiSdk } from '../../_openai.js';
import { QuiverError } from '../../errors.js';
import type { Judge, JudgeCallOptions, JudgeClaim, JudgeSource } from './judge.js';

/** Retries of a failed call (429, 5xx, connection errors), done by the SDK with backoff. */
export const DEFAULT_LLM_JUDGE_MAX_RETRIES = 3;
/** Per-request timeout in milliseconds. */
export const DEFAULT_LLM_JUDGE_TIMEOUT_MS = 60_000;
/** Longest completion asked for: one word is enough, a little slack for reasoning models' chatter. */
export const DEFAULT_LLM_JUDGE_MAX_TOKENS = 16;

/** The instruction sent as the system message. */
export const LLM_JUDGE_SYSTEM_PROMPT =
  'You check whether a source text supports a claim. Answer "yes" only if everything the claim ' +
  'states follows from the source alone; otherwise answer "no". Reply with one word: yes or no.';

/** A persistent verdict store keyed by content hash (e.g. a table in the vault). */
export interface VerdictCache {
  get(key: string): Promise<boolean | undefined>;
  set(key: string, verdict: boolean): Promise<void>;
}

export interface LlmJudgeOptions {
  model: string;
  /** An OpenAI-compatible base URL such as `http://127.0.0.1:11434/v1`. Ignored when `client` is given. */
  baseURL?: string;
  /** API key; local servers usually accept any value. Ignored when `client` is given. */
  apiKey?: string;
  /** A ready client (tests, shared configuration). */
  client?: OpenAI;
  /** A Map (in-memory, the default is a fresh one) or a persistent `VerdictCache`. */
  cache?: Map<string, boolean> | VerdictCache;
  maxRetries?: number;
  timeoutMs?: number;
  maxTokens?: number;
}

/** The judge plus its counters (cache hits and requests made), for reports. */
export interface LlmJudge extends Judge {
  readonly stats: { requests: number; cacheHits: number };
}

/** The cache key: SHA-256 (hex) of the model, the source text and the claim text. */
export function verdictKey(model: string, sourceText: string, claimText: string): string {
  return createHash('sha256')
    .update(JSON.stringify([model, sourceText, claimText]))
    .digest('hex');
}

/**
 * Read a yes/no verdict from a model reply: reasoning blocks (`<think>…</think>`) are removed; a
 * reply starting with yes/no (any case, after punctuation or markdown) decides; otherwise the
 * verdict is the only one of the words "yes"/"no" that occurs. Anything else → null.
 *
 * @example parseYesNo('**Yes.** The source says so.') // true
 */
export function parseYesNo(reply: string): boolean | null {
  const text = reply
    .replace(/<think>[\s\S]*?<\/think>/giu, ' ')
    .replace(/^[\s\S]*<\/think>/iu, ' ')
    .toLowerCase();
  const lead = /^[^a-z]*(yes|no)\b/u.exec(text);
  if (lead !== null) return lead[1] === 'yes';
  const hasYes = /\byes\b/u.test(text);
  const hasNo = /\bno\b/u.test(text);
  if (hasYes !== hasNo) return hasYes;
  return null;
}

/** The user message for one (source, claim) pair. */
export function judgePrompt(sourceText: string, claimText: string): string {
  return `Source:\n${sourceText}\n\nClaim:\n${claimText}\n\nDoes the source alone support the claim? Answer yes or no.`;
}

function mapCache(map: Map<string, boolean>): VerdictCache {
  return {
    get: (key) => Promise.resolve(map.get(key)),
    set: (key, verdict) => {
      map.set(key, verdict);
      return Promise.resolve();
    },
  };
}

/** Create the LLM judge (`id: 'llm:<model>'`, `proxy: false`). */
export function createLlmJudge(options: LlmJudgeOptions): LlmJudge {
  if (options.model.trim() === '')
    throw new QuiverError('CONFIG', 'quiver: judge model must be a model name, got ""');
  const client =
    options.client ??
    new (openaiSdk().OpenAI)({
      apiKey: options.apiKey ?? 'not-needed',
      maxRetries: options.maxRetries ?? DEFAULT_LLM_JUDGE_MAX_RETRIES,
      timeout: options.timeoutMs ?? DEFAULT_LLM_JUDGE_TIMEOUT_MS,
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    });
  const cache: VerdictCache =
    options.cache instanceof Map ? mapCache(options.cache) : (options.cache ?? mapCache(new Map()));
  const inFlight = new Map<string, Promise<boolean>>();
  const stats = { requests: 0, cacheHits: 0 };
  const model = options.model;

  async function ask(
    source: JudgeSource,
    claim: JudgeClaim,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    stats.requests++;
    let reply: string;
    try {
      const res = await client.chat.completions.create(
        {
          model,
          temperature: 0,
          max_tokens: options.maxTokens ?? DEFAULT_LLM_JUDGE_MAX_TOKENS,
          messages: [
            { role: 'system', content: LLM_JUDGE_SYSTEM_PROMPT },
            { role: 'user', content: judgePrompt(source.text, claim.text) },
          ],
        },
        signal === undefined ? {} : { signal },
      );
      reply = res.choices[0]?.message.content ?? '';
    } catch (e) {
      if (e instanceof openaiSdk().APIUserAbortError)
        throw new QuiverError('ABORTED', 'quiver: judge call aborted', { cause: e });
      if (e instanceof openaiSdk().APIConnectionTimeoutError) {
        throw new QuiverError('TIMEOUT', `quiver: judge model ${model} timed out`, { cause: e });
      }
      if (e instanceof openaiSdk().APIError) {
        throw new QuiverError('REMOTE', `quiver: judge model ${model} failed: ${e.message}`, {
          cause: e,
          details: { status: e.status },
        });
      }
      throw e;
    }
    const verdict = parseYesNo(reply);
    if (verdict === null) {
      throw new QuiverError(
        'REMOTE',
        `quiver: judge model ${model} did not answer yes or no, got ${JSON.stringify(reply.slice(0, 80))}`,
      );
    }
    return verdict;
  }

  return {
    id: `llm:${model}`,
    proxy: false,
    stats,
    async supports(
      source: JudgeSource,
      claim: JudgeClaim,
      callOptions: JudgeCallOptions = {},
    ): Promise<boolean> {
      const key = verdictKey(model, source.text, claim.text);
      const cached = await cache.get(key);
      if (cached !== undefined) {
        stats.cacheHits++;
        return cached;
      }
      let pending = inFlight.get(key);
      if (pending === undefined) {
        pending = ask(source, claim, callOptions.signal).then(async (v) => {
          await cache.set(key, v);
          return v;
        });
        inFlight.set(key, pending);
        void pending.then(
          () => inFlight.delete(key),
          () => inFlight.delete(key),
        );
      } else {
        stats.cacheHits++;
      }
      return pending;
    },
  };
}
