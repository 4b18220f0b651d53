/**
 * A query whose connection its pool closed under it, with no request waiting for it (postgres.js rejects such
 * queries from a timer), must not end the functions server: in real Deno on the suite's PostgreSQL, a pool
 * made by `createDatabase` is ended under a running query nobody awaits, and the process lives on. Any other
 * unhandled rejection still ends it, as a bug should.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/stack.mjs';
import { dbUrl } from '../support/client.ts';

const DENO = path.join(ROOT, 'node_modules', '.bin', 'deno');
const DB_MODULE = pathToFileURL(path.join(ROOT, 'supabase', 'functions', '_shared', 'db.ts')).href;

/** Runs `body` in Deno after a pool is made, then prints `alive` if the process is still there. */
function inDeno(body: string) {
  const script = `
    const { createDatabase } = await import(${JSON.stringify(DB_MODULE)});
    const db = createDatabase(Deno.env.get('DB_URL')!);
    ${body}
    await new Promise((resolve) => setTimeout(resolve, 300));
    console.log('alive');
    Deno.exit(0);`;
  return spawnSync(DENO, ['run', '--quiet', '--allow-all', '-'], {
    cwd: ROOT,
    input: script,
    encoding: 'utf8',
    env: { ...process.env, DB_URL: dbUrl },
    timeout: 30_000,
  });
}

describe('a query failed by its own pool closing', () => {
  it('is logged, and the server process lives on', () => {
    const run = inDeno(`
      db.sql\`select pg_sleep(5)\`.execute();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await db.sql.end({ timeout: 0 });`);
    expect(run.stdout, run.stderr).toContain('alive');
    expect(run.stderr).toMatch(/a query on a closed connection failed with no request waiting for it \(CONNECTION_DESTROYED\)/);
  });

  it('any other unhandled rejection still ends the process', () => {
    const run = inDeno(`Promise.reject(new Error('a bug'));`);
    expect(run.stdout).not.toContain('alive');
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('a bug');
  });
});
