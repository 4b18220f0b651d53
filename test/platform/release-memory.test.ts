// When the local server gives memory back after a crowd of connections (scripts/lib/release-memory.ts), as a
// pure function of what each check sees; test/platform/memory.test.ts holds the server itself to it.
import { describe, expect, it } from 'vitest';
import { crowdReleases, type Release } from '../../scripts/lib/release-memory.ts';

const MB = 1024 * 1024;

type Check = [open: number, rss: number];

/** What each check does, for checks seeing `open` connections and `rss` MB, in order. */
function run(checks: Check[]): Release[] {
  const next = crowdReleases();
  return checks.map(([open, rss]) => next({ open, rss: rss * MB }));
}

/**
 * A crowd of 5,000 growing the process from 90 MB to 900, thinned to `open` connections for two checks: the
 * first release (collect, trim), and the check after it seeing `left` MB.
 */
const firstRelease = (open: number, left: number): Check[] => [
  [0, 90],
  [5_000, 900],
  [open, 900],
  [open, 900],
  [open, 900],
  [open, left],
];
const steady = (checks: number, open: number, rss: number) => Array.from({ length: checks }, (): Check => [open, rss]);

const collections = (releases: Release[]) => releases.filter((r) => r === 'collect').length;

describe('giving memory back after a crowd', () => {
  it('a crowd that closes over seconds is given back again once what was open at the first release has closed', () => {
    // A quarter still open at the first release, whose trim leaves what those connections hold; then they close,
    // their memory freed inside the process, which does not grow.
    const releases = run([...firstRelease(1_000, 330), ...steady(6, 0, 330)]);
    expect(releases.slice(0, 6)).toEqual(['wait', 'wait', 'wait', 'collect', 'trim', 'wait']);
    expect(releases.slice(6)).toContain('collect');
    expect(releases[releases.indexOf('collect', 6) + 1]).toBe('trim');
  });

  it('ordinary traffic never pauses for a collection, however much the process grows', () => {
    const checks = Array.from({ length: 30 }, (_, i): Check => [i % 2 ? 60 : 5, 90 + 50 * i]);
    expect(collections(run(checks))).toBe(0);
  });

  it('a crowd that did not grow the process is not collected', () => {
    expect(collections(run([[0, 90], [2_000, 100], [2_000, 100], ...steady(4, 0, 100)]))).toBe(0);
  });

  it('a crowd is over once memory is given back with only ordinary traffic open: connections that stay open are not collected again and again', () => {
    expect(collections(run([...firstRelease(40, 150), ...steady(20, 40, 150)]))).toBe(1);
  });

  it('a crowd leaving a few hundred keep-alive connections open pauses the process a bounded number of times', () => {
    expect(collections(run([...firstRelease(1_000, 400), ...steady(40, 200, 300)]))).toBe(2);
  });

  it('a crowd that grows again after a release is given back once it thins from its new height', () => {
    const releases = run([
      ...firstRelease(1_000, 400),
      ...steady(2, 4_000, 800),
      ...steady(2, 3_000, 800),
      ...steady(3, 600, 800),
      [600, 300],
    ]);
    // At 600 open the crowd has thinned below a quarter of its new height, 4,000, not of the 1,000 before.
    expect(releases.slice(6)).toEqual(['wait', 'wait', 'wait', 'wait', 'wait', 'collect', 'trim', 'wait']);
  });
});
