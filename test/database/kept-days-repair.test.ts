/**
 * A kept figure recovers by itself: if a kept store day (the daily revenue attribution reads, the orders
 * list's day figures), a customer's kept figures or a shipped order's kept cost ever disagrees with the
 * orders, the nightly store job (private.repair_kept_days, repair_kept_customers, repair_kept_costs) finds it and rewrites it from them, counting the
 * changes the fold has not yet taken, and touches nothing that agrees. On a store of its own: the check reads
 * every order of its days.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedStore, scratchDatabase } from '../support/client.ts';
import { keptAndRecomputedRevenue } from '../support/health-rollups.ts';

const store = scratchDatabase('kept_days_repair');
let sql: postgres.Sql;

beforeAll(async () => {
  sql = await migratedStore(store);
});

afterAll(() => sql?.end());

/** Thrown to roll back a rebuild, carrying what it read. */
class Rebuilt extends Error {
  constructor(readonly rows: object[]) {
    super('rebuilt');
  }
}

/** The orders list's kept day figures, and the same summed from the orders, for days with any order. */
async function keptAndSummedDays() {
  const [row] = await sql`
    select (select coalesce(jsonb_object_agg(f.order_date, to_jsonb(f) - 'order_date' order by f.order_date), '{}')
            from private.order_day_figures f
            where (f.orders, f.counted_orders, f.revenue, f.completed, f.cancelled, f.refunded, f.promised, f.on_time)
                  is distinct from (0, 0, 0, 0, 0, 0, 0, 0)) as kept,
           (select coalesce(jsonb_object_agg(d.order_date, to_jsonb(d) - 'order_date' order by d.order_date), '{}')
            from (select o.order_date, count(*)::int as orders, count(*) filter (where k.counted)::int as counted_orders,
                         coalesce(sum(o.total_amount) filter (where k.counted), 0)::numeric(14, 2) as revenue,
                         count(*) filter (where o.completed_at is not null)::int as completed,
                         count(*) filter (where o.cancelled_at is not null)::int as cancelled,
                         count(*) filter (where not k.counted and o.cancelled_at is null)::int as refunded,
                         count(*) filter (where o.promised_at is not null and o.cancelled_at is null)::int as promised,
                         count(*) filter (where o.cancelled_at is null and o.delivered_at <= o.promised_at)::int as on_time
                  from public.orders o
                  cross join lateral (select private.counts_as_revenue(o.counted_until) as counted) k
                  group by o.order_date) d) as summed`;
  return row as { kept: Record<string, unknown>; summed: Record<string, unknown> };
}

describe('the kept store days are checked and repaired by a store job', () => {
  it('days made wrong are found and rewritten from the orders, changes not yet folded counted once; right days are left alone', async () => {
    const [{ customer }] = await sql`
      insert into public.customers (email, name) values ('repair@test.example', 'Repair') returning id as customer`;
    // Orders over ten days of March 2020, away from the seed's, some cancelled, refunded or delivered late; folded.
    const base = '2020-03-15T12:00:00+08:00';
    const [first, last] = ['2020-03-01', '2020-03-20'];
    await sql`
      insert into public.orders (customer_id, status, total_amount, ordered_at, cancelled_at, refunded_at, promised_at,
                                 delivered_at)
      select ${customer}, case when i % 7 = 0 then 'cancelled' when i % 11 = 0 then 'refunded'
                               when i % 3 = 0 then 'delivered' else 'paid' end,
             10 + i, ${base}::timestamptz - make_interval(hours => i * 5),
             case when i % 7 = 0 then ${base}::timestamptz - make_interval(hours => i * 5 - 1) end,
             case when i % 11 = 0 and i % 7 <> 0 then ${base}::timestamptz - make_interval(hours => i * 5 - 2) end,
             ${base}::timestamptz - make_interval(hours => i * 5 - 24),
             case when i % 3 = 0 and i % 7 <> 0 then ${base}::timestamptz - make_interval(hours => i * 5 - 30) end
      from generate_series(1, 48) i`;
    await sql`select private.fold_order_changes(true)`;
    expect(await sql`select private.repair_kept_days(${first}, ${last}) as repaired`).toEqual([{ repaired: 0 }]);

    // Three days made wrong, as a bug or a hand edit might: one kept revenue off, one day's counts off, one day
    // dropped; and a day held that has no orders at all.
    const days = (await sql`select order_date::text as day from private.order_day_figures
                            where order_date between ${first} and ${last} order by 1`).map((r) => r.day);
    await sql`update private.order_daily_revenue set revenue = revenue + 500 where order_date = ${days[0]}`;
    await sql`update private.order_day_figures set orders = orders + 3, on_time = on_time + 1 where order_date = ${days[1]}`;
    await sql`delete from private.order_daily_revenue where order_date = ${days[2]}`;
    await sql`delete from private.order_day_figures where order_date = ${days[2]}`;
    await sql`insert into private.order_daily_revenue (order_date, revenue) values (${first}, 77)`;
    // Changes the fold has not taken yet: a new order and a cancellation.
    await sql`insert into public.orders (customer_id, status, total_amount, ordered_at)
              values (${customer}, 'paid', 999, ${base})`;
    await sql`update public.orders set status = 'cancelled', cancelled_at = ordered_at + interval '1 hour'
              where id = (select id from public.orders where customer_id = ${customer} and status = 'paid'
                          order by ordered_at limit 1)`;

    expect(await sql`select private.repair_kept_days(${first}, ${last}) as repaired`).toEqual([{ repaired: 4 }]);
    await sql`select private.fold_order_changes(true)`;
    const revenue = await keptAndRecomputedRevenue(sql, 'private.order_daily_revenue');
    expect(revenue.kept).toEqual(revenue.recomputed);
    const figures = await keptAndSummedDays();
    expect(figures.kept).toEqual(figures.summed);
    expect(await sql`select private.repair_kept_days(${first}, ${last}) as repaired`).toEqual([{ repaired: 0 }]);
  });

  it("a shipped order's kept cost made wrong, dropped or held for an order not shipped is written again from its goods", async () => {
    const orders = await sql.begin(async (tx) => {
      await tx`select set_config('request.jwt.claims', '{"role":"service_role"}', true)`;
      const [{ customer }] = await tx`
        insert into public.customers (email, name) values ('costs@test.example', 'Costs') returning id as customer`;
      const [{ product }] = await tx`insert into public.products (sku, name) values ('COSTS-1', 'Costs') returning id as product`;
      await tx`select public.stock_in(${product}, 20, 'purchase_order', null, null, null, null, null, 30)`;
      const ids: string[] = [];
      for (let i = 1; i <= 4; i++) {
        const lines = tx.json([{ product_id: product, quantity: i, unit_price: 50 }]);
        const [{ placed }] = await tx`select public.place_order(${customer}, ${lines}, 'paid') as placed`;
        if (i < 4) await tx`select public.update_order_status(${placed.data.id}, 'shipped')`;
        ids.push(placed.data.id);
      }
      return ids;
    });
    const [{ today }] = await sql`select private.store_today()::text as today`;
    const check = () => sql`select private.repair_kept_costs(${today}::date - 1, ${today}) as repaired`;
    expect(await check()).toEqual([{ repaired: 0 }]);
    await sql`update private.shipped_order_costs set goods_cost = goods_cost + 1 where order_id = ${orders[0]}`;
    await sql`delete from private.shipped_order_costs where order_id = ${orders[1]}`;
    await sql`insert into private.shipped_order_costs (order_id, ordered_at, total_amount, goods_cost)
              select id, ordered_at, total_amount, 1 from public.orders where id = ${orders[3]}`;
    expect(await check()).toEqual([{ repaired: 3 }]);
    const kept = await sql`select order_id, goods_cost from private.shipped_order_costs
                           where order_id = any(${orders}::uuid[]) order by goods_cost`;
    expect(kept.map((k) => [k.order_id, k.goods_cost])).toEqual([[orders[0], 30], [orders[1], 60], [orders[2], 90]]);
    expect(await check()).toEqual([{ repaired: 0 }]);
  });

  it('health figures kept by 10 minutes and by hour made wrong are put right from the orders, changes not yet folded counted once', async () => {
    // The orders of the first test (March 2020): their steps fall between their placing and 180 days later.
    const [first, before] = ['2020-03-01T00:00:00Z', '2020-10-01T00:00:00Z'];
    const check = () => sql`select private.repair_kept_hours(${first}, ${before}) as repaired`;
    await sql`select private.fold_order_changes(true)`;
    const kept = () => sql`
      select days, hour::text, orders, completed, cancelled, due, on_time, revenue::numeric(20, 2)::text as revenue,
             previous_revenue::numeric(20, 2)::text as previous_revenue,
             revenue_orders, previous_revenue_orders
      from private.health_figure_changes
      where hour >= ${first} and hour < ${before}
        and (orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders, previous_revenue_orders)
            is distinct from (0, 0, 0, 0, 0, 0, 0, 0, 0)
      order by 1, 2`;
    const right = await kept();
    expect(right.length).toBeGreaterThan(50);
    expect(await check()).toEqual([{ repaired: 0 }]);
    await sql`update private.health_figure_changes_by_10_minutes set revenue = revenue + 1000, orders = orders - 1
              where (days, ten_minutes) = (select days, ten_minutes from private.health_figure_changes_by_10_minutes
                                           where ten_minutes >= ${first} order by ten_minutes, days limit 1)`;
    await sql`update private.health_figure_changes set due = due + 7
              where (days, hour) = (select days, hour from private.health_figure_changes
                                    where hour >= ${first} and hour < ${before} order by hour desc, days limit 1)`;
    // A change not folded yet: one more order in March 2020.
    const [{ customer }] = await sql`select id as customer from public.customers where email = 'repair@test.example'`;
    await sql`insert into public.orders (customer_id, status, total_amount, ordered_at)
              values (${customer}, 'paid', 321, '2020-03-10T03:00:00Z')`;
    // The 10 minutes made wrong (its hour's sum then right again) and the hour made wrong.
    expect(await check()).toEqual([{ repaired: 2 }]);
    await sql`select private.fold_order_changes(true)`;
    const rebuilt = await sql.begin(async (tx) => {
      await tx`select private.refold_all_orders()`;
      throw new Rebuilt(await tx`
        select days, hour::text, orders, completed, cancelled, due, on_time, revenue::numeric(20, 2)::text as revenue,
               previous_revenue::numeric(20, 2)::text as previous_revenue,
               revenue_orders, previous_revenue_orders
        from private.health_figure_changes
        where hour >= ${first} and hour < ${before}
          and (orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders, previous_revenue_orders)
              is distinct from (0, 0, 0, 0, 0, 0, 0, 0, 0)
        order by 1, 2`);
    }).catch((error) => {
      if (error instanceof Rebuilt) return error.rows;
      throw error;
    });
    expect((await kept()).map((r) => ({ ...r }))).toEqual(rebuilt.map((r: object) => ({ ...r })));
    expect(await check()).toEqual([{ repaired: 0 }]);
  });

  it('puts right every order figure the fold keeps: each column of private.order_figure_steps, by 10 minutes and by hour', async () => {
    const [{ figures }] = await sql`
      select p.proargnames[p.pronargs + 3:] as figures from pg_proc p
      where p.oid = 'private.order_figure_steps(private.order_changes[])'::regprocedure`;
    expect(figures).toContain('previous_revenue_orders');
    const sources = await sql`
      select p.proname, p.prosrc from pg_proc p
      where p.oid in ('private.repair_kept_hours(timestamptz, timestamptz)'::regprocedure,
                      'private.repair_kept_hour_sums(timestamptz, timestamptz)'::regprocedure)`;
    expect(sources).toHaveLength(2);
    for (const { proname, prosrc } of sources) {
      const added = (figures as string[]).filter((name) => !prosrc.includes(`${name} = f.${name} + excluded.${name}`));
      expect(added, `${proname} adds every figure`).toEqual([]);
    }
  });

  it("a customer's kept figures made wrong or dropped are summed again from their orders", async () => {
    const customers = (await sql`
      insert into public.customers (email, name)
      values ('one@customers.example', 'One'), ('two@customers.example', 'Two') returning id`).map((c) => c.id);
    await sql`insert into public.orders (customer_id, status, total_amount, completed_at, cancelled_at)
              select c, s, 40, case when s = 'completed' then private.now() end,
                     case when s = 'cancelled' then private.now() end
              from unnest(${customers}::uuid[]) c, unnest(array['paid', 'completed', 'cancelled']) s`;
    const [{ today }] = await sql`select private.store_today()::text as today`;
    const check = () => sql`select private.repair_kept_customers(${today}::date - 1, ${today}) as repaired`;
    expect(await check()).toEqual([{ repaired: 0 }]);
    await sql`update private.customer_order_figures set orders = orders + 5, revenue = revenue + 1 where customer_id = ${customers[0]}`;
    await sql`delete from private.customer_order_figures where customer_id = ${customers[1]}`;
    expect(await check()).toEqual([{ repaired: 2 }]);
    const [{ same }] = await sql`
      select (select jsonb_agg(to_jsonb(k) order by k.customer_id) from private.customer_order_figures k
              where k.customer_id = any(${customers}::uuid[]))
           = (select jsonb_agg(to_jsonb(n) order by n.customer_id) from private.customer_order_figures_now(${customers}::uuid[]) n)
             as same`;
    expect(same).toBe(true);
    expect(await check()).toEqual([{ repaired: 0 }]);
  });
});
