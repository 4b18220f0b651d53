// When the local server gives memory back after a crowd of connections (scripts/lib/release-memory.ts), as a
// pure function of what each check sees; test/platform/memory.test.ts holds the server itself to it.
import { describe, expect, it } from 'vitest';
import { crowdReleases, type Release } from '../../scripts/lib/release-memory.ts';

const MB = 1024 * 1024;

/** What each check does, for checks seeing `open` connections and `rss` MB, in order. */
function run(checks: [open: number, rss: number][]): Release[] {
  const next = crowdReleases();
  return checks.map(([open, rss]) => next({ open, rss: rss * MB }));
}

const collections = (releases: Release[]) => releases.filter((r) => r === 'collect').length;

describe('giving memory back after a crowd', () => {
  it('a crowd that closes over seconds is given back again once what was open at the first release has closed', () => {
    const releases = run([
      [0, 90],
      [5_000, 900],
      [5_000, 900],
      // A quarter still open: the first release, whose trim leaves what those connections hold.
      [1_000, 900],
      [1_000, 900],
      [1_000, 900],
      [1_000, 330],
      // They close: their memory is freed inside the process, which does not grow.
      [0, 330],
      [0, 330],
      [0, 330],
      [0, 330],
      [0, 330],
    ]);
    expect(releases.slice(0, 7)).toEqual(['wait', 'wait', 'wait', 'wait', 'collect', 'trim', 'wait']);
    expect(releases.slice(7)).toContain('collect');
    expect(releases[releases.indexOf('collect', 7) + 1]).toBe('trim');
  });

  it('ordinary traffic never pauses for a collection, however much the process grows', () => {
    const checks = Array.from({ length: 30 }, (_, i): [number, number] => [i % 2 ? 60 : 5, 90 + 50 * i]);
    expect(collections(run(checks))).toBe(0);
  });

  it('a crowd that did not grow the process is not collected', () => {
    expect(collections(run([[0, 90], [2_000, 100], [2_000, 100], [10, 100], [0, 100], [0, 100], [0, 100]]))).toBe(0);
  });

  it('a crowd is over once memory is given back with only ordinary traffic open: connections that stay open are not collected again and again', () => {
    const releases = run([
      [0, 90],
      [5_000, 900],
      [40, 900],
      [40, 900],
      [40, 900],
      [40, 150],
      ...Array.from({ length: 20 }, (): [number, number] => [40, 150]),
    ]);
    expect(collections(releases)).toBe(1);
  });

  it('a crowd leaving a few hundred keep-alive connections open pauses the process a bounded number of times', () => {
    const releases = run([
      [0, 90],
      [5_000, 900],
      [1_000, 900],
      [1_000, 900],
      [1_000, 900],
      [1_000, 400],
      ...Array.from({ length: 40 }, (): [number, number] => [200, 300]),
    ]);
    expect(collections(releases)).toBe(2);
  });

  it('a crowd that grows again after a release is given back once it thins from its new height', () => {
    const releases = run([
      [0, 90],
      [5_000, 900],
      [1_000, 900],
      [1_000, 900],
      [1_000, 900],
      [1_000, 400],
      [4_000, 800],
      [4_000, 800],
      [3_000, 800],
      [3_000, 800],
      [600, 800],
      [600, 800],
      [600, 800],
      [600, 300],
    ]);
    // At 600 open the crowd has thinned below a quarter of its new height, 4,000, not of the 1,000 before.
    expect(releases.slice(6)).toEqual(['wait', 'wait', 'wait', 'wait', 'wait', 'collect', 'trim', 'wait']);
  });
});
