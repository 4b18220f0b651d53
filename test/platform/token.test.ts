/** npm run token: tokens for the local stack, and a plain answer when the command line is wrong. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { call } from '../support/client.ts';

const token = (...args: string[]) => promisify(execFile)(process.execPath, ['scripts/token.mjs', ...args]);

describe('npm run token', () => {
  it('answers a negative expiry given as a separate argument with its usage, not a stack trace', async () => {
    const failure = await token('admin', '--expires-in', '-1h').catch((error) => error);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain('usage: npm run token -- admin|customer|anon|service');
    expect(failure.stderr).not.toMatch(/\n\s+at /);
  });

  it('prints an already expired token for --expires-in=-1h, which the functions refuse', async () => {
    const { stdout } = await token('admin', '--expires-in=-1h');
    const res = await call('campaign-types', { token: stdout.trim() });
    expect(res.status).toBe(401);
  });
});
