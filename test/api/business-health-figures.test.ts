// The figures behind business health's scores (GET /business-health-analytics/figures), on a store of its
// own so that no other file's orders move them between two calls: administrators only (they are amounts,
// which the open report never carries), and each period's figures are the orders list's summary of its
// window at its end, with customers and tickets as counted from their tables. Today so far and yesterday
// (GET /business-health-analytics/days) are store days, each the orders list's summary of that day.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startFunctions } from '../../scripts/lib/stack.mjs';
import { seedDemo } from '../../scripts/seed-demo.mjs';
import { call, createUser, rolledBack, scratchDatabase, tokens } from '../support/client.ts';
import { storeInstant, storeToday, STORE_TIME_ZONE } from '../support/store-day.ts';
import { addDays } from '../support/campaigns.ts';

const scratch = scratchDatabase('health_figures');
let functions: Awaited<ReturnType<typeof startFunctions>>;
let sql: postgres.Sql;

const get = (path: string, token: string | null = tokens.admin) => call(path, { token, base: functions.url });

beforeAll(async () => {
  await scratch.createMigrated();
  await seedDemo(scratch.url, { orders: 1500, seed: 11, customers: 150, tickets: 120, products: 10, asOf: storeToday() }, { quiet: true });
  // Orders cancelled, refunded and completed inside the current window, and one placed an hour ago.
  sql = postgres(scratch.url, { max: 2, onnotice: () => {}, types: { numeric: { to: 1700, from: [1700], serialize: String, parse: Number } } as never });
  // Cancelled: copies of fifteen recent orders, as a job records them (amounts only): the seed's own orders have
  // shipped goods, which no cancellation takes back (docs/inventory.md, "Orders and stock").
  await sql`
    insert into public.orders (customer_id, status, total_amount, ordered_at, cancelled_at)
    select customer_id, 'cancelled', total_amount, ordered_at, ordered_at + interval '2 hours'
    from (select * from public.orders where ordered_at > private.now() - interval '20 days' order by id limit 15) o`;
  await sql`
    update public.orders set status = 'refunded'
    where id in (select id from public.orders where ordered_at > private.now() - interval '50 days' and status <> 'cancelled' order by id desc limit 10)`;
  await sql`
    insert into public.orders (customer_id, status, total_amount, ordered_at)
    select id, 'paid', 1234.55, private.now() - interval '1 hour' from public.customers order by id limit 3`;
  // Either side of the store's midnight, the last second of yesterday and the first of today (Taipei),
  // and an order of today cancelled.
  await sql`
    insert into public.orders (customer_id, status, total_amount, ordered_at, cancelled_at)
    select c.id, o.status, o.amount, private.store_day_start(private.store_today()) + o.shift, o.cancelled_after
                                       + private.store_day_start(private.store_today()) + o.shift
    from (select id from public.customers order by id limit 1) c,
         (values ('paid', 77.7, interval '-1 second', null::interval), ('delivered', 88.8, interval '0', null),
                 ('cancelled', 99.9, interval '0', interval '1 second')) o(status, amount, shift, cancelled_after)`;
  functions = await startFunctions({ dbUrl: scratch.url, port: await freePort(), env: { DB_POOL_SIZE: '3' } });
}, 120_000);

afterAll(async () => {
  await functions?.stop();
  await sql?.end();
});

describe('GET /business-health-analytics/figures', () => {
  it('a customer, an anonymous caller and a caller with no key cannot see the figures behind the scores', async () => {
    expect((await get('business-health-analytics/figures', tokens.customer)).body.code).toBe('INSUFFICIENT_PERMISSION');
    expect((await get('business-health-analytics/figures', tokens.customer)).status).toBe(403);
    expect((await get('business-health-analytics/figures', tokens.anon)).status).toBe(401);
    expect((await get('business-health-analytics/figures', null)).status).toBe(401);
    const user = await createUser(sql as never);
    expect((await get('business-health-analytics/figures', user.token)).status).toBe(403);
    expect((await get('business-health-analytics/figures', tokens.service)).status).toBe(200);
  });

  it('a period outside 7d, 30d and 90d, or a parameter it does not take, is a 400 naming it', async () => {
    const bad = await get('business-health-analytics/figures?period=1y');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('period');
    expect((await get('business-health-analytics/figures?as_of=2026-01-01')).status).toBe(400);
  });

  it.each(['7d', '30d', '90d'])('each window of %s is the orders list’s summary of it at its end, with its customers and tickets', async (period) => {
    const { status, body } = await get(`business-health-analytics/figures?period=${period}`);
    expect(status).toBe(200);
    const { data } = body;
    expect(data.period).toBe(period);
    const days = Number(period.slice(0, -1));
    expect(Date.parse(data.current.before) - Date.parse(data.current.from)).toBe(days * 86_400_000);
    expect(data.previous.before).toBe(data.current.from);
    expect(data.current.before).toBe(data.as_of);
    for (const window of [data.current, data.previous]) {
      const list = await get(`orders?${new URLSearchParams({ ordered_from: window.from, ordered_before: window.before, as_of: window.before, per_page: '1' })}`);
      expect(list.status).toBe(200);
      const { summary } = list.body;
      expect(summary.orders, `${period} from ${window.from}`).toBeGreaterThan(0);
      expect({
        orders: window.orders, counted_orders: window.counted_orders, revenue: window.revenue, completed: window.completed,
        cancelled: window.cancelled, average_order_value: window.average_order_value,
      }).toEqual({
        orders: summary.orders, counted_orders: summary.counted_orders, revenue: summary.revenue, completed: summary.completed,
        cancelled: summary.cancelled, average_order_value: summary.average_order_value,
      });
      const [counted] = await sql`
        select (select count(distinct o.customer_id) from public.orders o
                where o.ordered_at >= ${window.from}::timestamptz and o.ordered_at < ${window.before}::timestamptz
                  and o.status <> 'refunded' and (o.cancelled_at is null or o.cancelled_at >= ${window.before}::timestamptz))::int as active_customers,
               (select count(*) from public.customers c
                where c.created_at >= ${window.from}::timestamptz and c.created_at < ${window.before}::timestamptz)::int as new_customers,
               (select count(*) from public.support_tickets t
                where t.opened_at >= ${window.from}::timestamptz and t.opened_at < ${window.before}::timestamptz)::int as tickets_opened,
               (select count(*) from public.support_tickets t
                where t.opened_at >= ${window.from}::timestamptz and t.opened_at < ${window.before}::timestamptz
                  and t.resolved_at < ${window.before}::timestamptz)::int as tickets_resolved`;
      expect({
        active_customers: window.active_customers, new_customers: window.new_customers,
        tickets_opened: window.tickets_opened, tickets_resolved: window.tickets_resolved,
      }).toEqual(counted);
      // Each figure's own orders (the console's link from it): exactly as many as it counts, and only those.
      const listed = async (figure: string) => (await get(`orders?${new URLSearchParams({
        ordered_from: window.from, ordered_before: window.before, as_of: window.before, figure, per_page: '200',
      })}`)).body;
      const countedOrders = await listed('counted');
      expect(countedOrders.pagination.total_count).toBe(window.counted_orders);
      expect(countedOrders.summary).toMatchObject({ orders: window.counted_orders, revenue: window.revenue, cancelled: 0 });
      expect(countedOrders.data.every((o: { status: string }) => o.status !== 'refunded')).toBe(true);
      const completed = await listed('completed');
      expect(completed.pagination.total_count).toBe(window.completed);
      expect(completed.data.every((o: { completed_at: string }) => Date.parse(o.completed_at) < Date.parse(window.before))).toBe(true);
      const cancelled = await listed('cancelled');
      expect(cancelled.pagination.total_count).toBe(window.cancelled);
      expect((await listed('refunded')).pagination.total_count).toBe(window.refunded);
      expect(cancelled.summary).toMatchObject({ cancelled: window.cancelled, counted_orders: 0 });
    }
    expect(data.current.cancelled, 'the data set has cancelled orders in the window').toBeGreaterThan(0);
    for (const window of [data.current, data.previous]) {
      expect(window.counted_orders + window.cancelled + window.refunded, 'placed = counted + cancelled + refunded').toBe(window.orders);
    }
  });
});

describe("GET /business-health-analytics/days: today so far and yesterday, the store's days", () => {
  it('only administrators and the service key see them', async () => {
    expect((await get('business-health-analytics/days', tokens.customer)).status).toBe(403);
    expect((await get('business-health-analytics/days', tokens.anon)).status).toBe(401);
    expect((await get('business-health-analytics/days', tokens.service)).status).toBe(200);
    expect((await get('business-health-analytics/days?day=today')).status).toBe(400);
  });

  it("each day runs from the store's midnight and is the orders list's summary of it as of now, as the list's own day is", async () => {
    const { status, body } = await get('business-health-analytics/days');
    expect(status).toBe(200);
    const { data } = body;
    expect(data.time_zone).toBe(STORE_TIME_ZONE);
    expect(data.today.date).toBe(storeToday());
    expect(data.yesterday.date).toBe(addDays(storeToday(), -1));
    expect(Date.parse(data.today.from)).toBe(storeInstant(storeToday(), '00:00'));
    expect(data.yesterday.before).toBe(data.today.from);
    expect(Date.parse(data.yesterday.before) - Date.parse(data.yesterday.from)).toBe(86_400_000);
    expect(data.today.before).toBe(data.as_of);
    for (const day of [data.today, data.yesterday]) {
      const list = await get(`orders?${new URLSearchParams({ ordered_from: day.from, ordered_before: day.before, as_of: data.as_of, per_page: '1' })}`);
      const { summary } = list.body;
      const figures = ['orders', 'counted_orders', 'revenue', 'completed', 'cancelled', 'refunded'] as const;
      expect(Object.fromEntries(figures.map((f) => [f, day[f]])), day.date).toEqual(Object.fromEntries(figures.map((f) => [f, summary[f]])));
      expect(day.counted_orders + day.cancelled + day.refunded, 'placed = counted + cancelled + refunded').toBe(day.orders);
    }
    // Yesterday's revenue as attribution splits it: a whole day past (today's so far leaves out the orders the
    // store has placed later today, which attribution's day already counts).
    const [kept] = await sql`select coalesce(sum(revenue), 0)::float8 as revenue from private.order_daily_revenue_now
                             where order_date = ${data.yesterday.date}::date`;
    expect(kept.revenue, 'one revenue').toBe(data.yesterday.revenue);
    // The orders either side of midnight: the delivered one and the cancelled one are today's, the paid
    // one of the last second is yesterday's.
    expect(data.today.orders).toBeGreaterThanOrEqual(2);
    expect(data.today.cancelled).toBeGreaterThanOrEqual(1);
    expect(data.yesterday.orders).toBeGreaterThan(0);
    const [{ revenue }] = await sql`
      select sum(total_amount) filter (where status <> 'cancelled' and status <> 'refunded') as revenue from public.orders
      where ordered_at >= ${data.yesterday.from}::timestamptz and ordered_at < ${data.yesterday.before}::timestamptz`;
    expect(data.yesterday.revenue).toBe(revenue);
  });
});

describe('GET /store', () => {
  it("names the store's time zone, today and its clock to any signed-in caller, and to nobody else", async () => {
    const [{ now: dbNow }] = await sql`select private.now() as now`;
    const { status, body } = await get('store', tokens.customer);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ time_zone: STORE_TIME_ZONE, today: storeToday() });
    // The database's clock, which a client counts its days from (the suite may run at another moment).
    expect(Math.abs(Date.parse(body.data.now) - (dbNow as Date).getTime())).toBeLessThan(60_000);
    expect((await get('store', tokens.anon)).status).toBe(401);
    expect((await get('store', null)).status).toBe(401);
  });
});

// Business health 2.0 (issue 42, CONTRACT §5): the same store, asked for version 2.0.
const V2 = { accept: 'application/vnd.api+json;version=2.0' };
const report = (body: unknown, token: string | null = tokens.admin, headers: Record<string, string> = {}) =>
  call('business-health-analytics', { method: 'POST', token, body, headers, base: functions.url });
const withoutTimestamp = (text: string) => text.replace(/"timestamp":"[^"]+"/, '');

/**
 * Each campaign of the store days [first, last] recomputed from attribution's own function, day by day: its active
 * days (the days it is in the answer), the revenue it is given of each day's revenue (the orders placed that day and
 * counted now), and its spend (recorded, or the budget spread over its planned days on its active days).
 */
async function recomputedMarketing(first: string, last: string) {
  const campaigns = await sql`
    with days as (
      select d::date as day, (select sum(o.total_amount) from public.orders o
                               where o.order_date = d::date and o.counted_until = 'infinity') as revenue
      from generate_series(${first}::date, ${last}::date, interval '1 day') d
    ),
    given as (
      select (a ->> 'campaign_id')::uuid as id, count(*) as active_days,
             sum(coalesce((a ->> 'attributed_amount')::numeric, 0)) as attributed
      from days cross join lateral jsonb_array_elements(
        public.calculate_campaign_attributions(days.day, days.revenue) -> 'attributions') a
      group by 1
    ),
    recorded as (select s.campaign_id as id, sum(s.amount) as spend from public.campaign_spend s
                 join public.campaigns c on c.id = s.campaign_id and s.spend_date between c.start_date and c.end_date
                 where s.spend_date between ${first}::date and ${last}::date group by 1),
    spent as (
      select c.id::text, coalesce(g.active_days, 0)::int as active_days, coalesce(g.attributed, 0) as attributed,
             case when exists (select 1 from public.campaign_spend s where s.campaign_id = c.id) then coalesce(r.spend, 0)
                  else c.budget * coalesce(g.active_days, 0) / (c.end_date - c.start_date + 1) end as exact_spend
      from public.campaigns c left join given g on g.id = c.id left join recorded r on r.id = c.id
      where (g.id is not null or r.id is not null) and c.deleted_at is null
    )
    -- Each campaign's spend rounded to cents, the total summed exactly and rounded once.
    select *, round(exact_spend, 2) as spend, round(sum(exact_spend) over (), 2) as total_spend from spent`;
  const spend = Number(campaigns[0]?.total_spend ?? 0);
  const attributed = campaigns.reduce((sum, c) => sum + Number(c.attributed), 0);
  return { campaigns, spend, attributed: Math.round(attributed * 100) / 100 };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

describe('business health 2.0: the marketing dimension (Accept: application/vnd.api+json;version=2.0)', () => {
  it("1.0 stays the seeds' report byte for byte: asked for or not, and whatever the campaigns spend", async () => {
    const plain = await report({ period: '30d' });
    const asked = await report({ period: '30d' }, tokens.admin, { accept: 'application/vnd.api+json;version=1.0' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('api-version')).toBe('1.0.0');
    expect(withoutTimestamp(asked.text)).toBe(withoutTimestamp(plain.text));
    expect(plain.body.data.metrics.marketing).toBe(0);
    expect(Object.keys(plain.body.data)).toEqual(['metrics', 'scoreDetails', 'trends', 'insights', 'timestamp']);
    expect(plain.body.data.insights.every((i: object) => !('campaign_id' in i))).toBe(true);
    const [campaign] = await sql`
      select id from public.campaigns
      where deleted_at is null and status <> 'draft' and private.store_today() between start_date and end_date
      order by id limit 1`;
    await sql`insert into public.campaign_spend (campaign_id, spend_date, amount) values (${campaign.id}, private.store_today(), 1e9)`;
    try {
      const v2 = await report({ period: '30d' }, tokens.admin, V2);
      expect(v2.body.data.marketingDetails.status).toBe('scored');
      expect(withoutTimestamp((await report({ period: '30d' })).text)).toBe(withoutTimestamp(plain.text));
    } finally {
      await sql`delete from public.campaign_spend where campaign_id = ${campaign.id}`;
    }
    // 1.0 refuses what only 2.0 takes, with the seeds' 400.
    const custom = await report({ period: 'custom' });
    expect(custom.status).toBe(400);
    expect(custom.body.details).toMatchObject({ parameter: 'period', expected: ['7d', '30d', '90d'] });
  });

  it('2.0 is answered as 2.0; a version no route has is a 406 naming the versions there are', async () => {
    const v2 = await report({ period: '7d' }, tokens.anon, V2);
    expect(v2.status).toBe(200);
    expect(v2.headers.get('api-version')).toBe('2.0.0');
    // A parameter's name is case-insensitive and its value may be quoted (RFC 9110 5.6.6).
    for (const accept of ['version=2', 'version=2.0.0', 'Version="2.0"', 'VERSION=2']) {
      expect((await report({}, tokens.anon, { accept: `application/vnd.api+json;${accept}` })).headers.get('api-version'), accept).toBe('2.0.0');
    }
    const unknown = await report({}, tokens.anon, { accept: 'application/vnd.api+json;version=3.0' });
    expect(unknown.status).toBe(406);
    expect(unknown.body.details).toMatchObject({ supported_versions: ['1.0', '2.0'] });
    // Routes without a 2.0 refuse it, as every route did before.
    const figures = await call('business-health-analytics/figures', { base: functions.url, headers: V2 });
    expect(figures.status).toBe(406);
    expect(figures.body.details).toMatchObject({ supported_versions: ['1.0'] });
  });

  it.each([7, 30, 90])('%s days: spend, attributed revenue and ROAS equal a recompute from calculate_campaign_attributions, and score it', async (days) => {
    const today = storeToday();
    const expected = await recomputedMarketing(addDays(today, 1 - days), today);
    expect(expected.campaigns.length, 'the store has campaigns in the window').toBeGreaterThan(0);
    const { body } = await get(`business-health-analytics/figures?period=${days}d`);
    const marketing = body.data.current.marketing;
    expect(marketing).toMatchObject({
      first_day: addDays(today, 1 - days), last_day: today, campaigns: expected.campaigns.length,
      spend: expected.spend, attributed_revenue: expected.attributed, roas: round2(expected.attributed / expected.spend),
    });
    expect(body.data.previous.marketing.last_day).toBe(addDays(today, -days));
    for (const listed of marketing.top_campaigns) {
      const again = expected.campaigns.find((c) => c.id === listed.id)!;
      expect({ spend: listed.spend, attributed_revenue: listed.attributed_revenue, active_days: listed.active_days })
        .toEqual({ spend: Number(again.spend), attributed_revenue: Number(again.attributed), active_days: again.active_days });
    }
    const spends = marketing.top_campaigns.map((c: { spend: number }) => c.spend);
    expect(spends).toEqual([...spends].sort((a, b) => b - a));

    const v2 = await report({ period: `${days}d` }, tokens.admin, V2);
    const roas = expected.attributed / expected.spend;
    expect(v2.body.data.marketingDetails).toEqual({
      status: 'scored', reason: null, campaigns: expected.campaigns.length, roas: round2(roas),
      firstDay: addDays(today, 1 - days), lastDay: today,
    });
    expect(v2.body.data.metrics.marketing).toBeCloseTo(10 * Math.min(1, Math.max(0, (roas - 1) / 2)), 2);
    // Everything else is the 1.0 report's.
    const v1 = await report({ period: `${days}d` });
    expect({ ...v2.body.data.metrics, marketing: 0 }).toEqual(v1.body.data.metrics);
    expect(v2.body.data.scoreDetails).toEqual(v1.body.data.scoreDetails);
  });

  it('0 with its reason when no campaign ran or nothing was spent', async () => {
    const [{ none }] = await sql`
      select private.health_report('7d', false, false, false, private.now() - interval '20 years', 'en', 2) as none`;
    expect(none.metrics.marketing).toBe(0);
    expect(none.marketingDetails).toMatchObject({ status: 'no_campaigns', reason: 'No campaign ran in this period', roas: null });
    await rolledBack(sql as never, async (tx) => {
      await tx`update public.campaigns set budget = 0`;
      const [{ free }] = await tx`select private.health_report('30d', false, false, false, private.now(), 'zh-TW', 2) as free`;
      expect(free.metrics.marketing).toBe(0);
      expect(free.marketingDetails).toMatchObject({ status: 'no_spend', reason: '本期的活動沒有花費', roas: null });
    });
  });

  it('recorded spend replaces the budget spread; a campaign spending ahead of its days is named to those who may read it', async () => {
    const today = storeToday();
    const created = await call('campaigns', {
      method: 'POST', base: functions.url,
      body: { name: 'Pacing test', start_date: addDays(today, -1), end_date: addDays(today, 18), campaign_type: 'brand_week', budget: 20000 },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    expect((await call(`campaigns/${id}`, { method: 'PUT', base: functions.url, body: { status: 'active' } })).status).toBe(200);
    // Two of twenty planned days passed, the whole budget spent: pacing 10.
    await sql`insert into public.campaign_spend (campaign_id, spend_date, amount)
              values (${id}, ${addDays(today, -1)}, 12000), (${id}, ${today}, 8000)`;
    const metrics = await call(`campaigns/${id}/metrics`, { base: functions.url });
    expect(metrics.body.data.metrics).toMatchObject({ spend_to_date: 20000, spend_recorded: true, pacing: 10 });
    expect(metrics.body.data.metrics.roas).toBe(round2(metrics.body.data.metrics.attributed_revenue / 20000));

    const named = await report({ period: '7d', includeSystemHealth: false }, tokens.admin, V2);
    const ahead = named.body.data.insights.find((i: { title: string }) => i.title === '活動花費超前');
    expect(ahead).toMatchObject({ campaign_id: id, category: 'marketing', action_targets: ['campaign', 'campaign'] });
    expect(ahead.description).toContain('「Pacing test」');
    expect(ahead.description).toContain('1000%');
    const anonymous = await report({ period: '7d', includeSystemHealth: false }, tokens.anon, V2);
    const unnamed = anonymous.body.data.insights.find((i: { title: string }) => i.title === '活動花費超前');
    expect(unnamed).toMatchObject({ campaign_id: null });
    expect(unnamed.description).not.toContain('Pacing test');
    const { campaigns } = await recomputedMarketing(addDays(today, -6), today);
    expect(Number(campaigns.find((c) => c.id === id)!.spend)).toBe(20000);
  });
});

/**
 * The customer quality of [from, before) recomputed from the orders: the customers with an order placed in it
 * that counts now, each scored by the seeds' formula as of `before` from their counted orders before it.
 */
async function recomputedQuality(from: string, before: string) {
  const [row] = await sql`
    with population as (
      select distinct o.customer_id from public.orders o
      where o.ordered_at >= ${from}::timestamptz and o.ordered_at < ${before}::timestamptz and o.counted_until = 'infinity'
    ),
    scored as (
      select extract(epoch from ${before}::timestamptz - max(o.ordered_at)) / 86400 as recency_days,
             count(*) filter (where o.ordered_at >= ${before}::timestamptz - interval '8760 hours') as orders,
             coalesce(sum(o.total_amount) filter (where o.ordered_at >= ${before}::timestamptz - interval '8760 hours'), 0) as spend
      from population p
      join public.orders o on o.customer_id = p.customer_id and o.ordered_at < ${before}::timestamptz and o.counted_until = 'infinity'
      group by p.customer_id
    )
    select count(*)::int as customers,
           coalesce(private.health_average_rfm_score(array_agg(recency_days), array_agg(orders), array_agg(spend)) / 5 * 100, 0)
             as quality
    from scored`;
  return row as { customers: number; quality: number };
}

describe('business health 2.0: custom periods of store days', () => {
  const custom = (from: string, to: string, extra: Record<string, string> = {}) =>
    new URLSearchParams({ period: 'custom', from, to, ...extra });

  it.each([
    ['previous', {}],
    ['last_year', { compare: 'last_year' }],
    ['custom', { compare: 'custom', compare_from: 'D-40', compare_to: 'D-31' }],
  ])('the figures of a period and the one it is compared with (%s) are the orders list’s summaries of their days', async (_, extra) => {
    const today = storeToday();
    const from = addDays(today, -20);
    const to = addDays(today, -1);
    const resolved = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, v.startsWith('D-') ? addDays(today, -Number(v.slice(2))) : v]));
    const { status, body } = await get(`business-health-analytics/figures?${custom(from, to, resolved)}`);
    expect(status, JSON.stringify(body)).toBe(200);
    const { current, previous } = body.data;
    expect([current.first_day, current.last_day]).toEqual([from, to]);
    // A year before, day for day (29 February a year on is 28 February).
    const yearBefore = (day: string) => `${Number(day.slice(0, 4)) - 1}${day.slice(4)}`.replace(/-02-29$/, '-02-28');
    const expected = { previous: [addDays(from, -20), addDays(from, -1)], last_year: [yearBefore(from), yearBefore(to)],
                       custom: [resolved.compare_from, resolved.compare_to] }[extra.compare ?? 'previous'];
    expect([previous.first_day, previous.last_day]).toEqual(expected);
    expect(Date.parse(current.from)).toBe(storeInstant(from, '00:00'));
    expect(Date.parse(current.before)).toBe(storeInstant(today, '00:00'));
    for (const window of [current, previous]) {
      const list = await get(`orders?${new URLSearchParams({ ordered_from: window.from, ordered_before: window.before, per_page: '1' })}`);
      const figures = ['orders', 'counted_orders', 'revenue', 'completed', 'cancelled', 'refunded', 'average_order_value'] as const;
      expect(Object.fromEntries(figures.map((f) => [f, window[f]])), window.first_day)
        .toEqual(Object.fromEntries(figures.map((f) => [f, list.body.summary[f]])));
      expect(window.active_customers).toBe((await recomputedQuality(window.from, window.before)).customers);
    }
    expect(current.orders, 'the data set has orders in the period').toBeGreaterThan(0);
  });

  it("2.0 scores a custom period as of its end and trends it against the period it is compared with", async () => {
    const today = storeToday();
    const from = addDays(today, -44);
    const to = addDays(today, -15);
    const v2 = await report({ period: 'custom', from, to, compare: 'previous', includeSystemHealth: false }, tokens.admin, V2);
    expect(v2.status, v2.text).toBe(200);
    const { data } = v2.body;
    const figures = (await get(`business-health-analytics/figures?${custom(from, to)}`)).body.data;
    expect(data.window).toEqual({ period: 'custom', from: figures.current.from, before: figures.current.before,
                                  compareFrom: figures.previous.from, compareBefore: figures.previous.before });
    const now = await recomputedQuality(figures.current.from, figures.current.before);
    const before = await recomputedQuality(figures.previous.from, figures.previous.before);
    expect(now.customers).toBeGreaterThan(0);
    expect(data.scoreDetails.customerQuality).toBeCloseTo(now.quality, 2);
    expect(data.scoreDetails.operationalEfficiency).toBeCloseTo(figures.current.completed / figures.current.orders * 100, 2);
    const [{ revenue }] = await sql`select round(private.health_revenue_score(${figures.current.revenue}, ${figures.previous.revenue}), 2) as revenue`;
    expect(data.metrics.revenue).toBe(revenue);
    const change = (a: number, b: number) => (b === 0 ? (a > 0 ? 100 : 0) : (a - b) / b * 100);
    expect(data.trends.customerChange).toBeCloseTo(change(now.quality, before.quality), 1);
    expect(data.marketingDetails).toMatchObject({ firstDay: from, lastDay: to });
  });

  it('a past period without orders says so of its own days, not of the last ones', async () => {
    const empty = await report({ period: 'custom', from: '2001-03-01', to: '2001-03-10', includeSystemHealth: false }, tokens.anon, V2);
    const none = empty.body.data.insights.find((i: { title: string }) => i.title === '本期沒有訂單');
    expect(none.description).toBe('這段期間的 10 天沒有任何訂單，各項分數以 0 計。');
    const week = await report({ period: '7d', includeSystemHealth: false }, tokens.anon, V2);
    expect(JSON.stringify(week.body.data.insights)).not.toContain('這段期間的');
  });

  it('a custom period is checked: its days, 366 at most, up to today, its comparison; 1.0 takes none of it', async () => {
    const today = storeToday();
    const refused = async (body: Record<string, unknown>, parameter: string) => {
      const res = await report({ period: 'custom', ...body }, tokens.anon, V2);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.parameter, JSON.stringify(body)).toBe(parameter);
      return res.body.details;
    };
    await refused({ to: today }, 'from');
    await refused({ from: addDays(today, -3), to: addDays(today, -4) }, 'to');
    await refused({ from: addDays(today, -366), to: today }, 'to');
    await refused({ from: addDays(today, -3), to: addDays(today, 1) }, 'to');
    await refused({ from: addDays(today, -3), to: today, compare: 'custom' }, 'compare_from');
    expect(await refused({ from: addDays(today, -3), to: today, compare: 'lastyear' }, 'compare'))
      .toMatchObject({ expected: ['previous', 'last_year', 'custom'] });
    const notCustom = await report({ period: '7d', from: today }, tokens.anon, V2);
    expect(notCustom.body.details).toMatchObject({ parameter: 'from' });
    expect((await report({ period: 'custom', from: addDays(today, -365), to: today }, tokens.anon, V2)).status).toBe(200);
    const v1 = await report({ period: '7d', from: today });
    expect(v1.body.details).toMatchObject({ parameter: 'from', expected: ['period', 'includeSystemHealth', 'includeTrends', 'includeInsights'] });
  });
});
