/**
 * One format for the functions, the local server and the console: what `deno fmt` writes (deno.json's `fmt`),
 * checked, so a file formatted otherwise fails here rather than in a reviewer's diff.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/stack.mjs';

describe('the sources', () => {
  it('are formatted as deno fmt formats them, the console included', async () => {
    const deno = path.join(ROOT, 'node_modules', '.bin', 'deno');
    const checked = await promisify(execFile)(deno, ['fmt', '--check', '--config', 'deno.json'], { cwd: ROOT })
      .then(() => 'formatted', (error: { stderr?: string }) => error.stderr ?? String(error));
    expect(checked).toBe('formatted');
  });
});
