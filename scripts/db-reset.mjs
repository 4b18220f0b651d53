// npm run db:reset: rebuilds the local database that `npm start` uses (DATA_DIR, default .data/postgres)
// from scratch: the schema, then the seed. Its data is lost. Refuses while `npm start` is running on it.
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { prepareDatabase, ROOT, startEmbeddedPostgres } from './lib/stack.mjs';

const dataDir = process.env.DATA_DIR ? path.resolve(process.env.DATA_DIR) : path.join(ROOT, '.data', 'postgres');
const dbPort = Number(process.env.DB_PORT ?? 54322);

const pidFile = path.join(dataDir, 'postmaster.pid');
if (existsSync(pidFile)) {
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  let running = false;
  try {
    process.kill(pid, 0);
    running = true;
  } catch {
    // A pid file left by a crash: no server is using the folder.
  }
  if (running) {
    console.error(`PostgreSQL (pid ${pid}) is running on ${dataDir}: stop npm start first.`);
    process.exit(1);
  }
}

await rm(dataDir, { recursive: true, force: true });
console.log(`Rebuilding the database in ${dataDir}…`);
const database = await startEmbeddedPostgres({ dataDir, port: dbPort });
try {
  await prepareDatabase(database.url);
} finally {
  await database.stop();
}
console.log('Done: the schema and the seed, nothing else. npm start serves it.');
