/**
 * Rate limits (seed 03, CONTRACT §3B): 60 a minute per IP for anonymous callers, 120 per user, none for
 * the service key; counted atomically in PostgreSQL. The requests are cheap ones (an invalid period is
 * refused after it is counted), so the flood costs the suite little. A fixed window could roll over
 * between two requests of a burst; each burst therefore checks the window it landed in.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, createUser, database, tokens } from '../support/client.ts';

const sql = database();
const FN = 'business-health-analytics';

const request = (token: string | null, headers: Record<string, string> = {}, body: unknown = { period: 'flood' }) =>
  call(FN, { method: 'POST', token, body, headers });

/** Sends `n` requests at once and returns their statuses, or undefined if they straddled two windows. */
async function burst(n: number, send: () => Promise<{ status: number }>) {
  const before = Math.floor(Date.now() / 60_000);
  const statuses = (await Promise.all(Array.from({ length: n }, send))).map((res) => res.status);
  return Math.floor(Date.now() / 60_000) === before ? statuses : undefined;
}

async function stableBurst(n: number, send: () => Promise<{ status: number }>, fresh: () => void) {
  for (;;) {
    const statuses = await burst(n, send);
    if (statuses) return statuses;
    fresh();
  }
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe('anonymous callers: 60 requests a minute per IP', () => {
  it('refuses the 61st request of a concurrent burst with 429, counting exactly under concurrency', async () => {
    let address = `203.0.113.7, ${randomUUID()}`;
    const statuses = await stableBurst(70, () => request(null, { 'x-forwarded-for': address }), () => {
      address = `203.0.113.8, ${randomUUID()}`;
    });
    expect(count(statuses, 400)).toBe(60);
    expect(count(statuses, 429)).toBe(10);
  });

  it('answers 429 with Retry-After and the seed’s details, and counts the anon key like no header', async () => {
    for (;;) {
      const before = Math.floor(Date.now() / 60_000);
      const headers = { 'x-forwarded-for': `10.0.0.1, ${randomUUID()}` };
      await Promise.all(Array.from({ length: 30 }, () => request(null, headers)));
      await Promise.all(Array.from({ length: 30 }, () => request(tokens.anon, headers)));
      const res = await request(tokens.anon, headers, {});
      if (Math.floor(Date.now() / 60_000) !== before) continue;
      expect(res.status).toBe(429);
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(res.body).toEqual({
        success: false,
        error: expect.any(String),
        code: 'RATE_LIMIT_EXCEEDED',
        details: { limit: 60, period: '60s', retry_after: retryAfter },
      });
      return;
    }
  });

  it('cannot be escaped by varying the first x-forwarded-for hop: the last one, the gateway’s, is the address', async () => {
    let address = randomUUID();
    const statuses = await stableBurst(
      70,
      () => request(null, { 'x-forwarded-for': `${randomUUID()}, ${address}` }),
      () => (address = randomUUID()),
    );
    expect(count(statuses, 400)).toBe(60);
    expect(count(statuses, 429)).toBe(10);
  });

  it('keeps separate counts for separate addresses (x-forwarded-for last hop, else x-real-ip)', async () => {
    const first = randomUUID();
    await Promise.all(Array.from({ length: 60 }, () => request(null, { 'x-real-ip': first })));
    const other = await request(null, { 'x-real-ip': randomUUID() });
    expect(other.status).toBe(400);
  });
});

describe('users: 120 requests a minute per user', () => {
  it('refuses the 121st request of one user and not another user’s', async () => {
    let user = await createUser(sql);
    const statuses = await stableBurst(125, () => request(user.token, { 'x-forwarded-for': randomUUID() }), () => {});
    expect(count(statuses, 400)).toBe(120);
    expect(count(statuses, 429)).toBe(5);
    user = await createUser(sql);
    expect((await request(user.token)).status).toBe(400);
  });
});

describe('the service key', () => {
  it('is never limited', async () => {
    const address = randomUUID();
    const statuses = await Promise.all(
      Array.from({ length: 130 }, () => request(tokens.service, { 'x-forwarded-for': address })),
    );
    expect(count(statuses.map((r) => r.status), 429)).toBe(0);
    expect(count(statuses.map((r) => r.status), 400)).toBe(130);
  });
});
