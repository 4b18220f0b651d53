// GET /campaigns/attribution?limit=N: the first N entries of the day's answer, for callers that need less
// than every campaign of a crowded day; the rest of the answer still describes the whole day.
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, freshDay } from '../support/campaigns.ts';
import { call, database, unique } from '../support/client.ts';

const sql = database();
const day = freshDay();

beforeAll(async () => {
  await sql.begin(async (tx) => {
    const ids = await tx`
      insert into public.campaigns (name, start_date, end_date, campaign_type, attribution_weight, priority_score)
      select ${unique('Limited')} || ' ' || g, ${addDays(day, -1)}, ${addDays(day, 1)},
             (array['brand_week', 'vip_exclusive'])[1 + g % 2], 1 + (g % 5) * 0.5, g
      from generate_series(1, 12) g
      returning id`;
    await tx`update public.campaigns set status = 'active' where id = any(${ids.map((r) => r.id)}::uuid[])`;
  });
});

describe('the first entries only', () => {
  it('limit keeps the first entries in the answer order; the count, layers and amounts are the whole day', async () => {
    const full = await call(`campaigns/attribution?date=${day}&order_amount=100`);
    const first = await call(`campaigns/attribution?date=${day}&order_amount=100&limit=5`);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ ...full.body.data, attributions: full.body.data.attributions.slice(0, 5) });
    expect(first.body.data.total_active_campaigns).toBe(12);
    const all = await call(`campaigns/attribution?date=${day}&limit=100000`);
    expect(all.body.data.attributions).toHaveLength(12);
  });

  it.each(['0', '-1', '1.5', 'x', '100001'])('refuses limit=%s with 400 naming limit', async (limit) => {
    const res = await call(`campaigns/attribution?date=${day}&limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', details: { field: 'limit' } } });
  });
});
