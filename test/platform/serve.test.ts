import { request } from 'node:http';
import { createServer } from 'node:net';
import { mkdir, mkdtemp, readdir, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startFunctions } from '../../scripts/lib/stack.mjs';
import { call, database, dbUrl, tokens } from '../support/client.ts';
import { createProduct } from '../support/inventory.ts';

describe('the local functions server', () => {
  it('serves a function under /functions/v1 and the /api aliases alike', async () => {
    for (const path of ['/functions/v1/campaign-types', '/api/campaign-types', '/api/v1/campaign-types']) {
      const res = await call(path, { token: tokens.customer });
      expect(res.status, path).toBe(200);
      expect(res.body.success).toBe(true);
    }
  });

  it('answers an unknown function with a JSON 404', async () => {
    const res = await call('/functions/v1/no-such-function');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });
});

describe('the local functions server with a CORS allow-list', () => {
  let functions: Awaited<ReturnType<typeof startFunctions>>;
  beforeAll(async () => {
    functions = await startFunctions({
      dbUrl,
      port: await freePort(),
      env: { CORS_ALLOWED_ORIGINS: 'https://shop.example' },
    });
  });
  afterAll(() => functions?.stop());

  it('its own 404 grants no other origin, as the functions do: the allow-list holds everywhere', async () => {
    const from = (origin: string) => fetch(`${functions.url}/functions/v1/no-such-function`, { headers: { origin } });
    const foreign = await from('https://evil.example');
    expect(foreign.status).toBe(404);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(foreign.headers.get('vary')).toBe('Origin');
    const listed = await from('https://shop.example');
    expect(listed.headers.get('access-control-allow-origin')).toBe('https://shop.example');
  });
});

describe('stopping the local functions server', () => {
  it('two stop signals at once: it exits 0, nothing uncaught, and leaves no socket folder behind', async () => {
    // A temporary folder of its own, so what it leaves there is its alone (under the one it may write to).
    const temp = await mkdtemp(path.join(tmpdir(), 'store-stop-'));
    try {
      const functions = await startFunctions({ dbUrl, port: await freePort(), env: { TMPDIR: temp } });
      expect(await readdir(temp)).toHaveLength(1);
      process.kill(functions.pid!, 'SIGTERM');
      process.kill(functions.pid!, 'SIGINT');
      expect(await functions.exited).toEqual({ code: 0, signal: null });
      expect(functions.output()).not.toMatch(/uncaught|error/i);
      expect(await readdir(temp)).toEqual([]);
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  });
});

describe('a local functions server killed before it could clean up', () => {
  it("leaves a socket folder that a later start removes, never a running server's or one still starting", async () => {
    const temp = await mkdtemp(path.join(tmpdir(), 'store-stale-'));
    const running = createServer();
    try {
      const killed = await startFunctions({ dbUrl, port: await freePort(), env: { TMPDIR: temp } });
      const [dead] = await readdir(temp);
      process.kill(killed.pid!, 'SIGKILL');
      await killed.exited;
      await mkdir(path.join(temp, 'store-serve-running'));
      await new Promise<void>((resolve) => running.listen(path.join(temp, 'store-serve-running', 'http.sock'), resolve));
      await mkdir(path.join(temp, 'store-serve-starting'));
      // Two minutes before now by the file system's clock, which a moved test clock leaves alone.
      const now = (await stat(path.join(temp, 'store-serve-starting'))).mtime.getTime();
      const old = new Date(now - 120_000);
      for (const folder of [dead, 'store-serve-running']) await utimes(path.join(temp, folder), old, old);
      const next = await startFunctions({ dbUrl, port: await freePort(), env: { TMPDIR: temp } });
      try {
        const left = await readdir(temp);
        expect(left).not.toContain(dead);
        expect(left).toEqual(expect.arrayContaining(['store-serve-running', 'store-serve-starting']));
        expect(left).toHaveLength(3);
      } finally {
        await next.stop();
      }
    } finally {
      running.close();
      await rm(temp, { recursive: true, force: true });
    }
  });
});

describe('stopping the local functions server while requests are in flight', () => {
  /** A request on a connection of its own; `sent` settles once every byte of it is written. */
  function send(url: string, { method = 'GET', body }: { method?: string; body?: string } = {}) {
    const req = request(url, {
      method,
      agent: false,
      headers: { authorization: `Bearer ${tokens.admin}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    });
    const sent = new Promise((resolve) => req.once('finish', resolve));
    const answered = new Promise<number | string>((resolve) => {
      req.once('response', (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode!));
        res.once('error', (error) => resolve(`cut off (${error.message})`));
      });
      req.once('error', (error) => resolve(`no answer (${error.message})`));
    });
    req.end(body);
    return { sent, answered };
  }

  it('SIGTERM stops accepting, answers every request it has already read, then exits: no committed write goes unanswered', async () => {
    const sql = database(2);
    // A bound of 40 s gives a lock timeout of 10 s (a quarter): room for a busy machine to bring the 6 to the
    // lock and the server to stop accepting before any of them gives up waiting.
    const functions = await startFunctions({ dbUrl, port: await freePort(), env: { DB_REQUEST_TIMEOUT: '40' } });
    try {
      const product = await createProduct(sql);
      const stockIn = JSON.stringify({ product_id: product, quantity: 1 });
      let requests: ReturnType<typeof send>[] = [];
      // The product's row held locked, so that 6 stock-ins (fewer than the pool's connections) are known to be
      // read when the signal comes (each waits in the database for the lock, or for the one queued before it),
      // and commit only after it, well within the lock timeout. Timing alone cannot tell a request the
      // server has read from one only sent: a wait of 50 ms was once too short on a busy machine.
      await sql.begin(async (tx) => {
        const [{ pid }] = await tx<{ pid: number }[]>`
          select pg_backend_pid() as pid from public.products where id = ${product} for update`;
        requests = Array.from(
          { length: 6 },
          () => send(`${functions.url}/functions/v1/stock-in`, { method: 'POST', body: stockIn }),
        );
        await expect.poll(async () => {
          const [{ waiting }] = await sql<{ waiting: number }[]>`
            select count(*)::int as waiting from pg_stat_activity
            where datname = current_database() and pid <> ${pid} and cardinality(pg_blocking_pids(pid)) > 0`;
          return waiting;
        }, { timeout: 10_000, interval: 20 }).toBe(6);
        process.kill(functions.pid!, 'SIGTERM');
        // Stopped accepting while the 6 are still held.
        await expect.poll(() =>
          fetch(`${functions.url}/functions/v1/campaign-types`).then(() => 'accepted', () => 'refused')
        )
          .toBe('refused');
      });
      const statuses = await Promise.all(requests.map((r) => r.answered));
      expect(await functions.exited).toEqual({ code: 0, signal: null });
      const [{ committed }] = await sql<{ committed: number }[]>`
        select count(*)::int as committed from public.inventory_records where product_id = ${product}`;
      expect(statuses).toEqual(Array(6).fill(201));
      expect(committed).toBe(6);
    } finally {
      await functions.stop();
      await sql.end();
    }
  });
});
