import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vault } from '../src/index.js';
import { NOT_IN_SOURCES } from '../src/answer/generators/extractive.js';
import { runCli, tempDir } from './helpers.js';

const { dir, cleanup } = tempDir('quiver-abstain-');
const path = join(dir, 'demo.db');

beforeAll(async () => {
  const v = await Vault.open({ overrides: { vault: path } });
  await v.add(['demo/corpus']);
  await v.close();
}, 60_000);
afterAll(cleanup);

describe('abstaining on the demo vault', () => {
  it('says the sources do not answer, and what they do not mention, instead of quoting loosely related sentences', async () => {
    const v = await Vault.open({ overrides: { vault: path } });
    const r = await v.ask('What is the boiling point of mercury?', { record: false });
    expect(r.answer.startsWith(NOT_IN_SOURCES)).toBe(true);
    expect(r.answer).toContain('mercury');
    expect(r.claims).toEqual([]);
    expect(r.cited).toEqual([]);
    expect(r.abstained?.missing[0]).toBe('mercury');
    expect(r.abstained!.coverage).toBeLessThan(r.abstained!.threshold);
    await v.close();
    // With abstaining off, the same question quotes the loosely related passages.
    const off = await Vault.open({ overrides: { vault: path, 'answer.abstainBelow': 0 } });
    const loose = await off.ask('What is the boiling point of mercury?', { record: false });
    expect(loose.abstained).toBeNull();
    expect(loose.cited.length).toBeGreaterThan(0);
    await off.close();
  });

  it('the transcript keeps the abstention, not the quotes it replaced', async () => {
    const v = await Vault.open({ overrides: { vault: path } });
    const r = await v.ask('What is the boiling point of mercury?');
    const t = await v.store.getTranscript(r.transcriptId!);
    expect(t?.answer).toBe(r.answer);
    expect(t?.cited).toEqual([]);
    await v.close();
  });

  it('answers a question the demo does answer', async () => {
    const v = await Vault.open({ overrides: { vault: path } });
    const r = await v.ask('How long should espresso extraction take?', { record: false });
    expect(r.abstained).toBeNull();
    expect(r.cited.length).toBeGreaterThan(0);
    await v.close();
  });

  it('ask --json carries the abstention', async () => {
    const run = await runCli(['ask', 'How do I repot an orchid?', '--vault', path, '--json']);
    expect(run.code).toBe(0);
    const j = run.json<{ answer: string; abstained: { missing: string[] } | null; cited: unknown[] }>();
    expect(j.abstained?.missing).toContain('orchid');
    expect(j.cited).toEqual([]);
  });
});
