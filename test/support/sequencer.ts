import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that run longest, longest first (seconds alone on 2 cores). A clean clone has no timings
 * cached for vitest to order by, and then sorts by file size, which started the 60-line bench smoke
 * last: a long file starting late leaves one worker alone at the end. Starting these first lets the
 * short files fill in around them.
 */
const LONGEST_FIRST = [
  'test/browser/console.test.ts', // ~58 s: every screen, in two languages and at phone width
  'test/database/business-health-rollups.test.ts', // ~35 s
  'test/platform/npm-start.test.ts', // ~22 s: seven starts of the whole stack
  'test/platform/bench-smoke.test.ts', // ~21 s: its own database, data set and ten scenarios
  'test/platform/database-stall.test.ts', // ~12 s: waits out a stopped PostgreSQL
  'test/platform/serve-threats.test.ts', // ~11 s: waits for the server's deadlines to pass, side by side
  'test/platform/database-outage.test.ts', // ~10 s
  'test/platform/bench-writes-smoke.test.ts', // ~9 s
  'test/api/inventory-concurrency.test.ts', // ~8 s
  'test/platform/fuzz.test.ts', // ~7 s
  'test/platform/console-types.test.ts', // ~7 s: tsc over the console
  'test/database/campaigns-attribution-answers.test.ts', // ~5 s
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FIRST.findIndex((name) => file.moduleId.endsWith(name));
      return index < 0 ? LONGEST_FIRST.length : index;
    };
    // Array sort is stable: the rest keep the order vitest gave them.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
