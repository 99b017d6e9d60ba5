// `ask` as a stream of events and its token budget per account, through the real Vault on a real
// SQLite file of the demo corpus with the extractive generator.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskEvent } from '../src/answer/ask-events.js';
import { isQuiverError, Vault } from '../src/index.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('quiver-ask-events-');
let vault: Vault;

beforeAll(async () => {
  vault = await Vault.open({ overrides: { vault: join(tmp.dir, 'v.db') }, env: {} });
  await vault.add(['demo/corpus']);
}, 60_000);
afterAll(async () => {
  await vault.close();
  tmp.cleanup();
});

describe('ask events', () => {
  it('reports context, tokens, claims, measurements and done, in that order, agreeing with the result', async () => {
    const events: AskEvent[] = [];
    const result = await vault.ask('How do I roll back an ingest?', { onEvent: (e) => events.push(e) });
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('context');
    expect(types.slice(-3)).toEqual(['claims', 'measured', 'done']);
    expect(types.slice(1, -3).every((t) => t === 'token')).toBe(true);
    const context = events[0] as Extract<AskEvent, { type: 'context' }>;
    expect(context.sections.map((s) => s.sectionId)).toEqual(result.context.map((s) => s.sectionId));
    const claims = events.find((e) => e.type === 'claims') as Extract<AskEvent, { type: 'claims' }>;
    expect(claims.answer).toBe(result.answer);
    expect(claims.cited).toEqual(result.cited);
    const done = events.at(-1) as Extract<AskEvent, { type: 'done' }>;
    expect(done.result).toBe(result);
  });
});

describe('token budget per account', () => {
  it("spends each account's own budget: one account running out leaves the others able to ask", async () => {
    const v = await Vault.open({
      overrides: { vault: join(tmp.dir, 'v.db') },
      env: { QUIVER_TOKEN_BUDGET: '1500' },
    });
    try {
      const q = 'How do I roll back an ingest?';
      let refused: unknown = null;
      for (let i = 0; i < 20 && refused === null; i++)
        await v.ask(q, { account: 'alice', record: false }).catch((e: unknown) => (refused = e));
      expect(isQuiverError(refused, 'BUDGET')).toBe(true);
      expect(v.spentTokens.get('alice')).toBeGreaterThan(0);
      const bob = await v.ask(q, { account: 'bob', record: false });
      expect(bob.answer.length).toBeGreaterThan(0);
      expect(v.spentTokens.get('bob')).toBeGreaterThan(0);
    } finally {
      await v.close();
    }
  });
});
