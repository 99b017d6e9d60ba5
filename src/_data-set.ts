// Test support (not part of the package): the public data sets some tests read, beside the project
// in ../shared/data or wherever $QUIVER_DATA points.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { TestContext } from 'vitest';

export interface DataSet {
  path: string;
  present: boolean;
}

/** A file or folder inside the data-set root. */
export function dataSet(relative: string): DataSet {
  const path = resolve(process.env.QUIVER_DATA ?? '../shared/data', relative);
  return { path, present: existsSync(path) };
}

/**
 * Call first in a test that needs `set`: when it is missing the test is reported as skipped with
 * the reason, unless `QUIVER_REQUIRE_DATA=1` (CI), where a missing data set fails the test.
 */
export function needsDataSet(ctx: TestContext, set: DataSet): void {
  if (set.present) return;
  const reason = `data set not found at ${set.path} (set QUIVER_DATA to the folder holding it)`;
  if (process.env.QUIVER_REQUIRE_DATA === '1')
    throw new Error(`${reason}; QUIVER_REQUIRE_DATA=1 requires it`);
  ctx.skip(reason);
}
