import { spawn } from 'node:child_process';
import { ROOT } from '../../scripts/lib/stack.mjs';

/** Runs a bench script with `--smoke` as `npm run bench -- --smoke` would, with its exit code and output. */
export function runSmoke(script: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, '--smoke'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code, output }));
  });
}
