import { createHash } from 'node:crypto';
import type { Config } from '../config.js';

/** Config keys whose values must never reach a transcript (none hold secrets today: keys live in env vars). */
const SECRET_KEY = /(secret|password|apiKey)$/i;

/**
 * The configuration as a transcript records it: secret-named keys dropped and credentials in URLs
 * redacted; and its fingerprint, SHA-256 (hex) of that object's JSON with keys sorted.
 */
export function transcriptConfig(c: Config): { config: Record<string, unknown>; fingerprint: string } {
  const config: Record<string, unknown> = {};
  for (const k of Object.keys(c).sort()) {
    if (SECRET_KEY.test(k)) continue;
    const v = (c as Record<string, unknown>)[k];
    config[k] =
      typeof v === 'string'
        ? v.replace(/\/\/[^/@\s]*@/, '//***@').replace(/([?&]password=)[^&#]*/gi, '$1***')
        : v;
  }
  return { config, fingerprint: createHash('sha256').update(JSON.stringify(config)).digest('hex') };
}
