// npm run test:at -- <ISO 8601 instant> [vitest arguments]: the whole suite with every clock of the run at
// that moment and running on from there (docs/architecture.md, "The clock"). For example
// `npm run test:at -- 2026-11-26T23:59:00Z` crosses midnight a minute after it starts.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './lib/stack.mjs';

const [moment, ...vitestArgs] = process.argv.slice(2);
// A zone is required: a moment without one would be read in this machine's zone and mean another instant elsewhere.
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;
const target = moment && INSTANT.test(moment) ? Date.parse(moment) : NaN;
if (Number.isNaN(target)) {
  console.error('Usage: npm run test:at -- <instant> [vitest arguments], the instant in ISO 8601 with its zone, e.g. 2026-11-26T23:59:00Z');
  process.exit(2);
}
if (process.env.DATABASE_URL ?? process.env.SUPABASE_DB_URL) {
  console.error("npm run test:at moves the clock of the suite's own PostgreSQL: unset DATABASE_URL and SUPABASE_DB_URL.");
  process.exit(2);
}

const clock = pathToFileURL(path.join(ROOT, 'scripts', 'lib', 'clock.mjs')).href;
const env = {
  ...process.env,
  STORE_CLOCK_OFFSET_MS: String(target - Date.now()),
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${clock}`.trim(),
};
console.log(`Running the suite at ${new Date(target).toISOString()} (the clocks of Node, Deno and PostgreSQL moved alike).`);
const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'vitest'), ['run', ...vitestArgs], { cwd: ROOT, env, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
