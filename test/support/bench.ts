import { spawn } from 'node:child_process';
import { ROOT } from '../../scripts/lib/stack.mjs';
import type { scratchDatabase } from './client.ts';

/**
 * Runs a bench script with `--smoke` as `npm run bench -- --smoke` would, with its exit code and output, on a
 * migrated database of the test's own (`--database-url`): the script's own PostgreSQL would spend `initdb`
 * and the migrations, which the suite has done once already.
 */
export async function runSmoke(
  script: string,
  database: ReturnType<typeof scratchDatabase>,
): Promise<{ code: number | null; output: string }> {
  await database.createMigrated();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, '--smoke', '--database-url', database.url], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code, output }));
  });
}
