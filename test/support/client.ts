/** What the tests drive the stack with: real HTTP, real tokens, a real database connection. */
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, inject } from 'vitest';
import type { FileClock } from './clock.ts';
import { contractViolation } from './openapi.ts';
import { ANON_KEY, DEMO_ADMIN_ID, DEMO_CUSTOMER_ID, mintToken, SERVICE_ROLE_KEY } from '../../scripts/lib/keys.mjs';

export const apiUrl = inject('apiUrl');
export const dbUrl = inject('dbUrl');
const migratedTemplate = inject('migratedTemplate');

export { ANON_KEY, DEMO_ADMIN_ID, DEMO_CUSTOMER_ID, mintToken, SERVICE_ROLE_KEY };

export const tokens = {
  admin: await mintToken({ role: 'authenticated', sub: DEMO_ADMIN_ID }),
  customer: await mintToken({ role: 'authenticated', sub: DEMO_CUSTOMER_ID }),
  anon: ANON_KEY,
  service: SERVICE_ROLE_KEY,
};

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  method?: string;
  token?: string | null;
  /** Sent as JSON unless `rawBody` is given. */
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  /** Aborts the request, for a test that bounds how long an answer may take. */
  signal?: AbortSignal;
  /** Another functions server than the suite's (a test's own, on a database of its own). */
  base?: string;
}

/** Calls `/functions/v1/<path>` (or any path starting with `/`) over HTTP. */
export async function call<T = any>(path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== null) headers.authorization ??= `Bearer ${options.token ?? tokens.admin}`;
  let body = options.rawBody;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const server = options.base ?? apiUrl;
  const url = path.startsWith('/') ? `${server}${path}` : `${server}/functions/v1/${path}`;
  const res = await fetch(url, { method: options.method ?? 'GET', headers, body, signal: options.signal });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const violation = await contractViolation(server, options.method ?? 'GET', new URL(url), res.status, parsed);
  if (violation) throw new Error(`The answer breaks the function's OpenAPI document: ${violation}`);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/**
 * `call`, retried as the API asks when another request held the same rows past the lock timeout (409
 * LOCK_TIMEOUT with Retry-After): for tests whose subject is not that contention, on a database the other
 * test files write at the same time.
 */
export async function callRetryingLocks<T = any>(path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  for (let attempt = 1; ; attempt++) {
    const res = await call<T>(path, options);
    const code = (res.body as { code?: string; error?: { code?: string } } | undefined);
    if (res.status !== 409 || attempt === 3 || (code?.code ?? code?.error?.code) !== 'LOCK_TIMEOUT') return res;
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(res.headers.get('retry-after') ?? 1)));
  }
}

/**
 * A direct database connection, closed after the file's tests; with `clock`, its sessions run at the
 * file's own moment (`runFileAt`).
 */
export function database(max = 4, { clock }: { clock?: FileClock } = {}) {
  const sql = postgres(dbUrl, {
    max,
    onnotice: () => {},
    connection: clock ? { 'store.clock_offset': clock.postgresOffset } : {},
    types: { numeric: { to: 1700, from: [1700], serialize: String, parse: Number } } as never,
  });
  afterAll(() => sql.end({ timeout: 5 }));
  return sql;
}

export type Sql = ReturnType<typeof database>;

/**
 * Runs `work` as PostgREST would for a caller: role and JWT claims set for one transaction, which is
 * rolled back afterwards so a test leaves nothing behind. Errors from `work` are returned, not thrown.
 */
export async function asRole<T>(
  sql: Sql,
  caller: { role: 'anon' | 'authenticated' | 'service_role'; sub?: string },
  work: (tx: postgres.TransactionSql) => Promise<T>,
): Promise<{ result?: T; error?: postgres.PostgresError }> {
  const rollback = new Error('rollback');
  let outcome: { result?: T; error?: postgres.PostgresError } = {};
  try {
    await sql.begin(async (tx) => {
      await tx`select set_config('role', ${caller.role}, true),
                      set_config('request.jwt.claims', ${JSON.stringify({ role: caller.role, sub: caller.sub })}, true)`;
      try {
        outcome = { result: await work(tx) };
      } catch (error) {
        outcome = { error: error as postgres.PostgresError };
      }
      throw rollback;
    });
  } catch (error) {
    if (error !== rollback) throw error;
  }
  return outcome;
}

/** A fresh user, optionally an administrator, with a token; for tests that change someone's rights. */
export async function createUser(sql: Sql, { admin = false } = {}) {
  const id = randomUUID();
  await sql`insert into auth.users (id, aud, role, email) values (${id}, 'authenticated', 'authenticated', ${`${id}@example.com`})`;
  if (admin) await sql`insert into public.user_roles (user_id, role) values (${id}, 'admin')`;
  return { id, token: await mintToken({ role: 'authenticated', sub: id }) };
}

/**
 * Runs `work` in a transaction as the table owner and rolls it back afterwards, so a test of derived
 * data can write freely and leave nothing behind. Errors from `work` are thrown.
 */
export async function rolledBack(sql: Sql, work: (tx: postgres.TransactionSql) => Promise<void>) {
  const rollback = new Error('rollback');
  await sql.begin(async (tx) => {
    await work(tx);
    throw rollback;
  }).catch((error) => {
    if (error !== rollback) throw error;
  });
}

/** A fresh customer row (no user), for tests that write orders. */
export async function createCustomer(db: postgres.Sql | postgres.TransactionSql, prefix = 'customer') {
  const [{ id }] = await db`
    insert into public.customers (email, name) values (${`${unique(prefix)}@test.example`}, ${`${prefix} test`})
    returning id`;
  return id as string;
}

/** A short unique suffix for codes and names, so test files never collide on the shared database. */
export function unique(prefix: string) {
  return `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
}

/**
 * A database of its own on the suite's server (`<prefix>_<pid>_<time>`), for a test whose data must not
 * reach the shared one: `create()` makes it empty, `createMigrated()` as the migrations and seed leave a
 * new database (a copy of the suite's database as it was before any test ran), and it is dropped after
 * the file's (or the describe's) tests.
 */
export function scratchDatabase(prefix: string) {
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  const url = Object.assign(new URL(dbUrl), { pathname: `/${name}` }).toString();
  const admin = postgres(dbUrl, { max: 1, onnotice: () => {} });
  afterAll(async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end({ timeout: 5 });
  });
  return {
    name,
    url,
    create: () => admin.unsafe(`create database ${name}`),
    createMigrated: () => admin.unsafe(`create database ${name} template ${migratedTemplate}`),
  };
}

/**
 * Creates `database` from the migrated template and opens a connection to it that reads numeric as numbers,
 * as `database()` does, for a file with a store of its own.
 */
export async function migratedStore(database: ReturnType<typeof scratchDatabase>, max = 2) {
  await database.createMigrated();
  return postgres(database.url, {
    max,
    onnotice: () => {},
    types: { numeric: { to: 1700, from: [1700], serialize: String, parse: Number } } as never,
  });
}
