/**
 * business-health-analytics over HTTP: who may call, strict parameters, the flags, the envelope of each
 * failure, and that no raw amount ever leaves the database.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startFunctions } from '../../scripts/lib/stack.mjs';
import { call, createUser, database, tokens } from '../support/client.ts';

const sql = database();
const FN = 'business-health-analytics';

/** A distinct client address per test, so no test spends another's anonymous rate limit. */
const ip = () => `198.51.100.${Math.floor(Math.random() * 250) + 1}-${randomUUID()}`;
const health = (body: unknown, token: string | null = tokens.service, headers: Record<string, string> = {}) =>
  call(FN, { method: 'POST', token, body, headers: { 'x-forwarded-for': ip(), ...headers } });

function expectScores(data: any) {
  for (const [name, value] of Object.entries(data.metrics)) {
    if (name === 'system' && value === null) continue;
    expect(value, name).toBeTypeOf('number');
    expect(value as number, name).toBeGreaterThanOrEqual(0);
    expect(value as number, name).toBeLessThanOrEqual(10);
  }
  for (const name of ['customerQuality', 'operationalEfficiency', 'supportEffectiveness', 'overallScore']) {
    expect(data.scoreDetails[name], name).toBeGreaterThanOrEqual(0);
    expect(data.scoreDetails[name], name).toBeLessThanOrEqual(100);
  }
  expect(['優秀', '良好', '普通', '需改善', '待加強']).toContain(data.scoreDetails.rating);
}

describe('the words’ language (Accept-Language)', () => {
  it('is the seeds’ Traditional Chinese by default and English when asked, saying which and varying by it', async () => {
    const cjk = /[\u3000-\u9fff\uff00-\uffef]/;
    const zh = await health({ includeSystemHealth: false });
    expect(zh.status).toBe(200);
    expect(zh.headers.get('content-language')).toBe('zh-TW');
    expect(zh.headers.get('vary')).toMatch(/Accept-Language/);
    expect(zh.body.data.scoreDetails.rating).toMatch(cjk);
    const en = await health({ includeSystemHealth: false }, tokens.service, { 'accept-language': 'en-GB,en;q=0.9,zh-TW;q=0.5' });
    expect(en.status).toBe(200);
    expect(en.headers.get('content-language')).toBe('en');
    expect(['Excellent', 'Good', 'Fair', 'Needs improvement', 'Poor']).toContain(en.body.data.scoreDetails.rating);
    expect(en.body.data.trends.description).not.toMatch(cjk);
    expect(['上升', '下降', '持平']).toContain(en.body.data.trends.direction);
    for (const insight of en.body.data.insights) {
      for (const word of [insight.title, insight.description, ...insight.actions]) expect(word).not.toMatch(cjk);
    }
    const browser = await health({ includeSystemHealth: false }, tokens.service, { 'accept-language': 'zh-TW,zh;q=0.9,en;q=0.8' });
    expect(browser.headers.get('content-language')).toBe('zh-TW');
  });
});

describe('callers (seed 03: anonymous with the public key or no header, users, the service key)', () => {
  it.each([
    ['no Authorization header', null],
    ['the anon key', tokens.anon],
    ['a customer', tokens.customer],
    ['an administrator', tokens.admin],
    ['the service key', tokens.service],
  ])('answers %s with scores', async (_, token) => {
    const res = await health({}, token);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.data)).toEqual(['metrics', 'scoreDetails', 'trends', 'insights', 'timestamp']);
    expect(Object.keys(res.body.data.metrics).sort()).toEqual(
      ['fulfillment', 'marketing', 'products', 'revenue', 'satisfaction', 'support', 'system'],
    );
    expect(res.body.data.metrics.marketing).toBe(0);
    expectScores(res.body.data);
    expect(new Date(res.body.data.timestamp).toISOString()).toBe(res.body.data.timestamp);
    expect(res.body.data.insights.length).toBeLessThanOrEqual(5);
  });

  it('refuses a forged token with 401, never downgrading it to anonymous', async () => {
    const res = await health({}, `${tokens.service.slice(0, -4)}AAAA`);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
  });

  it('refuses a signed token whose account was deleted: 401 UNAUTHORIZED, as every function does', async () => {
    const user = await createUser(sql);
    await sql`delete from auth.users where id = ${user.id}`;
    const res = await health({}, user.token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: expect.any(String), code: 'UNAUTHORIZED' });
  });

  it('is not reachable through PostgREST RPC, where the rate limits would not apply', async () => {
    const [row] = await sql`select n.nspname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
                            where p.proname = 'business_health'`;
    expect(row.nspname).toBe('health');
  });
});

describe('strict parameters (CONTRACT §3B: 400 INVALID_PARAMETER with parameter, provided, expected)', () => {
  it.each([
    [{ includeTrends: 'true' }, 'includeTrends', 'true', [true, false]],
    [{ includeInsights: 1 }, 'includeInsights', 1, [true, false]],
    [{ includeSystemHealth: null }, 'includeSystemHealth', null, [true, false]],
    [{ period: '1y' }, 'period', '1y', ['7d', '30d', '90d']],
    [{ period: 30 }, 'period', 30, ['7d', '30d', '90d']],
    [{ period: '30D' }, 'period', '30D', ['7d', '30d', '90d']],
    [{ periodd: '7d' }, 'periodd', '7d', ['period', 'includeSystemHealth', 'includeTrends', 'includeInsights']],
    [['7d'], 'body', ['7d'], ['a JSON object']],
    [null, 'body', null, ['a JSON object']],
  ])('refuses %j', async (body, parameter, provided, expected) => {
    const res = await health(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: expect.any(String),
      code: 'INVALID_PARAMETER',
      details: { parameter, provided, expected },
    });
  });

  it('refuses malformed JSON with the same details shape', async () => {
    const res = await call(FN, {
      method: 'POST',
      token: tokens.service,
      rawBody: '{"period": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_PARAMETER', details: { parameter: 'body' } });
  });

  it('takes the defaults (30d, every flag on) from an empty body or none', async () => {
    const v2 = { accept: 'application/vnd.api+json;version=2.0' };
    for (const body of [undefined, {}]) {
      const res = await health(body, tokens.service, v2);
      expect(res.status).toBe(200);
      // 30 store days read (2.0 names them); the trends, the insights and the system metric all there.
      const { firstDay, lastDay } = res.body.data.marketingDetails;
      expect((Date.parse(lastDay) - Date.parse(firstDay)) / 86_400_000).toBe(29);
      expect(Object.keys(res.body.data.trends)).toEqual(expect.arrayContaining(['change', 'direction', 'description']));
      expect(Array.isArray(res.body.data.insights)).toBe(true);
      expect(res.body.data.metrics.system).toBeGreaterThanOrEqual(0);
    }
  });

  it.each(['7d', '30d', '90d'])('computes period %s', async (period) => {
    const res = await health({ period });
    expect(res.status).toBe(200);
    expectScores(res.body.data);
  });

  it('admits only POST', async () => {
    const res = await call(FN, { method: 'GET', token: tokens.service });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('each flag off', () => {
  it('includeSystemHealth false: metrics.system is null (CONTRACT §3B)', async () => {
    const res = await health({ includeSystemHealth: false });
    expect(res.status).toBe(200);
    expect(res.body.data.metrics).toHaveProperty('system', null);
  });

  it('includeTrends false: no trends', async () => {
    const res = await health({ includeTrends: false });
    expect(res.body.data).not.toHaveProperty('trends');
    expect(res.body.data).toHaveProperty('insights');
  });

  it('includeInsights false: no insights', async () => {
    const res = await health({ includeInsights: false });
    expect(res.body.data).not.toHaveProperty('insights');
    expect(res.body.data).toHaveProperty('trends');
  });
});

describe('no raw figures in the response', () => {
  const marker = 987654.32;
  let customerId: string;

  afterAll(async () => {
    if (!customerId) return;
    await sql`delete from public.support_tickets where customer_id = ${customerId}`;
    await sql`delete from public.orders where customer_id = ${customerId}`;
    await sql`delete from public.customers where id = ${customerId}`;
  });

  it('answers scores, ratios and percentages only, whatever the amounts', async () => {
    const [customer] = await sql`insert into public.customers (email, name)
                                 values (${`${randomUUID()}@health-raw.test`}, 'Raw') returning id`;
    customerId = customer.id;
    await sql`insert into public.orders (customer_id, status, total_amount, ordered_at)
              values (${customerId}, 'paid', ${marker}, private.now() - interval '1 day'),
                     (${customerId}, 'paid', ${marker}, private.now() - interval '40 days')`;
    for (const period of ['7d', '30d', '90d']) {
      const res = await health({ period });
      expect(res.status).toBe(200);
      expectScores(res.body.data);
      expect(res.text).not.toMatch(/987654|1975308/);
      for (const insight of res.body.data.insights) {
        expect(insight.confidence).toBeGreaterThanOrEqual(0);
        expect(insight.confidence).toBeLessThanOrEqual(1);
      }
      expect(res.text).not.toMatch(/amount|revenue"\s*:\s*\d{3,}/i);
    }
  });
});

describe('the database away', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After, leaking nothing, when the database cannot be reached', async () => {
    const deadDb = `postgresql://postgres:postgres@127.0.0.1:${await freePort()}/postgres`;
    const server = await startFunctions({ dbUrl: deadDb, port: await freePort() });
    try {
      for (const token of [null, tokens.service]) {
        const direct = await fetch(`${server.url}/functions/v1/${FN}`, {
          method: 'POST',
          headers: token ? { authorization: `Bearer ${token}` } : {},
        });
        expect(direct.status).toBe(503);
        expect(direct.headers.get('retry-after')).toBe('5');
        expect(await direct.json()).toEqual({
          success: false,
          error: 'The database is unavailable; retry shortly',
          code: 'SERVICE_UNAVAILABLE',
          details: { retry_after: 5 },
        });
      }
    } finally {
      await server.stop();
    }
  });
});
