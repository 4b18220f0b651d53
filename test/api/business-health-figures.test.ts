// The figures behind business health's scores (GET /business-health-analytics/figures), on a store of its
// own so that no other file's orders move them between two calls: administrators only (they are amounts,
// which the open report never carries), and each period's figures are the orders list's summary of its
// window at its end, with customers and tickets as counted from their tables. Today so far and yesterday
// (GET /business-health-analytics/days) are store days, each the orders list's summary of that day.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startFunctions } from '../../scripts/lib/stack.mjs';
import { seedDemo } from '../../scripts/seed-demo.mjs';
import { call, createUser, scratchDatabase, tokens } from '../support/client.ts';
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
