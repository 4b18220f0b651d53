/**
 * Builds the store console once per test run, before any test file starts: the Vite build that the local
 * server serves at /console/ (`node console/build.mjs --fast`, in a child process of its own). Its type check
 * is a test file's (test/platform/console-types.test.ts), so it runs beside the other files rather than
 * holding every one of them back. Says at once when Chromium is missing, which fails the browser test.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { CHROMIUM } from '../../console/measure.mjs';
import { ROOT } from '../../scripts/lib/stack.mjs';

export default async function setup() {
  try {
    await promisify(execFile)(process.execPath, ['console/build.mjs', '--fast'], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`The console's build failed:\n${stdout}${stderr}`);
  }
  if (!existsSync(CHROMIUM)) {
    process.stderr.write(
      `\n  No Chromium at ${CHROMIUM}: test/browser/console.test.ts will fail. Install it with ` +
        '`apt-get install -y chromium` (or set CHROMIUM_PATH).\n\n',
    );
  }
}
