// GET /campaigns/calendar, /campaigns/collaboration and /campaigns/revenue-attribution: the overlap
// calendar and the two analyses over a range of days (at most 366), future days included, agreeing with
// the attribution endpoint (calculate_campaign_attributions) for every day they list; the range rules.
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, campaignIn, freshDay, lastOrderWrite, storeToday } from '../support/campaigns.ts';
import { asRole, call, database, DEMO_ADMIN_ID, tokens } from '../support/client.ts';

const sql = database();
const today = storeToday();
const ROUTES = ['calendar', 'collaboration', 'revenue-attribution'] as const;

const dayList = (from: string, to: string) => {
  const days: string[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) days.push(day);
  return days;
};

/**
 * On days nobody else uses: a category-specific campaign active on days 0-9, a target-oriented one on
 * days 5-14 (1.32 and 2.70 raw: 0.3284 and 0.6716 together), and a draft, a paused and a cancelled
 * campaign over the same days, which count nowhere.
 */
describe('a planned window in the future', () => {
  const day = freshDay();
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    ids.category = await campaignIn(['active'], {
      campaign_type: 'brand_week',
      start_date: day,
      end_date: addDays(day, 9),
      attribution_weight: 1.2,
      priority_score: 60,
    });
    ids.target = await campaignIn(['active'], {
      campaign_type: 'vip_exclusive',
      start_date: addDays(day, 5),
      end_date: addDays(day, 14),
      attribution_weight: 1.6,
      priority_score: 85,
    });
    await campaignIn([], { start_date: day, end_date: addDays(day, 14) });
    await campaignIn(['active', 'paused'], { start_date: day, end_date: addDays(day, 14) });
    await campaignIn(['active', 'cancelled'], { start_date: day, end_date: addDays(day, 14) });
  });

  it('the calendar lists the days active campaigns will run, with the weights the attribution endpoint gives each day', async () => {
    const from = addDays(day, -2);
    const to = addDays(day, 16);
    const res = await call(`campaigns/calendar?from=${from}&to=${to}`, { token: tokens.customer });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ from, to });
    const { days } = res.body.data;
    expect(days.map((d: any) => d.date)).toEqual(dayList(day, addDays(day, 14)));
    for (const [offset, entry] of days.entries()) {
      const expected = offset < 5 ? [[ids.category, 1]] : offset < 10 ? [[ids.target, 0.6716], [ids.category, 0.3284]] : [[ids.target, 1]];
      expect(entry.active_campaigns.map((c: any) => [c.campaign_id, c.normalized_weight]), entry.date).toEqual(expected);
      expect(entry).toMatchObject({
        active_campaign_count: expected.length,
        total_revenue: 0,
        competition_intensity: expected.length === 2 ? 'medium' : 'low',
        active_layers: expected.length === 2 ? ['target-oriented', 'category-specific'] : [offset < 5 ? 'category-specific' : 'target-oriented'],
      });
      expect(entry.active_campaigns.every((c: any) => c.attributed_amount === 0)).toBe(true);
    }
    for (const date of dayList(from, to)) {
      const answer = await call(`campaigns/attribution?date=${date}`, { token: tokens.customer });
      const entry = days.find((d: any) => d.date === date);
      expect(answer.body.data.attributions.map((a: any) => [a.campaign_id, a.normalized_weight]), date)
        .toEqual(entry ? entry.active_campaigns.map((c: any) => [c.campaign_id, c.normalized_weight]) : []);
    }
  });

  it('collaboration pairs the two campaigns on the five days they share', async () => {
    const res = await call(`campaigns/collaboration?from=${addDays(day, -2)}&to=${addDays(day, 16)}`);
    expect(res.status, res.text).toBe(200);
    const [first, second] = [ids.category, ids.target].sort();
    expect(res.body.data.pairs).toEqual([{
      campaign_1_id: first,
      campaign_1_name: expect.any(String),
      campaign_1_layer: first === ids.category ? 'category-specific' : 'target-oriented',
      campaign_2_id: second,
      campaign_2_name: expect.any(String),
      campaign_2_layer: second === ids.category ? 'category-specific' : 'target-oriented',
      overlap_days: 5,
      first_overlap_date: addDays(day, 5),
      last_overlap_date: addDays(day, 9),
      same_layer: false,
    }]);
  });

  it('revenue attribution counts each campaign on its days of the range only, with no revenue on days without orders', async () => {
    const res = await call(`campaigns/revenue-attribution?from=${addDays(day, 7)}&to=${addDays(day, 30)}`);
    expect(res.status, res.text).toBe(200);
    const byId = new Map(res.body.data.campaigns.map((c: any) => [c.campaign_id, c]));
    expect([...byId.keys()].sort()).toEqual([ids.category, ids.target].sort());
    // Days 7-9 shared (0.3284 / 0.6716), then the target-oriented one alone on days 10-14.
    expect(byId.get(ids.category)).toMatchObject({
      attribution_layer: 'category-specific',
      analysis_date: today,
      active_days: 3,
      first_active_date: addDays(day, 7),
      last_active_date: addDays(day, 9),
      total_attributed_revenue: 0,
      avg_attribution_weight: 0.3284,
    });
    expect(byId.get(ids.target)).toMatchObject({
      attribution_layer: 'target-oriented',
      active_days: 8,
      first_active_date: addDays(day, 7),
      last_active_date: addDays(day, 14),
      total_attributed_revenue: 0,
      avg_attribution_weight: Math.round((3 * 6716 + 5 * 10_000) / 8) / 10_000,
    });
  });
});

describe('over the seeded days', () => {
  /** The SQL function's rows as the administrator (a supabase-js caller's read), as JSON like the API's. */
  async function rows(name: string, from: string, to: string, order: string) {
    const { result, error } = await asRole(
      sql,
      { role: 'authenticated', sub: DEMO_ADMIN_ID },
      (tx) => tx.unsafe(`select coalesce(json_agg(r order by ${order}), '[]') as rows from public.${name}($1, $2) r`, [from, to]),
    );
    if (error) throw error;
    return (result as any)[0].rows;
  }

  it.each([
    ['calendar', 'days', 'campaign_calendar', 'date'],
    ['collaboration', 'pairs', 'campaign_collaboration', 'overlap_days desc, first_overlap_date, campaign_1_id, campaign_2_id'],
    ['revenue-attribution', 'campaigns', 'revenue_attribution', 'total_attributed_revenue desc, campaign_id'],
  ])('GET /campaigns/%s over 30 days back and 30 ahead answers the SQL function for the caller', async (route, key, name, order) => {
    const from = addDays(today, -30);
    const to = addDays(today, 30);
    // Other files write campaigns and orders concurrently: compare with rows that held still around the call,
    // with no order written meanwhile.
    for (let attempt = 0; attempt < 20; attempt++) {
      if (attempt) await new Promise((resolve) => setTimeout(resolve, 25 * attempt));
      const written = await lastOrderWrite(sql);
      const before = await rows(name, from, to, order);
      const res = await call(`campaigns/${route}?from=${from}&to=${to}`);
      const after = await rows(name, from, to, order);
      if (JSON.stringify(before) !== JSON.stringify(after) || (await lastOrderWrite(sql)) !== written) continue;
      expect(res.status, res.text).toBe(200);
      expect(before.length).toBeGreaterThan(0);
      expect(res.body.data[key]).toEqual(before);
      if (route === 'calendar') {
        expect(res.body.data.days.some((d: any) => d.date < today && d.total_revenue > 0)).toBe(true);
        expect(res.body.data.days.some((d: any) => d.date > today)).toBe(true);
      }
      return;
    }
    throw new Error('the rows and the orders never held still for twenty attempts');
  });

  it("a customer gets the same days but only their own orders' revenue", async () => {
    const from = addDays(today, -30);
    const res = await call(`campaigns/calendar?from=${from}&to=${today}`, { token: tokens.customer });
    expect(res.status).toBe(200);
    expect(res.body.data.days.length).toBeGreaterThan(0);
    expect(res.body.data.days.every((d: any) => d.total_revenue === 0)).toBe(true);
  });
});

describe('the range', () => {
  it.each(ROUTES)('/%s: at most 366 days per call, both ends included: 366 answers, 367 is 400 naming to', async (route) => {
    const from = '2028-01-01';
    expect((await call(`campaigns/${route}?from=${from}&to=2028-12-31`)).status).toBe(200);
    const res = await call(`campaigns/${route}?from=${from}&to=2029-01-01`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field: 'to', value: '2029-01-01', constraint: expect.stringContaining('on or before 2028-12-31') },
    });
  });

  it.each(ROUTES)('/%s: a start after the end is 422 INVALID_DATE_RANGE naming to, as for the list', async (route) => {
    const res = await call(`campaigns/${route}?from=${today}&to=${addDays(today, -1)}`);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_DATE_RANGE', details: { field: 'to', value: addDays(today, -1) } });
    expect((await call(`campaigns/${route}?from=${today}&to=${today}`)).status).toBe(200);
  });

  it.each(ROUTES.flatMap((route) =>
    [
      [`to=${today}`, 'from'],
      [`from=${today}`, 'to'],
      ['from=2026-02-30&to=2026-03-01', 'from'],
      ['from=2026-03-01&to=tomorrow', 'to'],
      [`from=${today}&to=${today}&date=${today}`, 'date'],
    ].map(([query, field]) => [route, query, field])
  ))('/%s?%s is 400 VALIDATION_ERROR naming %s', async (route, query, field) => {
    const res = await call(`campaigns/${route}?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });

  it.each(ROUTES)('/%s: needs a signed-in caller, and is never a campaign id', async (route) => {
    expect((await call(`campaigns/${route}?from=${today}&to=${today}`, { token: tokens.anon })).status).toBe(401);
    // Hono routes a method the fixed path lacks to `/{id}`, whose id the route refuses (docs/architecture.md).
    const wrong = await call(`campaigns/${route}`, { method: 'DELETE' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details).toMatchObject({ field: 'id', value: route });
  });
});
