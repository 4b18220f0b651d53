// GET /campaigns/attribution: the HTTP door to calculate_campaign_attributions, for front ends that do
// not call supabase.rpc. It must answer exactly what the database function answers for the caller.
import { describe, expect, it } from 'vitest';
import { asRole, call, database, DEMO_ADMIN_ID, tokens } from '../support/client.ts';
import { attributions, freshDay, storeToday, withActiveCampaigns } from '../support/campaigns.ts';

const sql = database();
const today = storeToday();

describe('the attribution endpoint', () => {
  it("answers the database function's result for the date and amount", async () => {
    const res = await call(`campaigns/attribution?date=${today}&order_amount=100`, { token: tokens.customer });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const { result } = await asRole(
      sql,
      { role: 'authenticated', sub: DEMO_ADMIN_ID },
      async (tx) => (await tx`select public.calculate_campaign_attributions(${today}::date, 100) as r`)[0].r,
    );
    expect(res.body.data.total_active_campaigns).toBe(result.total_active_campaigns);
    expect(res.body.data.total_active_campaigns).toBeGreaterThan(0);
    expect(res.body.data.attributions).toEqual(result.attributions);
    const cents = res.body.data.attributions.reduce((sum: number, a: any) => sum + Math.round(a.attributed_amount * 100), 0);
    expect(cents).toBe(10_000);
  });

  it.each([
    ['', 'date'],
    ['date=2026-02-30', 'date'],
    [`date=${today}&order_amount=-5`, 'order_amount'],
    [`date=${today}&order_amount=1.234`, 'order_amount'],
    [`date=${today}&campaign=1`, 'campaign'],
  ])('refuses ?%s with 400 naming %s', async (query, field) => {
    const res = await call(`campaigns/attribution?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', details: { field } } });
  });

  it('requires a signed-in caller', async () => {
    expect((await call(`campaigns/attribution?date=${today}`, { token: tokens.anon })).status).toBe(401);
  });
});

describe('the layer multipliers', () => {
  it('the catalogue serves the multipliers attribution applies to each layer', async () => {
    const groups = await call('campaign-types/groups');
    expect(groups.status).toBe(200);
    const layers = ['site-wide', 'target-oriented', 'category-specific'] as const;
    const served = layers.map((layer) => groups.body.data[layer].multiplier as number);
    expect(new Set(served).size).toBe(3);
    // Weight 1 and priority 50 make a raw weight of exactly the layer's multiplier.
    const day = freshDay();
    const rawWeights = await withActiveCampaigns(
      sql,
      day,
      layers.map((layer) => ({ layer, weight: 1, priority: 50 })),
      async (tx, ids) => {
        const answer = await attributions(tx, day);
        return ids.map((id) => answer.attributions.find((a: { campaign_id: string }) => a.campaign_id === id).raw_weight);
      },
    );
    expect(rawWeights).toEqual(served);
  });
});
