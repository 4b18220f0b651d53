// PostgreSQL stalled (its processes stopped with SIGSTOP: a hung disk, a swapping host, a paused VM), on a
// stack of this file's own with a 2-second request timeout: every request must be answered within that bound
// as a 503 with Retry-After in its function's envelope, never hang until the database returns and never be a
// 500; once the database resumes, service returns within seconds, and every acknowledged write is applied.
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startFunctions } from '../../scripts/lib/stack.mjs';
import { SERVICE_ROLE_KEY } from '../support/client.ts';
import { privateServer } from '../support/private-server.ts';

const REQUEST_TIMEOUT_S = 2;
/** The bound plus a second: every request, whatever it waits for (a connection, a report slot), is answered by then. */
const ANSWER_WITHIN_MS = REQUEST_TIMEOUT_S * 1000 + 1000;
const STALL_MS = 7000;

let database: Awaited<ReturnType<typeof privateServer>>;
let functions: Awaited<ReturnType<typeof startFunctions>>;
let productId: string;

beforeAll(async () => {
  database = await privateServer('store-stall');
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  [{ id: productId }] = await sql<{ id: string }[]>`
    insert into public.products (sku, name) values ('STALL-1', 'Stall test product') returning id`;
  await sql.end();
  functions = await startFunctions({
    dbUrl: database.url,
    port: await freePort(),
    env: { DB_REQUEST_TIMEOUT: String(REQUEST_TIMEOUT_S) },
  });
}, 120_000);

afterAll(async () => {
  await functions?.stop();
  await database?.remove();
});

/** The postmaster and every server process under it. */
async function serverProcesses(): Promise<number[]> {
  const postmaster = Number((await readFile(path.join(database.dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
    .split('\n').map((line) => Number(line.trim())).filter(Boolean);
  return [postmaster, ...children];
}

interface Answer {
  name: string;
  status: number;
  retryAfter: string | null;
  body: any;
  ms: number;
}

let stockIns = 0;

/** One request to each kind of function: reads, an anonymous report, a write. */
function requests(): [string, string, RequestInit][] {
  const auth = { authorization: `Bearer ${SERVICE_ROLE_KEY}`, 'content-type': 'application/json' };
  return [
    ['catalogue', 'campaign-types', { headers: auth }],
    ['products', 'products', { headers: auth }],
    ['campaigns', 'campaigns', { headers: auth }],
    ['anonymous health', 'business-health-analytics', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }],
    // More reports than the function computes at once (REPORT_SLOTS): the rest wait for a slot, within the bound.
    ...Array.from({ length: 3 }, (): [string, string, RequestInit] =>
      ['health', 'business-health-analytics', { method: 'POST', body: '{}', headers: auth }]),
    ['stock-in', 'stock-in', {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': `stall-${++stockIns}` },
      body: JSON.stringify({ product_id: productId, quantity: 1 }),
    }],
  ];
}

async function send([name, path, init]: [string, string, RequestInit]): Promise<Answer> {
  const started = Date.now();
  const res = await fetch(`${functions.url}/functions/v1/${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  return { name, status: res.status, retryAfter: res.headers.get('retry-after'), body: JSON.parse(text), ms: Date.now() - started };
}

describe('a stalled database', () => {
  it('answers 503 with Retry-After within the request timeout while PostgreSQL is stopped, serves again once it resumes, and applies every acknowledged write', async () => {
    const before = await Promise.all(requests().map(send));
    expect(before.map((a) => [a.name, a.status])).toEqual([
      ['catalogue', 200], ['products', 200], ['campaigns', 200], ['anonymous health', 200],
      ['health', 200], ['health', 200], ['health', 200], ['stock-in', 201],
    ]);

    const stopped = await serverProcesses();
    for (const pid of stopped) process.kill(pid, 'SIGSTOP');
    const stalledAt = Date.now();
    const during: Answer[] = [];
    try {
      // Two waves: the first takes every pooled connection onto the stalled server, the second finds none free.
      while (Date.now() - stalledAt < STALL_MS - ANSWER_WITHIN_MS) {
        during.push(...await Promise.all([...requests(), ...requests()].map(send)));
      }
    } finally {
      for (const pid of stopped) process.kill(pid, 'SIGCONT');
    }
    const resumedAt = Date.now();
    for (const answer of during) {
      expect(answer.status, answer.name).toBe(503);
      expect(Number(answer.retryAfter), answer.name).toBeGreaterThan(0);
      expect(answer.ms, answer.name).toBeLessThan(ANSWER_WITHIN_MS);
      expect(JSON.stringify(answer.body), answer.name).toContain('SERVICE_UNAVAILABLE');
    }
    expect(during.length).toBeGreaterThanOrEqual(20);
    const catalogue = during.find((a) => a.name === 'catalogue')!;
    expect(catalogue.body).toMatchObject({ success: false, error_code: 'SERVICE_UNAVAILABLE' });

    let after: Answer[] = [];
    const acknowledged = before.filter((a) => a.status === 201).map((a) => a.body.inventory_id);
    while (Date.now() - resumedAt < 15_000) {
      after = await Promise.all(requests().map(send));
      if (after.every((a) => a.status < 300)) break;
    }
    const servingAgainMs = Date.now() - resumedAt;
    expect(after.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    acknowledged.push(...after.filter((a) => a.status === 201).map((a) => a.body.inventory_id));

    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    const rows = await sql<{ id: string }[]>`select id from public.inventory_records where product_id = ${productId}`;
    await sql.end();
    const present = new Set(rows.map((row) => row.id));
    expect(acknowledged.filter((id) => !present.has(id))).toEqual([]);
    console.info(
      `database stall: ${STALL_MS} ms stopped, ${during.length} requests answered meanwhile, longest ` +
        `${Math.max(...during.map((a) => a.ms))} ms, ${during.filter((a) => a.status >= 500 && a.status !== 503).length} ` +
        `5xx other than 503; serving again ${servingAgainMs} ms after the resume; ${rows.length - acknowledged.length} ` +
        `stock-ins applied beyond the ${acknowledged.length} acknowledged`,
    );
  }, 90_000);
});

describe('a slow upload to a healthy database', () => {
  it('a body that takes twice the database bound to arrive, within HTTP_REQUEST_TIMEOUT, is answered 201, not the 503 of a stalled database', async () => {
    const body = JSON.stringify({ product_id: productId, quantity: 1, note: 'a slow upload' });
    const url = new URL(`${functions.url}/functions/v1/stock-in`);
    const pieces = 8;
    const res = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${SERVICE_ROLE_KEY}`, 'content-type': 'application/json', 'content-length': body.length },
      }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      const size = Math.ceil(body.length / pieces);
      // Piece by piece over twice the bound (4 s): each piece well within the front's deadlines.
      let sent = 0;
      const next = () => {
        req.write(body.slice(sent * size, (sent + 1) * size));
        if (++sent < pieces) setTimeout(next, (2 * REQUEST_TIMEOUT_S * 1000) / (pieces - 1));
        else req.end();
      };
      next();
    });
    expect([res.status, res.body.success]).toEqual([201, true]);
  });
});

describe('a hot row under a short bound', () => {
  it('a write waiting on a row lock gets its 409 LOCK_TIMEOUT after a quarter of the request bound, not the 503 of the bound', async () => {
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      const res = await sql.begin(async (tx) => {
        await tx`select 1 from public.products where id = ${productId} for update`;
        const answer = await fetch(`${functions.url}/functions/v1/stock-in`, {
          method: 'POST',
          headers: { authorization: `Bearer ${SERVICE_ROLE_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ product_id: productId, quantity: 1 }),
        });
        return { status: answer.status, body: await answer.json() };
      });
      expect([res.status, res.body.code]).toEqual([409, 'LOCK_TIMEOUT']);
    } finally {
      await sql.end();
    }
  });
});
