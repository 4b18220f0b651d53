// npm run lint:db: Supabase's database advisors against the project's schema; fails on any finding.
// Uses DATABASE_URL when set, otherwise a throwaway embedded PostgreSQL with the migrations applied.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { advisorFindings, describeFinding } from './lib/advisors.mjs';
import { freePort, prepareDatabase, startEmbeddedPostgres } from './lib/stack.mjs';

let url = process.env.DATABASE_URL ?? process.env.SUPABASE_DB_URL;
let cleanup = async () => {};
if (!url) {
  const dir = await mkdtemp(path.join(tmpdir(), 'store-lint-'));
  await chmod(dir, 0o755);
  const database = await startEmbeddedPostgres({ dataDir: path.join(dir, 'data'), port: await freePort(), tuneForTests: true });
  cleanup = async () => {
    await database.stop();
    await rm(dir, { recursive: true, force: true });
  };
  url = database.url;
}
try {
  await prepareDatabase(url);
  const findings = await advisorFindings(url);
  for (const finding of findings) console.log(describeFinding(finding));
  console.log(findings.length ? `\n${findings.length} advisor finding(s)` : 'Database advisors: no findings');
  process.exitCode = findings.length ? 1 : 0;
} finally {
  await cleanup();
}
