// Regression guard in the suite: Cranfield nDCG@10 of the default, lexical and fused configurations
// must not fall below the recorded baseline (bench/baseline.json) minus its margin. It runs
// `quiver eval` machinery end to end through scripts/eval-guard.ts; no timing is asserted.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const data = resolve(process.env.QUIVER_DATA ?? '../shared/data', 'cranfield', 'cran.all.1400');

describe('Cranfield retrieval regression', () => {
  it.skipIf(!existsSync(data))('keeps nDCG@10 at or above the recorded baseline minus the margin', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/eval-guard.ts'], { encoding: 'utf8' });
    expect(r.stdout, r.stderr).toMatch(/eval-guard: PASS \(cranfield/);
    expect(r.stdout).not.toMatch(/FAIL/);
    expect(r.status).toBe(0);
  });
});
