/** npm run token: tokens for the local stack, and a plain answer when the command line is wrong. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { call } from '../support/client.ts';

const token = (...args: string[]) => promisify(execFile)(process.execPath, ['scripts/token.mjs', ...args]);

describe('npm run token', () => {
  it('answers a malformed command line with its usage, not a stack trace', async () => {
    const failure = await token('admin', '--expires-in').catch((error) => error);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain('usage: npm run token -- admin|customer|anon|service');
    expect(failure.stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    [['--expires-in', '-1h']],
    [['--expires-in=-1h']],
    [['--expired']],
  ])('prints an already expired token for %j, which the functions refuse as expired', async (args) => {
    const { stdout } = await token('admin', ...args);
    const [, payload] = stdout.trim().split('.');
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString()).exp).toBeLessThan(Date.now() / 1000);
    const res = await call('campaign-types', { token: stdout.trim() });
    expect(res.status).toBe(401);
  });
});
