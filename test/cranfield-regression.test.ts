// Regression guard in the suite: Cranfield nDCG@10 of the default, lexical and fused configurations
// must not fall below the recorded baseline (bench/baseline.json) minus its margin. It runs
// `quiver eval` machinery end to end through scripts/eval-guard.ts; no timing is asserted.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { dataSet, needsDataSet } from '../src/_data-set.js';

const data = dataSet('cranfield/cran.all.1400');

describe('Cranfield retrieval regression', () => {
  it('keeps nDCG@10 at or above the recorded baseline minus the margin', (ctx) => {
    needsDataSet(ctx, data);
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/eval-guard.ts'], { encoding: 'utf8' });
    expect(r.stdout, r.stderr).toMatch(/eval-guard: PASS \(cranfield/);
    expect(r.stdout).not.toMatch(/FAIL/);
    expect(r.status).toBe(0);
  });
});
