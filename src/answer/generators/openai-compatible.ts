/**
 * A generator over any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp,
 * Ollama, LM Studio …) through the `openai` SDK. A thin adapter: it converts the prompt to two
 * messages, errors to QuiverErrors and the reply to a `GenerateResult`.
 */
import { openaiSdk } from '../../_openai.js';
import { QuiverError } from '../../errors.js';
import { splitReasoning } from '../citations.js';
import { estimateTokens, type GenerateOptions, type GenerateResult, type Generator } from '../generator.js';
import type { Prompt } from '../prompt.js';

export { generateWithShrink } from '../generator.js';

export const DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY';
export const DEFAULT_TEMPERATURE = 0;
export const DEFAULT_MAX_TOKENS = 512;
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 3;
/** Sent as the bearer token when the key variable is unset (local servers ignore it). */
export const NO_API_KEY = 'no-key';

export interface OpenAIGeneratorOptions {
  /** e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`. */
  baseURL: string;
  model: string;
  /** Environment variable holding the API key. Defaults to `OPENAI_API_KEY`. */
  apiKeyEnv?: string;
  /** Defaults to 0. */
  temperature?: number;
  /** Completion token cap. Defaults to 512. */
  maxTokens?: number;
  /** Per-attempt timeout. Defaults to 60 000 ms. */
  timeoutMs?: number;
  /** Retries on 408/409/429/5xx and connection errors, with the SDK's exponential backoff. Defaults to 3. */
  maxRetries?: number;
  /** Where `apiKeyEnv` is read. Defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Phrases servers use when the prompt does not fit the model's context window. */
const CONTEXT_WINDOW =
  /context[ _-]?(?:length|window|size)|maximum context|max(?:imum)?[ _-]?(?:context|model)[ _-]?len|too many tokens|prompt is too long|(?:exceeds?|exceeded).{0,40}(?:context|tokens?)|reduce the length/iu;

/** True when an error message says the prompt exceeded the context window. */
export function isContextWindowMessage(message: string): boolean {
  return CONTEXT_WINDOW.test(message);
}

function nonEmpty(name: string, value: string): string {
  if (typeof value !== 'string' || value.trim().length === 0) {
    throw new QuiverError(
      'BAD_INPUT',
      `quiver: ${name} must be a nonempty string, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function nonNegativeInt(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) {
    throw new QuiverError('BAD_INPUT', `quiver: ${name} must be an integer ≥ ${min}, got ${String(value)}`);
  }
  return value;
}

/**
 * Map an SDK error to a QuiverError: a user abort → ABORTED; a timeout → TIMEOUT; an HTTP 400/413
 * whose message mentions the context window → REMOTE with `details.contextWindow = true`; any other
 * HTTP error → REMOTE with `details.status`; a connection failure → REMOTE.
 */
export function toQuiverError(e: unknown, where: string, signal?: AbortSignal): QuiverError {
  if (e instanceof QuiverError) return e;
  if (e instanceof openaiSdk().APIUserAbortError || signal?.aborted === true) {
    return new QuiverError('ABORTED', `quiver: generation at ${where} was aborted`, { cause: e });
  }
  if (e instanceof openaiSdk().APIConnectionTimeoutError) {
    return new QuiverError('TIMEOUT', `quiver: ${where} did not answer in time`, { cause: e });
  }
  if (e instanceof openaiSdk().APIError && e.status !== undefined) {
    const message = e.message;
    const contextWindow = (e.status === 400 || e.status === 413) && isContextWindowMessage(message);
    return new QuiverError('REMOTE', `quiver: ${where} answered HTTP ${e.status}: ${message}`, {
      cause: e,
      details: { status: e.status, contextWindow },
    });
  }
  if (e instanceof openaiSdk().APIConnectionError) {
    return new QuiverError('REMOTE', `quiver: could not reach ${where}: ${e.message}`, { cause: e });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new QuiverError('REMOTE', `quiver: ${where} failed: ${message}`, { cause: e });
}

/**
 * Create a generator that calls `POST <baseURL>/chat/completions` with a system and a user message.
 *
 * With `onToken` it streams (SSE) and passes each content piece on as it arrives (reasoning
 * included; the returned text has it stripped). The returned text has `<think>…</think>` blocks
 * removed. Usage comes from the reply, or is estimated as ⌈chars/4⌉ when the server sends none.
 * Errors are QuiverErrors (see `toQuiverError`); a context-window error can be retried with a smaller
 * prompt by `generateWithShrink`.
 * @example
 * const gen = createOpenAIGenerator({ baseURL: 'http://127.0.0.1:8080/v1', model: 'qwen3-4b' });
 * const { text } = await gen.generate(buildPrompt(question, sections));
 */
export function createOpenAIGenerator(options: OpenAIGeneratorOptions): Generator {
  const baseURL = nonEmpty('baseURL', options.baseURL);
  const model = nonEmpty('model', options.model);
  const apiKeyEnv = options.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
  const temperature = options.temperature ?? DEFAULT_TEMPERATURE;
  if (!Number.isFinite(temperature) || temperature < 0) {
    throw new QuiverError('BAD_INPUT', `quiver: temperature must be ≥ 0, got ${String(temperature)}`);
  }
  const maxTokens = nonNegativeInt('maxTokens', options.maxTokens ?? DEFAULT_MAX_TOKENS, 1);
  const timeout = nonNegativeInt('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 1);
  const maxRetries = nonNegativeInt('maxRetries', options.maxRetries ?? DEFAULT_MAX_RETRIES, 0);
  const env = options.env ?? process.env;
  const client = new (openaiSdk().OpenAI)({
    baseURL,
    apiKey: env[apiKeyEnv] ?? NO_API_KEY,
    timeout,
    maxRetries,
  });
  const where = `${baseURL} (model ${model})`;

  return {
    id: `openai:${model}@${baseURL}:t${temperature}`,
    async generate(prompt: Prompt, generateOptions: GenerateOptions = {}): Promise<GenerateResult> {
      const { signal, onToken } = generateOptions;
      const body = {
        model,
        messages: [
          { role: 'system' as const, content: prompt.system },
          { role: 'user' as const, content: prompt.user },
        ],
        temperature,
        max_tokens: generateOptions.maxTokens ?? maxTokens,
      };
      const requestOptions = signal === undefined ? {} : { signal };
      let raw = '';
      let usage: { prompt_tokens: number; completion_tokens: number } | null = null;
      try {
        if (onToken === undefined) {
          const reply = await client.chat.completions.create({ ...body, stream: false }, requestOptions);
          const choice = reply.choices[0];
          if (choice === undefined) throw new QuiverError('REMOTE', `quiver: ${where} returned no choices`);
          raw = choice.message.content ?? '';
          usage = reply.usage ?? null;
        } else {
          const stream = await client.chat.completions.create(
            { ...body, stream: true, stream_options: { include_usage: true } },
            requestOptions,
          );
          for await (const chunk of stream) {
            const piece = chunk.choices[0]?.delta?.content;
            if (typeof piece === 'string' && piece.length > 0) {
              raw += piece;
              onToken(piece);
            }
            if (chunk.usage != null) usage = chunk.usage;
          }
        }
      } catch (e) {
        throw toQuiverError(e, where, signal);
      }
      const text = splitReasoning(raw).answer;
      return {
        text,
        usage:
          usage === null
            ? {
                promptTokens: estimateTokens(`${prompt.system}\n${prompt.user}`),
                completionTokens: estimateTokens(raw),
              }
            : { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens },
      };
    },
  };
}
