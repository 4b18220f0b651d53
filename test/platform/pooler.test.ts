// Through a transaction-mode pooler (Debian's PgBouncer, as Supabase's pooled URL is one), with the project's
// default settings and a port that says nothing about pooling: every acknowledged stock write must be applied
// exactly once, and none may fail with a 5xx. A pooler hands each transaction whichever server connection is
// free, so a statement prepared on one connection may be missing, or another, on the next.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startFunctions } from '../../scripts/lib/stack.mjs';
import { SERVICE_ROLE_KEY } from '../support/client.ts';
import { privateServer } from '../support/private-server.ts';

const PGBOUNCER = process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer';


const UNITS = 50;
const DECREASES = 100;

let dir: string;
let database: Awaited<ReturnType<typeof privateServer>>;
let bouncer: ChildProcess | undefined;
let functions: Awaited<ReturnType<typeof startFunctions>>;

/** PgBouncer refuses to run as root; the embedded PostgreSQL runs as `postgres` then, and so does it. */
function asServiceUser(command: string, args: string[]) {
  return userInfo().uid === 0 ? spawn('runuser', ['-u', 'postgres', '--', command, ...args]) : spawn(command, args);
}

async function startPgBouncer(dbPort: number): Promise<number> {
  const port = await freePort();
  await writeFile(path.join(dir, 'userlist.txt'), '"postgres" "postgres"\n');
  await writeFile(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `postgres = host=127.0.0.1 port=${dbPort} dbname=postgres user=postgres password=postgres`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 200',
      'default_pool_size = 4',
      '',
    ].join('\n'),
  );
  bouncer = asServiceUser(PGBOUNCER, [path.join(dir, 'pgbouncer.ini')]);
  let output = '';
  bouncer.stdout?.on('data', (chunk) => (output += chunk));
  bouncer.stderr?.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const probe = postgres(`postgresql://postgres:postgres@127.0.0.1:${port}/postgres`, { max: 1, connect_timeout: 1, onnotice: () => {} });
    try {
      await probe`select 1`;
      return port;
    } catch (error) {
      if (Date.now() > deadline || bouncer.exitCode !== null) throw new Error(`PgBouncer did not start: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await probe.end();
    }
  }
}

beforeAll(async () => {
  // A missing tool fails the run, never skips it: a machine without it would pass without testing this.
  if (!existsSync(PGBOUNCER)) {
    throw new Error(`No PgBouncer at ${PGBOUNCER}: apt-get install -y pgbouncer (.ci/run installs it when absent)`);
  }
  dir = await mkdtemp(path.join(tmpdir(), 'store-pooler-'));
  await chmod(dir, 0o755);
  database = await privateServer('store-pooler-data');
  const poolerPort = await startPgBouncer(database.port);
  // The project's defaults: nothing says the URL is a pooler.
  functions = await startFunctions({ dbUrl: `postgresql://postgres:postgres@127.0.0.1:${poolerPort}/postgres`, port: await freePort() });
}, 120_000);

afterAll(async () => {
  await functions?.stop();
  bouncer?.kill('SIGTERM');
  await database?.remove();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function post(path: string, body: unknown) {
  const res = await fetch(`${functions.url}/functions/v1/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${SERVICE_ROLE_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).catch((error) => {
    // A connection closed unanswered means the server ended (closed-connections.test.ts): say what it printed.
    throw new Error(`${error.message} (${error.cause?.message ?? 'no cause'}); the functions server said:\n${functions.output()}`);
  });
  return { status: res.status, body: await res.json() };
}

describe('through a transaction-mode pooler (PgBouncer)', () => {
  it('concurrent decreases: every acknowledged one is applied exactly once; a 503 only while it finds the pooler', async () => {
    const direct = postgres(database.url, { max: 1, onnotice: () => {} });
    const [{ id: productId }] = await direct<{ id: string }[]>`
      insert into public.products (sku, name) values ('POOL-1', 'Pooler test product') returning id`;
    expect((await post('stock-in', { product_id: productId, quantity: UNITS })).status).toBe(201);

    // The first burst finds the pooler (a statement prepared on another server connection); a transaction
    // whose outcome that left unknown is a 503 the client may retry, never a 200 that did not happen.
    const burst = () =>
      Promise.all(
        Array.from({ length: DECREASES / 2 }, () =>
          post('stock-adjust', { product_id: productId, adjust_quantity: -1, reason: 'damage_writeoff' })),
      );
    const first = await burst();
    const second = await burst();
    const answers = [...first, ...second];
    const acknowledged = answers.filter((a) => a.status === 200);
    const [{ decreases, stock }] = await direct<{ decreases: number; stock: number }[]>`
      select (select count(*)::int from public.stock_movements where product_id = ${productId} and operation = 'stock_adjust') as decreases,
             (select current_stock::int from public.products where id = ${productId}) as stock`;
    await direct.end();

    const serverErrors = answers.filter((a) => a.status >= 500);
    console.info(
      `pooler: ${DECREASES} decreases on ${UNITS} units, ${acknowledged.length} acknowledged, ${decreases} applied, ` +
        `${serverErrors.length} 5xx (all 503), ${answers.filter((a) => a.status === 422).length} refused for want of stock`,
    );
    expect(serverErrors.filter((a) => a.status !== 503).map((a) => JSON.stringify(a.body)), functions.output()).toEqual([]);
    expect(second.filter((a) => a.status >= 500)).toEqual([]);
    // Exactly once: every acknowledged decrease is in the ledger and the stock, and only an unacknowledged
    // (503) one may be there besides.
    expect(decreases).toBeGreaterThanOrEqual(acknowledged.length);
    expect(decreases - acknowledged.length).toBeLessThanOrEqual(serverErrors.length);
    expect(stock).toBe(UNITS - decreases);
    // Each acknowledged decrease saw its own stock: no two answers report the same result.
    const after = acknowledged.map((a) => JSON.stringify(a.body.data ?? a.body));
    expect(new Set(after).size).toBe(acknowledged.length);
  }, 60_000);
});
