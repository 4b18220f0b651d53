/**
 * The business-health formulas in SQL, against hand-computed numbers. The fixture runs inside a
 * transaction that is rolled back (as the database owner: the stock columns admit only the stock
 * functions' writes), in February 2001, and the report is computed "as of" 2001-03-01: no
 * other test's rows fall in its windows (including the 365-day RFM look-back) and none of its rows
 * survive. docs/business-health.md walks through the same fixture as its worked example.
 */
import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { database } from '../support/client.ts';

const sql = database();
const AS_OF = '2001-03-01T00:00:00Z';

/** Runs `work` as the database owner in a transaction that is always rolled back. */
async function rolledBack<T = any>(work: (tx: postgres.TransactionSql) => Promise<T>): Promise<T> {
  const rollback = new Error('rollback');
  let result: T | undefined;
  await sql.begin(async (tx) => {
    result = await work(tx);
    throw rollback;
  }).catch((error) => {
    if (error !== rollback) throw error;
  });
  return result as T;
}

async function scalar<T = unknown>(query: postgres.PendingQuery<postgres.Row[]>): Promise<T> {
  const [row] = await query;
  return Object.values(row)[0] as T;
}

describe('rating bands (CONTRACT §3B: lower bounds on the unrounded score)', () => {
  it.each([
    [0, '待加強'], [39.99, '待加強'], [40, '需改善'], [59.99, '需改善'], [60, '普通'], [74.99, '普通'],
    [75, '良好'], [89.99, '良好'], [90, '優秀'], [100, '優秀'],
  ])('%s is %s', async (score, rating) => {
    expect(await scalar(sql`select private.health_rating(${score}::numeric)`)).toBe(rating);
  });

  it('bands 89.995 as 良好 although it rounds to 90.00', async () => {
    expect(await scalar(sql`select private.health_rating(89.995)`)).toBe('良好');
  });
});

describe('trend edges (seed 03: above 2 rises, below -2 falls, exactly 2 is flat)', () => {
  it.each([
    [2, 2, '持平', '業務表現穩定', 2],
    [4, 0, '持平', '業務表現穩定', 2],
    [2.02, 2, '上升', '業務表現持續改善', 2.01],
    [-2, -2, '持平', '業務表現穩定', 2],
    [-2.02, -2, '下降', '需要關注業務指標下滑', 2.01],
    [0, 0, '持平', '業務表現穩定', 0],
  ])('customer %s and operational %s → %s', async (customer, operational, direction, description, change) => {
    const trend = await scalar(sql`select private.health_trend(${customer}::numeric, ${operational}::numeric)`);
    expect(trend).toEqual({ direction, description, change, customerChange: customer, operationalChange: operational });
  });

  it.each([
    [5, 0, 100],
    [0, 0, 0],
    [0, 5, -100],
    [60, 160 / 3, 12.5],
  ])('percent change from %s to %s is %s (0 → positive is 100, 0 → 0 is 0)', async (current, previous, change) => {
    const value = await scalar<number>(sql`select private.health_percent_change(${current}::numeric, ${previous}::numeric)`);
    expect(value).toBeCloseTo(change, 10);
  });
});

describe('RFM on fixed thresholds', () => {
  // The customer's score is (R + F + M) / 3; holding two dimensions at 1 isolates the third.
  const part = async (days: number, orders: number, spend: number) =>
    Math.round(3 * (await scalar<number>(sql`select private.health_rfm_score(${days}::numeric, ${orders}::bigint, ${spend}::numeric)`)) - 2);

  it.each([
    [0, 5], [3, 5], [3.01, 4], [7, 4], [14, 3], [30, 2], [30.5, 1], [400, 1],
  ])('recency %s days scores %s', async (days, score) => {
    expect(await part(days, 1, 0)).toBe(score);
  });

  it.each([[1, 1], [2, 2], [3, 3], [5, 3], [6, 4], [9, 4], [10, 5]])('frequency %s orders scores %s', async (n, score) => {
    expect(await part(400, n, 0)).toBe(score);
  });

  it.each([[0, 1], [999.99, 1], [1000, 2], [5000, 3], [10000, 4], [19999.99, 4], [20000, 5]])(
    'spend %s scores %s',
    async (spend, score) => {
      expect(await part(400, 1, spend)).toBe(score);
    },
  );

  it('averages the three: 1 day, 4 orders, 6500 → (5 + 3 + 3) / 3', async () => {
    expect(await scalar<number>(sql`select private.health_rfm_score(1, 4, 6500)`)).toBeCloseTo(11 / 3, 10);
  });
});

describe('dimension formulas (floors and targets)', () => {
  it.each([
    [0, 0, 0], [100, 0, 10], [50, 100, 0], [40, 100, 0], [80, 100, 5], [100, 100, 25 / 3], [110, 100, 10], [200, 100, 10],
  ])('revenue %s after %s scores %s', async (current, previous, score) => {
    const value = await scalar<number>(sql`select private.health_revenue_score(${current}::numeric, ${previous}::numeric)`);
    expect(value).toBeCloseTo(score, 10);
  });

  it.each([[0, 1], [1, 1], [12.5, 0.5], [24, 0], [48, 0]])('a first response after %s hours scores %s', async (h, score) => {
    expect(await scalar<number>(sql`select private.health_response_score(${h}::numeric)`)).toBeCloseTo(score, 10);
  });

  it('the ticket figures, summed over a window, are each ticket’s own: its response score and hours, answered, waiting, resolved before or after', async () => {
    // Tickets opened over February 2001, answered within minutes to two days or not yet, resolved before the
    // report, after it or never, rated or not; the report as of a moment mid-window, so some are still
    // waiting then and some of the answers and resolutions come after it.
    const asOf = '2001-02-20T13:37:11.5Z';
    const { figures, tickets } = await rolledBack(async (tx) => {
      await tx`
        insert into public.support_tickets (subject, status, opened_at, first_response_at, resolved_at, satisfaction_rating)
        select 'T' || i, case when resolved then 'resolved' else 'open' end, opened,
               case when i % 5 <> 0 then opened + make_interval(secs => (i * 7919 % 172800)) end,
               case when resolved then opened + make_interval(secs => (i * 104729 % 259200)) end,
               case when resolved and i % 3 <> 0 then 1 + i % 5 end
        from (select i, timestamptz '2001-02-01Z' + make_interval(secs => i * 9973 % (27 * 86400)) as opened,
                     i % 4 <> 0 as resolved
              from generate_series(1, 400) i) t`;
      const [figures] = await tx`select * from private.health_ticket_figures(${asOf}, 7)`;
      const tickets = await tx`
        select extract(epoch from least(first_response_at, ${asOf}::timestamptz) - opened_at)::float8 / 3600 as hours,
               resolved_at < ${asOf}::timestamptz as resolved, satisfaction_rating as rating
        from public.support_tickets
        where opened_at >= ${asOf}::timestamptz - interval '7 days' and opened_at < ${asOf}::timestamptz`;
      return { figures, tickets };
    });
    const n = tickets.length;
    const rated = tickets.filter((t) => t.resolved && t.rating !== null);
    expect(n).toBeGreaterThan(50);
    expect(tickets.some((t) => t.hours < 1) && tickets.some((t) => t.hours > 24) && tickets.some((t) => !t.resolved)).toBe(true);
    expect(Number(figures.tickets)).toBe(n);
    expect(Number(figures.resolved)).toBe(tickets.filter((t) => t.resolved).length);
    expect(Number(figures.rated)).toBe(rated.length);
    expect(Number(figures.average_rating)).toBeCloseTo(rated.reduce((sum, t) => sum + t.rating, 0) / rated.length, 10);
    const score = (hours: number) => Math.max(0, Math.min(1, (hours - 24) / (1 - 24)));
    expect(Number(figures.response_score)).toBeCloseTo(tickets.reduce((sum, t) => sum + score(t.hours), 0) / n, 10);
    expect(Number(figures.average_response_hours)).toBeCloseTo(tickets.reduce((sum, t) => sum + t.hours, 0) / n, 10);
  });

  it('satisfaction: rating 0.7, resolution 0.3; no rating → resolution alone; no ticket → 0', async () => {
    const [row] = await sql`select private.health_satisfaction_score(3.5, 2.0 / 3) as both,
                                   private.health_satisfaction_score(null, 0.5) as unrated,
                                   private.health_satisfaction_score(null, null) as none`;
    expect(row.both).toBeCloseTo(6.375, 10);
    expect(row.unrated).toBe(5);
    expect(row.none).toBe(0);
  });

  it('fulfillment: completion and on-time half each; nothing due → completion alone; no order → 0', async () => {
    const [row] = await sql`select private.health_fulfillment_score(0.5, 1.0 / 3) as both,
                                   private.health_fulfillment_score(0.8, null) as nothing_due,
                                   private.health_fulfillment_score(null, null) as none`;
    expect(row.both).toBeCloseTo(25 / 6, 10);
    expect(row.nothing_due).toBeCloseTo(8, 10);
    expect(row.none).toBe(0);
  });

  it('products: in stock 0.6, sold 0.4; no product → 0', async () => {
    const [row] = await sql`select private.health_products_score(0.75, 0.5) as both, private.health_products_score(null, null) as none`;
    expect(row.both).toBeCloseTo(6.5, 10);
    expect(row.none).toBe(0);
  });

  it('system: success 0.5, p95 latency 0.3 (500 ms → 1, 5 s → 0), connection headroom 0.2 (50 % → 1, 95 % → 0)', async () => {
    const [row] = await sql`select private.health_system_score(0.98, 1400, 0.6) as mixed,
                                   private.health_system_score(1, 200, 0.1) as perfect,
                                   private.health_system_score(0, 9000, 1) as worst`;
    expect(row.mixed).toBeCloseTo(10 * (0.49 + 0.3 * 0.8 + 0.2 * (0.35 / 0.45)), 10);
    expect(row.perfect).toBe(10);
    expect(row.worst).toBe(0);
  });

  it("each rule's action targets, where it has any, follow its actions one for one, in both languages", async () => {
    const rules = await sql`
      select r.n, cardinality(r.actions) as actions, cardinality(r.actions_en) as actions_en,
             cardinality(private.health_action_targets(r.n)) as targets
      from private.health_insight_rules('{}'::jsonb) r order by r.n`;
    expect(rules.length).toBeGreaterThan(10);
    for (const rule of rules) {
      expect(rule.actions_en, `rule ${rule.n}`).toBe(rule.actions);
      expect([0, rule.actions], `rule ${rule.n}`).toContain(rule.targets);
    }
    expect(rules.filter((rule) => rule.targets > 0).length).toBeGreaterThan(5);
  });

  it('confidence grows with observations: 20 → 0.5, 180 → 0.9, none → 0', async () => {
    const [row] = await sql`select private.health_confidence(20) as a, private.health_confidence(180) as b, private.health_confidence(0) as c`;
    expect(row).toEqual({ a: 0.5, b: 0.9, c: 0 });
  });
});

/** The worked example of docs/business-health.md: two customers, seven orders, three tickets, four products. */
async function insertFixture(tx: postgres.TransactionSql) {
  const [a] = await tx`insert into public.customers (email, name) values (${`a-${Date.now()}-${Math.random()}@fixture.test`}, 'A') returning id`;
  const [b] = await tx`insert into public.customers (email, name) values (${`b-${Date.now()}-${Math.random()}@fixture.test`}, 'B') returning id`;
  await tx`
    insert into public.orders (customer_id, status, total_amount, ordered_at, promised_at, delivered_at, completed_at, cancelled_at)
    values
      (${a.id}, 'completed', 1000, '2001-02-28 00:00Z', '2001-02-28 10:00Z', '2001-02-28 09:00Z', '2001-02-28 12:00Z', null),
      (${a.id}, 'shipped',    500, '2001-02-27 00:00Z', '2001-02-28 00:00Z', null, null, null),
      (${b.id}, 'cancelled',  300, '2001-02-23 00:00Z', null, null, null, '2001-02-23 06:00Z'),
      (${b.id}, 'completed',  200, '2001-02-24 00:00Z', '2001-02-26 00:00Z', '2001-02-27 00:00Z', '2001-02-26 00:00Z', null),
      (${a.id}, 'completed', 1000, '2001-02-20 00:00Z', null, null, '2001-02-21 00:00Z', null),
      (${b.id}, 'paid',       600, '2001-02-16 00:00Z', null, null, null, null),
      (${a.id}, 'completed', 4000, '2000-12-01 00:00Z', null, null, '2000-12-02 00:00Z', null)`;
  await tx`
    insert into public.support_tickets (customer_id, subject, status, opened_at, first_response_at, resolved_at, satisfaction_rating)
    values
      (${a.id}, 'fast', 'resolved', '2001-02-25 00:00Z', '2001-02-25 00:30Z', '2001-02-25 05:00Z', 5),
      (${b.id}, 'slow', 'resolved', '2001-02-26 00:00Z', '2001-02-26 12:30Z', '2001-02-27 00:00Z', 2),
      (${a.id}, 'unanswered', 'open', '2001-02-28 00:00Z', null, null, null)`;
  const sku = () => `HF-${Math.random().toString(36).slice(2, 12)}`;
  const products = await tx`
    insert into public.products (sku, name, is_active, current_stock, created_at)
    values (${sku()}, 'sold, in stock', true, 10, '2001-01-01Z'), (${sku()}, 'sold out', true, 0, '2001-01-01Z'),
           (${sku()}, 'unsold, in stock', true, 5, '2001-01-01Z'), (${sku()}, 'inactive', false, 3, '2001-01-01Z')
    returning id, name`;
  const id = (name: string) => products.find((p) => p.name === name)!.id;
  const lots = await tx`
    insert into public.inventory_records (product_id, quantity, available_quantity, source, received_at, created_by_role)
    values (${id('sold, in stock')}, 20, 10, 'purchase_order', '2001-01-02Z', 'service_role'),
           (${id('sold out')}, 5, 0, 'purchase_order', '2001-01-02Z', 'service_role'),
           (${id('unsold, in stock')}, 5, 5, 'purchase_order', '2001-01-02Z', 'service_role')
    returning id, product_id`;
  const lot = (name: string) => lots.find((l) => l.product_id === id(name))!.id;
  await tx`
    insert into public.stock_movements (operation_id, operation, product_id, inventory_record_id, delta, stock_before,
                                        stock_after, record_available_before, record_available_after, operator_role, created_at)
    values (gen_random_uuid(), 'stock_out', ${id('sold, in stock')}, ${lot('sold, in stock')}, -10, 20, 10, 20, 10,
            'service_role', '2001-02-27Z'),
           (gen_random_uuid(), 'stock_out', ${id('sold out')}, ${lot('sold out')}, -5, 5, 0, 5, 0, 'service_role', '2001-02-25Z')`;
}

describe('the report on a hand-computed fixture (7d as of 2001-03-01)', () => {
  it('matches every figure of the worked example', async () => {
    const result = await rolledBack(async (tx) => {
      await insertFixture(tx);
      // Folded first, as health.business_health folds before it reports.
      await tx`select private.fold_order_changes(true)`;
      const [{ report }] = await tx`select private.health_report('7d', false, true, true, ${AS_OF}) as report`;
      return report;
    });
    expect(result.metrics).toEqual({
      revenue: 9.38, // 1700 after 1600: ratio 1.0625 → (1.0625 − 0.5) / 0.6 = 0.9375
      satisfaction: 6.38, // 10 × (0.7 × (3.5 − 1) / 4 + 0.3 × 2/3) = 6.375
      fulfillment: 4.17, // 10 × (0.5 × 2/4 + 0.5 × 1/3)
      support: 6.17, // supportEffectiveness / 10
      products: 6.67, // 10 × (0.6 × 2/3 in stock + 0.4 × 2/3 sold); the inactive product does not count
      marketing: 0,
      system: null,
    });
    expect(result.scoreDetails).toEqual({
      customerQuality: 60, // RFM A = (5+3+3)/3, B = (4+2+1)/3, average 3 → 3/5 × 100
      operationalEfficiency: 50, // 2 completed of 4
      supportEffectiveness: 61.67, // (2/3 × 0.7 + 0.5 × 0.3) × 100
      overallScore: 57.22,
      rating: '需改善',
    });
    expect(result.trends).toEqual({
      direction: '上升',
      change: 6.25,
      description: '業務表現持續改善',
      customerChange: 12.5, // 60 against 53.33
      operationalChange: 0, // 50 against 50
    });
    expect(result.insights.map((i: { title: string }) => i.title)).toEqual([
      '訂單完成率偏低', '準時出貨率不足', '客服工單解決率偏低', '缺貨商品偏多', '取消率偏高',
    ]);
    expect(result.insights[0]).toEqual({
      title: '訂單完成率偏低',
      description: '本期訂單完成率 50.0%，低於 80% 的目標。',
      type: 'warning',
      impact: 'high',
      confidence: 0.17,
      category: 'fulfillment',
      actions: ['檢查卡在付款與出貨之間的訂單', '縮短從付款到出貨的處理時間'],
      action_targets: ['orders_awaiting_shipment', 'orders_awaiting_shipment'],
    });
    expect(result.insights.map((i: { impact: string; confidence: number }) => [i.impact, i.confidence])).toEqual([
      ['high', 0.17], ['high', 0.13], ['high', 0.13], ['high', 0.13], ['medium', 0.17],
    ]);
    expect(result.insights[3].description).toBe('33.3% 的上架商品目前缺貨（目標 10% 以下）。');
    expect(result.insights[4].description).toBe('本期 25.0% 的訂單被取消（警戒線 10%）。');
  });

  it('sees a past moment as it stood: an order completed later is not completed as of before', async () => {
    const result = await rolledBack(async (tx) => {
      await insertFixture(tx);
      await tx`select private.fold_order_changes(true)`;
      const [{ report }] = await tx`select private.health_report('7d', false, false, false, '2001-02-26 12:00Z') as report`;
      return report;
    });
    // Window [02-19 12:00, 02-26 12:00): orders of 02-20, 02-23 (cancelled), 02-24 (completed 02-26 00:00).
    expect(result.scoreDetails.operationalEfficiency).toBe(66.67);
    expect(result).not.toHaveProperty('trends');
    expect(result).not.toHaveProperty('insights');
  });
});

describe('an empty store', () => {
  it('answers zero scores, a valid rating and no division by zero', async () => {
    const [{ report }] = await sql`select private.health_report('90d', false, true, true, '1971-01-01Z') as report`;
    expect(report.metrics).toEqual({
      revenue: 0, satisfaction: 0, fulfillment: 0, support: 0, products: 0, marketing: 0, system: null,
    });
    expect(report.scoreDetails).toEqual({
      customerQuality: 0, operationalEfficiency: 0, supportEffectiveness: 0, overallScore: 0, rating: '待加強',
    });
    expect(report.trends).toMatchObject({ direction: '持平', change: 0, customerChange: 0, operationalChange: 0 });
    expect(report.insights).toEqual([expect.objectContaining({ title: '本期沒有訂單', type: 'info', confidence: 1 })]);
  });
});

describe('the system source: this function’s own request outcomes', () => {
  it('reads the last 15 minutes of this function only: success rate and p95 latency', async () => {
    const figures = await rolledBack(async (tx) => {
      await tx`
        insert into private.function_requests (function_name, status, duration_ms, at) values
          ('business-health-analytics', 200, 100, '2001-02-28 23:59Z'),
          ('business-health-analytics', 200, 200, '2001-02-28 23:58Z'),
          ('business-health-analytics', 500, 300, '2001-02-28 23:57Z'),
          ('business-health-analytics', 200, 400, '2001-02-28 23:56Z'),
          ('business-health-analytics', 500, 9000, '2001-02-28 23:40Z'),
          ('campaigns', 500, 9000, '2001-02-28 23:59Z')`;
      const [row] = await tx`select requests::int, failures::int, success_rate, p95_ms, connection_usage
                             from private.health_system_figures(${AS_OF})`;
      return row;
    });
    expect(figures).toMatchObject({ requests: 4, failures: 1, success_rate: 0.75, p95_ms: 385 });
    expect(figures.connection_usage).toBeGreaterThan(0);
    expect(figures.connection_usage).toBeLessThanOrEqual(1);
  });
});

describe('CALCULATION_ERROR', () => {
  it('names the stage and the reason when a computation fails on its data', async () => {
    const error = await sql`select private.health_report('90d', false, false, false, '4714-12-01 00:00:00+00 BC')`.catch((e) => e);
    expect(error.code).toBe('PT500');
    expect(error.message).toBe('CALCULATION_ERROR');
    expect(JSON.parse(error.hint)).toEqual({ stage: 'orders', reason: 'timestamp out of range' });
  });
});

describe('the kept health figures, one list of columns', () => {
  it('the figures by 10 minutes and the sums the reports read are the columns of private.health_figure_changes, in its order', async () => {
    const columns = async (table: string, key: string) =>
      (await sql`
        select attname as name from pg_attribute
        where attrelid = ${table}::regclass and attnum > 0 and not attisdropped and attname not in ('days', ${key})
        order by attnum`).map((c) => c.name as string);
    const figures = await columns('private.health_figure_changes', 'hour');
    expect(figures.length).toBe(15);
    expect(await columns('private.health_figure_changes_by_10_minutes', 'ten_minutes')).toEqual(figures);
    const [{ names }] = await sql`
      select p.proargnames[p.pronargs + 1:] as names from pg_proc p
      where p.oid = 'private.health_figures_before(integer, timestamptz)'::regprocedure`;
    expect(names).toEqual(figures);
  });

  it('are kept for the rolling periods of public.health_period, the days both tables accept', async () => {
    const [{ days }] = await sql`select private.health_window_days()::int[] as days`;
    expect(days).toEqual([7, 30, 90]);
    const checks = await sql`
      select pg_get_constraintdef(oid) as definition from pg_constraint
      where conname in ('health_figure_changes_days', 'health_figure_changes_by_10_minutes_days')`;
    expect(checks.map((c) => c.definition)).toEqual(Array(2).fill(`CHECK ((days = ANY (ARRAY[${days.join(', ')}])))`));
  });
});

describe('the RFM windows, written once in private.rfm_bands', () => {
  it('are the windows health_window_customer_figures finds stepping customers at, written out there for the planner', async () => {
    const [{ source, bands }] = await sql`
      select p.prosrc as source,
             (select array[0] || b.recency_band_days || b.scored_days || b.year_days from private.rfm_bands() b) as bands
      from pg_proc p where p.oid = 'private.health_window_customer_figures(timestamptz, integer)'::regprocedure`;
    const days = [...new Set([...(source as string).matchAll(/interval '(\d+) hours'/g)].map((m) => Number(m[1]) / 24))];
    expect([0, ...days]).toEqual(bands);
  });
});
