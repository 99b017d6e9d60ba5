import { createRequire } from 'node:module';

/** The openai SDK's module type (its client class and error classes). */
export type OpenAISdk = typeof import('openai');

const require = createRequire(import.meta.url);
let sdk: OpenAISdk | undefined;

/**
 * The openai SDK, loaded on first use: it costs about 0.2 s to load, and a search or an offline
 * answer never needs it. Every user in the library (embedder, generator, judge) goes through this
 * one loader, so the classes its `instanceof` checks use are those its clients throw.
 */
export function openaiSdk(): OpenAISdk {
  return (sdk ??= require('openai') as OpenAISdk);
}
