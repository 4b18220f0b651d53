// Attribution (CONTRACT §3A): hand-checked cases, a randomized property test, activity derived from the
// status history, and the three views and the metrics endpoint agreeing with the function.
import { describe, expect, it } from 'vitest';
import {
  addDays,
  admin,
  attributions,
  campaignIn,
  freshDay,
  lastOrderWrite,
  type PlannedCampaign,
  storeToday,
  withActiveCampaigns,
} from '../support/campaigns.ts';
import { asRole, call, callRetryingLocks, database, DEMO_CUSTOMER_ID, tokens } from '../support/client.ts';
import { seededRandom } from '../support/random.ts';

const sql = database();
const LAYER_RANK = { 'site-wide': 0, 'target-oriented': 1, 'category-specific': 2 } as const;
const units = (weight: number) => Math.round(weight * 10_000);
const cents = (amount: number) => Math.round(amount * 100);

describe('hand-checked attributions', () => {
  const trio: PlannedCampaign[] = [
    { layer: 'site-wide', weight: 2, priority: 95 }, //          2.00 x 1.50 x 1.45 = 4.35
    { layer: 'target-oriented', weight: 1.6, priority: 85 }, //  1.60 x 1.25 x 1.35 = 2.70
    { layer: 'category-specific', weight: 1.2, priority: 60 }, // 1.20 x 1.00 x 1.10 = 1.32
  ];

  it('weighs by weight, layer and priority, and gives the rounding unit to the largest remainder', async () => {
    const day = freshDay();
    const result = await withActiveCampaigns(sql, day, trio, (tx) => attributions(tx, day, 100));
    expect(result).toMatchObject({ attribution_date: day, total_active_campaigns: 3, order_amount: 100 });
    expect(result.active_layers).toEqual(['site-wide', 'target-oriented', 'category-specific']);
    // 4.35 / 8.37 = 0.519713, 2.70 / 8.37 = 0.322581, 1.32 / 8.37 = 0.157706: floors sum to 0.9999 and
    // the missing 0.0001 goes to the largest remainder (0.322581).
    expect(result.attributions.map((a: any) => [a.attribution_layer, a.raw_weight, a.normalized_weight, a.attribution_strength, a.attributed_amount]))
      .toEqual([
        ['site-wide', 4.35, 0.5197, 'dominant', 51.97],
        ['target-oriented', 2.7, 0.3226, 'significant', 32.26],
        ['category-specific', 1.32, 0.1577, 'moderate', 15.77],
      ]);
    expect(result.attributions[0]).toEqual({
      campaign_id: expect.any(String),
      campaign_name: 'Scenario 0',
      campaign_type: 'anniversary_sale',
      attribution_layer: 'site-wide',
      raw_weight: 4.35,
      normalized_weight: 0.5197,
      attribution_strength: 'dominant',
      period_start: addDays(day, -2),
      period_end: addDays(day, 2),
      attributed_amount: 51.97,
    });
  });

  it('apportions an amount too small to split by the same rule: the one cent goes to the largest share', async () => {
    const day = freshDay();
    const result = await withActiveCampaigns(sql, day, trio, (tx) => attributions(tx, day, 0.01));
    expect(result.attributions.map((a: any) => a.attributed_amount)).toEqual([0.01, 0, 0]);
  });

  it('one active campaign gets weight 1 and is dominant; without an amount there is no attributed_amount', async () => {
    const day = freshDay();
    const result = await withActiveCampaigns(sql, day, [{ layer: 'category-specific', weight: 0.3, priority: 10 }], (tx) =>
      attributions(tx, day));
    expect(result.total_active_campaigns).toBe(1);
    expect(result.attributions[0]).toMatchObject({ normalized_weight: 1, attribution_strength: 'dominant' });
    expect(result.attributions[0]).not.toHaveProperty('attributed_amount');
    expect(result).not.toHaveProperty('order_amount');
  });

  it('no active campaign: zero, no layers, no attributions', async () => {
    const day = freshDay();
    const [{ result }] = await sql`select public.calculate_campaign_attributions(${day}, 50) as result`;
    expect(result).toEqual({ attribution_date: day, total_active_campaigns: 0, active_layers: [], attributions: [], order_amount: 50 });
  });

  it('campaigns all weighted 0 share equally, the odd unit going to the higher layer', async () => {
    const day = freshDay();
    const result = await withActiveCampaigns(sql, day, [
      { layer: 'category-specific', weight: 0, priority: 50 },
      { layer: 'target-oriented', weight: 0, priority: 50 },
      { layer: 'site-wide', weight: 0, priority: 50 },
    ], (tx) => attributions(tx, day, 10));
    expect(result.attributions.map((a: any) => [a.attribution_layer, a.normalized_weight, a.attributed_amount])).toEqual([
      ['site-wide', 0.3334, 3.34],
      ['target-oriented', 0.3333, 3.33],
      ['category-specific', 0.3333, 3.33],
    ]);
  });

  it.each([
    [null, 10, 'target_date'],
    ['2030-01-01', -1, 'order_amount'],
    ['2030-01-01', 1.005, 'order_amount'],
  ])('refuses target_date %s with order_amount %s: PT400 naming %s', async (day, amount, field) => {
    const { error } = await asRole(sql, admin, (tx) => tx`select public.calculate_campaign_attributions(${day}, ${amount})`);
    expect(error?.code).toBe('PT400');
    expect(JSON.parse(error!.hint!)).toMatchObject({ field });
  });
});

describe('attribution properties on random campaigns', () => {
  const SEED = 20261123;
  const SCENARIOS = 30;

  it(`hold for ${SCENARIOS} random days (seed ${SEED})`, async () => {
    const { next: random, pick } = seededRandom(SEED);
    const WEIGHTS = [0, 0.01, 0.5, 1, 1.5, 2, 9.99];
    const PRIORITIES = [0, 1, 50, 99, 100];
    for (let scenario = 0; scenario < SCENARIOS; scenario++) {
      const count = 1 + Math.floor(random() * 6);
      // At most one site-wide campaign: the overlap rule forbids two active on one day.
      const planned: PlannedCampaign[] = Array.from({ length: count }, (_, i) => ({
        layer: i === 0 && random() < 0.6 ? 'site-wide' : pick(['target-oriented', 'category-specific'] as const),
        weight: pick(WEIGHTS),
        priority: pick(PRIORITIES),
      }));
      // Twins differing only in layer make the precedence property bite.
      if (count > 1 && random() < 0.7) planned[count - 1] = { ...planned[count - 1], weight: planned[0].weight, priority: planned[0].priority };
      const amount = Math.floor(random() * 100_000_000) / 100;
      const day = freshDay();
      const label = `scenario ${scenario}: ${JSON.stringify(planned)} amount ${amount}`;

      const { result, ids } = await withActiveCampaigns(sql, day, planned, async (tx, ids) => ({ result: await attributions(tx, day, amount), ids }));
      expect(result.total_active_campaigns, label).toBe(count);
      const byId = new Map(result.attributions.map((a: any) => [a.campaign_id, a]));
      expect([...byId.keys()].sort(), label).toEqual([...ids].sort());

      for (const a of result.attributions) {
        expect(a.normalized_weight, label).toBeGreaterThanOrEqual(0);
        expect(a.normalized_weight, label).toBeLessThanOrEqual(1);
        expect(units(a.normalized_weight) / 10_000, label).toBe(a.normalized_weight);
        const band = a.normalized_weight >= 0.5 ? 'dominant' : a.normalized_weight >= 0.25 ? 'significant' : a.normalized_weight >= 0.1 ? 'moderate' : 'minor';
        expect(a.attribution_strength, label).toBe(band);
      }
      expect(result.attributions.reduce((sum: number, a: any) => sum + units(a.normalized_weight), 0), label).toBe(10_000);
      expect(result.attributions.reduce((sum: number, a: any) => sum + cents(a.attributed_amount), 0), label).toBe(cents(amount));
      if (count === 1) expect(result.attributions[0], label).toMatchObject({ normalized_weight: 1, attribution_strength: 'dominant' });

      for (const [i, a] of planned.entries()) {
        for (const [j, b] of planned.entries()) {
          if (a.weight !== b.weight || a.priority !== b.priority || LAYER_RANK[a.layer] >= LAYER_RANK[b.layer]) continue;
          const higher = byId.get(ids[i]) as any;
          const lower = byId.get(ids[j]) as any;
          expect(higher.normalized_weight, `${label}: ${a.layer} vs ${b.layer}`).toBeGreaterThanOrEqual(lower.normalized_weight);
        }
      }
    }
  });
});

describe('activity per day comes from the status history', () => {
  const today = storeToday();

  /** Rewrites the history's timestamps as the table owner: the test's way of having lived through the past. */
  async function backdate(id: string, times: string[]) {
    const rows = await sql`select id from public.campaign_status_history where campaign_id = ${id} order by id`;
    expect(rows).toHaveLength(times.length);
    for (const [i, row] of rows.entries()) {
      await sql`update public.campaign_status_history set changed_at = ${times[i]}::timestamptz where id = ${row.id}`;
    }
  }

  async function countedDays(id: string, days: string[]) {
    const counted: string[] = [];
    await asRole(sql, admin, async (tx) => {
      for (const day of days) {
        const result = await attributions(tx, day);
        if (result.attributions.some((a: any) => a.campaign_id === id)) counted.push(day);
      }
    });
    return counted;
  }

  it('a campaign completed today still counts for every day it was active, and not after', async () => {
    const id = await campaignIn(['active'], { campaign_type: 'vip_exclusive', start_date: addDays(today, -3), end_date: addDays(today, 3) });
    await backdate(id, [`${addDays(today, -5)}T09:00:00+08:00`, `${addDays(today, -3)}T08:00:00+08:00`]);
    const res = await callRetryingLocks(`campaigns/${id}`, { method: 'PUT', body: { status: 'completed' } });
    expect(res.status).toBe(200);
    const days = [-4, -3, -2, -1, 0, 1, 2].map((n) => addDays(today, n));
    expect(await countedDays(id, days)).toEqual(days.slice(1, 5));
  });

  it('a paused stretch does not count; the days of pausing and resuming do', async () => {
    const id = await campaignIn(['active', 'paused', 'active'], {
      campaign_type: 'brand_week',
      start_date: addDays(today, -8),
      end_date: addDays(today, -1),
    });
    await backdate(id, [
      `${addDays(today, -10)}T09:00:00+08:00`,
      `${addDays(today, -8)}T08:00:00+08:00`,
      `${addDays(today, -6)}T12:00:00+08:00`,
      `${addDays(today, -3)}T09:00:00+08:00`,
    ]);
    const days = [-9, -8, -7, -6, -5, -4, -3, -2, -1, 0].map((n) => addDays(today, n));
    expect(await countedDays(id, days)).toEqual([-8, -7, -6, -3, -2, -1].map((n) => addDays(today, n)));
  });

  it('a campaign activated today does not count for its earlier days, and a deleted one counts nowhere', async () => {
    const id = await campaignIn(['active'], { campaign_type: 'brand_week', start_date: addDays(today, -2), end_date: addDays(today, 2) });
    const days = [-2, -1, 0, 1].map((n) => addDays(today, n));
    expect(await countedDays(id, days)).toEqual(days.slice(2));
    await call(`campaigns/${id}`, { method: 'DELETE' });
    expect(await countedDays(id, days)).toEqual([]);
  });
});

/** Runs `work` as the administrator in one repeatable-read snapshot, so concurrent test files cannot move the data under it. */
async function inSnapshot<T>(work: (tx: any) => Promise<T>, sub = admin.sub): Promise<T> {
  return sql.begin('isolation level repeatable read', async (tx) => {
    await tx`select set_config('role', 'authenticated', true),
                    set_config('request.jwt.claims', ${JSON.stringify({ role: 'authenticated', sub })}, true)`;
    return work(tx);
  }) as Promise<T>;
}

describe('the views agree with the function on the seeded data', () => {
  it('campaign_overlap_calendar lists exactly the days with an active campaign, each as the function attributes its revenue', async () => {
    await inSnapshot(async (tx) => {
      const calendar = await tx`select date::text, active_campaign_count, active_campaigns, active_layers, total_revenue, competition_intensity
                                from public.campaign_overlap_calendar order by date`;
      expect(calendar.length).toBeGreaterThan(100);
      const first = calendar[0].date;
      const listed = new Set(calendar.map((c: any) => c.date));
      for (let day = addDays(first, -5); day <= storeToday(); day = addDays(day, 1)) {
        const [{ revenue }] = await tx`select coalesce(sum(total_amount), 0) as revenue from public.orders
                                       where order_date = ${day} and private.counts_as_revenue(counted_until)`;
        const result = await attributions(tx, day, revenue);
        expect(listed.has(day), day).toBe(result.total_active_campaigns > 0);
        if (!listed.has(day)) continue;
        const row = calendar.find((c: any) => c.date === day);
        expect(row.total_revenue, day).toBe(revenue);
        expect(row.active_campaign_count, day).toBe(result.total_active_campaigns);
        expect(row.active_layers, day).toEqual(result.active_layers);
        expect(row.competition_intensity, day).toBe(row.active_campaign_count >= 4 ? 'high' : row.active_campaign_count >= 2 ? 'medium' : 'low');
        expect(row.active_campaigns.map((c: any) => [c.campaign_id, c.normalized_weight, c.attributed_amount]), day)
          .toEqual(result.attributions.map((a: any) => [a.campaign_id, a.normalized_weight, a.attributed_amount]));
      }
    });
  });

  it('revenue_attribution_analysis is, per campaign, the sum over its days of the day revenue times its weight, to the cent', async () => {
    await inSnapshot(async (tx) => {
      const calendar = await tx`select date::text, total_revenue, active_campaigns from public.campaign_overlap_calendar`;
      const expected = new Map<string, { days: number; cents: number; weights: number; exact: number }>();
      for (const day of calendar) {
        const result = await attributions(tx, day.date, day.total_revenue);
        for (const a of result.attributions) {
          const e = expected.get(a.campaign_id) ?? { days: 0, cents: 0, weights: 0, exact: 0 };
          e.days += 1;
          e.cents += cents(a.attributed_amount);
          e.weights += units(a.normalized_weight);
          e.exact += day.total_revenue * a.normalized_weight;
          expected.set(a.campaign_id, e);
        }
      }
      const rows = await tx`select * from public.revenue_attribution_analysis`;
      expect(rows.map((r: any) => r.campaign_id).sort()).toEqual([...expected.keys()].sort());
      for (const row of rows) {
        const e = expected.get(row.campaign_id)!;
        expect(row.active_days, row.campaign_name).toBe(e.days);
        expect(cents(row.total_attributed_revenue), row.campaign_name).toBe(e.cents);
        // Each day's share is rounded to the cent so the day's revenue is attributed exactly.
        expect(Math.abs(row.total_attributed_revenue - e.exact), row.campaign_name).toBeLessThanOrEqual(0.01 * e.days + 1e-6);
        expect(row.avg_attribution_weight, row.campaign_name).toBe(Math.round(e.weights / e.days) / 10_000);
        expect(row.analysis_date.toISOString().slice(0, 10)).toBe(storeToday());
      }
      const seeded = rows.filter((r: any) => r.campaign_name === 'VIP Summer Lounge');
      expect(seeded).toHaveLength(1);
      // Active 26 days from its start to its completion, less the two whole days it was paused.
      expect(seeded[0].active_days).toBe(24);
    });
  });

  it('campaign_collaboration_analysis pairs exactly the campaigns the function counts on the same days', async () => {
    await inSnapshot(async (tx) => {
      const calendar = await tx`select date::text from public.campaign_overlap_calendar order by date`;
      const pairs = new Map<string, string[]>();
      for (const { date } of calendar) {
        const ids = (await attributions(tx, date)).attributions.map((a: any) => a.campaign_id).sort();
        for (let i = 0; i < ids.length; i++) {
          for (let j = i + 1; j < ids.length; j++) pairs.set(`${ids[i]}|${ids[j]}`, [...(pairs.get(`${ids[i]}|${ids[j]}`) ?? []), date]);
        }
      }
      const rows = await tx`select campaign_1_id, campaign_2_id, overlap_days, first_overlap_date::text, last_overlap_date::text
                            from public.campaign_collaboration_analysis`;
      expect(rows).toHaveLength(pairs.size);
      for (const row of rows) {
        const days = pairs.get(`${row.campaign_1_id}|${row.campaign_2_id}`)!;
        expect(row).toMatchObject({ overlap_days: days.length, first_overlap_date: days[0], last_overlap_date: days.at(-1) });
      }
    });
  });
});

describe('the metrics endpoint agrees with the views', () => {
  const SEEDED = ['VIP Summer Lounge', 'New Member Welcome Q4', 'Winter Collection'];

  async function viewFigures(name: string) {
    return inSnapshot(async (tx) => {
      const [campaign] = await tx`select id from public.campaigns where name = ${name} and deleted_at is null`;
      const [revenue] = await tx`select active_days, total_attributed_revenue from public.revenue_attribution_analysis
                                 where campaign_id = ${campaign.id}`;
      const [{ partners }] = await tx`select count(*)::int as partners from public.campaign_collaboration_analysis
                                      where ${campaign.id} in (campaign_1_id, campaign_2_id)`;
      const days = await tx`select date::text, active_campaign_count, e.entry from public.campaign_overlap_calendar
                            cross join lateral jsonb_array_elements(active_campaigns) as e(entry)
                            where e.entry ->> 'campaign_id' = ${campaign.id} order by date`;
      return { id: campaign.id as string, revenue, partners, days };
    });
  }

  it.each(SEEDED)('%s: revenue, days, collaborators, intensity and the daily series', async (name) => {
    // Other files write campaigns and orders concurrently: compare with views that held still around the call,
    // and with no order written meanwhile (one placed and deleted during the call leaves the views as they were).
    for (let attempt = 0; attempt < 20; attempt++) {
      if (attempt) await new Promise((resolve) => setTimeout(resolve, 25 * attempt));
      const written = await lastOrderWrite(sql);
      const before = await viewFigures(name);
      const res = await call(`campaigns/${before.id}/metrics`);
      const after = await viewFigures(name);
      if (JSON.stringify(before) !== JSON.stringify(after) || (await lastOrderWrite(sql)) !== written) continue;
      expect(res.status).toBe(200);
      const { metrics, daily_attribution, campaign_id } = res.body.data;
      expect(campaign_id).toBe(before.id);
      expect(metrics.attributed_revenue).toBe(before.revenue?.total_attributed_revenue ?? 0);
      expect(metrics.attribution_days).toBe(before.revenue?.active_days ?? 0);
      expect(metrics.collaboration_campaigns).toBe(before.partners);
      expect(metrics.avg_daily_revenue).toBe(metrics.attribution_days ? Math.round((metrics.attributed_revenue / metrics.attribution_days) * 100) / 100 : 0);
      const typical = before.days.length ? Math.round(before.days.reduce((s: number, d: any) => s + d.active_campaign_count, 0) / before.days.length) : 0;
      expect(metrics.competition_intensity).toBe(typical >= 4 ? 'high' : typical >= 2 ? 'medium' : 'low');
      expect(daily_attribution).toEqual(before.days.map((d: any) => ({
        date: d.date,
        attributed_amount: d.entry.attributed_amount,
        attribution_percentage: Math.round(d.entry.normalized_weight * 1_000_000) / 10_000,
      })));
      expect(cents(daily_attribution.reduce((s: number, d: any) => s + d.attributed_amount, 0))).toBe(cents(metrics.attributed_revenue));
      return;
    }
    throw new Error('the views and the orders never held still for twenty attempts');
  });

  it('a customer sees the campaign but only the revenue of their own orders: the views are security invoker', async () => {
    const { id } = await viewFigures('VIP Summer Lounge');
    const res = await call(`campaigns/${id}/metrics`, { token: tokens.customer });
    expect(res.status).toBe(200);
    expect(res.body.data.metrics.attributed_revenue).toBe(0);
    expect(res.body.data.metrics.attribution_days).toBeGreaterThan(0);
    const total = await inSnapshot((tx) => tx`select coalesce(sum(total_revenue), 0) as revenue from public.campaign_overlap_calendar`, DEMO_CUSTOMER_ID);
    expect(total[0].revenue).toBe(0);
  });
});
