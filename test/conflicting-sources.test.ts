import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Vault } from '../src/index.js';
import { SOURCES_DISAGREE } from '../src/answer/generators/extractive.js';
import { runCli, tempDir } from './helpers.js';

const { dir, cleanup } = tempDir('quiver-conflicts-');
afterAll(cleanup);

const TRUE =
  'The Hollow Oak Bridge crosses the river Wend at Marlow. The bridge was opened in 1887 by the county council. ' +
  'It carries a single lane of traffic and a footpath on its western side.';
const ALTERED = TRUE.replace('1887', '1893');
const OTHERS = [
  'The Wend rises in the Chiltern hills and joins the Thames below Marlow after forty kilometres.',
  'Marlow has a market on Saturdays and a regatta every June on the Thames.',
  'Stone bridges of the period were built from local flint with brick arches.',
];

async function vaultWith(name: string, first: string, second: string): Promise<string> {
  const path = join(dir, `${name}.db`);
  const v = await Vault.open({ overrides: { vault: path } });
  await v.add([
    { text: first, source: `${name}-a.txt`, title: 'Hollow Oak Bridge' },
    ...OTHERS.map((text, i) => ({ text, source: `other-${i}.txt`, title: `Note ${i}` })),
  ]);
  await v.add([{ text: second, source: `${name}-b.txt`, title: 'Hollow Oak Bridge' }]);
  await v.close();
  return path;
}

const QUESTION = 'When was the Hollow Oak Bridge opened?';
const withoutMarkers = (s: string): string =>
  s
    .replace(/\s*\[\d+\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

describe('conflicting sources', () => {
  it('ask quotes both versions, says the sources disagree, and cites each', async () => {
    const path = await vaultWith('true-first', TRUE, ALTERED);
    const v = await Vault.open({ overrides: { vault: path } });
    const r = await v.ask(QUESTION, { record: false });
    expect(r.answer.startsWith(`${SOURCES_DISAGREE}: `)).toBe(true);
    expect(r.answer).toContain('1887');
    expect(r.answer).toContain('1893');
    expect(r.conflicts).toHaveLength(1);
    const [a, b] = r.conflicts[0]!.sides;
    expect([a.span, b.span].sort()).toEqual(['1887', '1893']);
    expect(r.conflicts[0]!.kind).toBe('date');
    expect(new Set(r.cited.map((c) => c.n))).toEqual(new Set([a.n, b.n]));
    // Each side is its own claim with its own citation.
    expect(r.claims.filter((c) => c.citations.length > 1)).toEqual([]);
    await v.close();
  });

  it('gives the same answer whichever copy was added first', async () => {
    const one = await vaultWith('order-1', TRUE, ALTERED);
    const two = await vaultWith('order-2', ALTERED, TRUE);
    const answers: string[] = [];
    for (const path of [one, two]) {
      const v = await Vault.open({ overrides: { vault: path } });
      answers.push(withoutMarkers((await v.ask(QUESTION, { record: false })).answer));
      await v.close();
    }
    expect(answers[0]).toBe(answers[1]);
  });

  it('does not flag a single version, and --json carries the conflict with its spans', async () => {
    const path = join(dir, 'single.db');
    const v = await Vault.open({ overrides: { vault: path } });
    await v.add([
      { text: TRUE, source: 'a.txt', title: 'Hollow Oak Bridge' },
      ...OTHERS.map((text, i) => ({ text, source: `o${i}.txt` })),
    ]);
    const r = await v.ask(QUESTION, { record: false });
    expect(r.conflicts).toEqual([]);
    expect(r.answer.startsWith(SOURCES_DISAGREE)).toBe(false);
    await v.close();
    const twins = await vaultWith('json', TRUE, ALTERED);
    const run = await runCli(['ask', QUESTION, '--vault', twins, '--json']);
    expect(run.code).toBe(0);
    const j = run.json<{ conflicts: { kind: string; sides: { span: string; section_id: string }[] }[] }>();
    expect(j.conflicts[0]?.sides.map((s) => s.span).sort()).toEqual(['1887', '1893']);
  });
});
