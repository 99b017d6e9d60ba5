#!/usr/bin/env node
// Runs the whole check: build (dist/, which the package and bin/quiver.js use), type-check, lint,
// format check, then vitest with a JSON reporter, and prints
// the closing line `N passed, N failed` that CI reads (vitest's own summary is not recognised).
// A failed type-check, lint or format check counts as one failure each.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const extra = process.argv.slice(2);
// Checks run before the suite by .ci/run (the eval regression guard) report their failures here.
let failedChecks = Number(process.env.QUIVER_EXTRA_FAILED ?? 0) || 0;
const run = (cmd, args, env = {}) =>
  spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, NO_COLOR: '1', ...env } }).status ?? 1;

if (extra.length === 0) {
  for (const [name, cmd, args] of [
    ['build', 'npm', ['run', 'build', '--silent']],
    // The package as published: exports, types and files checked by publint.
    ['package', 'npx', ['publint', '--strict']],
    ['type-check', 'npx', ['tsc', '-p', 'tsconfig.json']],
    // The web page (web/: browser code bundled by Vite) has its own tsconfig.
    ['type-check web', 'npx', ['tsc', '-p', 'web/tsconfig.json', '--noEmit']],
    ['lint', 'npx', ['eslint', '.']],
    ['format', 'npx', ['prettier', '--check', '.', '--log-level', 'warn']],
  ]) {
    const code = run(cmd, args);
    console.log(`${name}: ${code === 0 ? 'ok' : 'FAILED'}`);
    if (code !== 0) failedChecks += 1;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'quiver-vitest-'));
const out = join(dir, 'report.json');
run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...extra]);
let passed = 0;
let failed = failedChecks;
try {
  const report = JSON.parse(readFileSync(out, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  // A suite that fails to load has no tests counted: count it as a failure.
  for (const s of report.testResults ?? []) {
    if (s.status === 'failed' && s.assertionResults.length === 0) failed += 1;
    // Say what was skipped, so a missing data set or browser is never silent.
    for (const a of s.assertionResults ?? [])
      if (a.status === 'skipped' || a.status === 'pending')
        console.log(
          `skipped: ${a.fullName}${a.failureMessages?.length ? ` (${a.failureMessages.join('; ')})` : ''}`,
        );
  }
} catch {
  failed += 1;
}
rmSync(dir, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
