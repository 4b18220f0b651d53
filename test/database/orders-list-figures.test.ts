/**
 * The orders list's kept figures (supabase/schemas/30_orders/50_order_list_figures.sql): its summary of all time, of
 * whole store days up to now or before, and of a search over all time must equal the same summary summed
 * from the orders, after every kind of write, with the changes folded or not; and the kept figures answer
 * nothing (null: the list sums the orders) where they could be wrong or must not be seen. A store of its own,
 * so no other test's orders (one completed in the future, say) change which path answers.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asRole, migratedStore, scratchDatabase } from '../support/client.ts';

const store = scratchDatabase('order_list_figures');
let sql: postgres.Sql;

beforeAll(async () => {
  sql = await migratedStore(store);
});

afterAll(() => sql?.end());

type Tx = postgres.TransactionSql;
type Window = { from: string | null; before: string | null; pattern: string | null };

/** The kept summary and the one summed from the orders as the list sums them at `now`, in one snapshot. */
async function keptAndSummed(tx: Tx, { from, before, pattern }: Window) {
  const [row] = await tx`
    select private.kept_orders_summary(${from}::timestamptz, ${before}::timestamptz, ${pattern}::text) as kept,
           (select jsonb_build_object(
                     'orders', count(*), 'counted_orders', count(*) filter (where k.counted),
                     'revenue', coalesce(sum(o.total_amount) filter (where k.counted), 0),
                     'average_order_value', round(sum(o.total_amount) filter (where k.counted) / nullif(count(*) filter (where k.counted), 0), 2),
                     'completed', count(*) filter (where o.completed_at < private.now()),
                     'cancelled', count(*) filter (where o.cancelled_at < private.now()),
                     'refunded', count(*) filter (where o.counted_until < private.now()
                                                   and (o.cancelled_at is null or o.cancelled_at >= private.now())),
                     'customers', count(distinct o.customer_id))
            from public.orders o
            cross join lateral (select o.counted_until >= private.now() as counted) k
            where (${from}::timestamptz is null or o.ordered_at >= ${from}::timestamptz)
              and (${before}::timestamptz is null or o.ordered_at < ${before}::timestamptz)
              and (${pattern}::text is null or o.customer_id in (select c.id from public.customers c
                                                                 where c.name ilike ${pattern} or c.email ilike ${pattern}))) as summed`;
  return row as { kept: Record<string, number> | null; summed: Record<string, number> };
}

/** As the fold runs it (the owner's job, not a caller's). */
async function asOwner(tx: Tx, work: string) {
  await tx`select set_config('role', 'postgres', true)`;
  await tx.unsafe(work);
  await tx`select set_config('role', 'service_role', true)`;
}

/** The windows the console's presets ask for, and a search: each kept summary must equal its sum. */
async function expectKeptEqualsSummed(tx: Tx) {
  const [{ today }] = await tx`select private.store_today() as today`;
  const midnight = async (days: number) =>
    ((await tx`select private.store_day_start(${today}::date + ${days}::int) as at`)[0].at as Date).toISOString();
  const windows: Record<string, Window> = {
    'all time': { from: null, before: null, pattern: null },
    'last 7 days': { from: await midnight(-6), before: await midnight(1), pattern: null },
    yesterday: { from: await midnight(-1), before: await midnight(0), pattern: null },
    '1975': { from: '1975-01-01T00:00:00+08:00', before: '1976-01-01T00:00:00+08:00', pattern: null },
    search: { from: null, before: null, pattern: '%kept-a%' },
  };
  for (const [name, window] of Object.entries(windows)) {
    const { kept, summed } = await keptAndSummed(tx, window);
    expect(kept, name).toEqual(summed);
  }
}

describe("the orders list's kept figures", () => {
  it('equal the orders summed after inserts, status and date changes and deletes, folded or not', async () => {
    const { error } = await asRole(sql, { role: 'service_role' }, async (tx) => {
      const customers = await tx`
        insert into public.customers (email, name)
        values ('kept-a1@test.example', 'Kept A'), ('kept-a2@test.example', 'Kept A two'), ('kept-b@test.example', 'Kept B')
        returning id`.then((rows) => rows.map((r) => r.id as string));
      const ids = await tx`
        insert into public.orders (customer_id, status, total_amount, ordered_at, completed_at, cancelled_at)
        select (${customers}::uuid[])[1 + n % 3], s.status, 10 + n, private.now() - make_interval(hours => n * 7),
               case when s.status = 'completed' then private.now() - make_interval(hours => n * 7 - 1) end,
               case when s.status = 'cancelled' then private.now() - make_interval(hours => n * 7 - 2) end
        from generate_series(1, 40) n
        cross join lateral (select (array['pending', 'paid', 'shipped', 'completed', 'cancelled', 'refunded'])[1 + n % 6] as status) s
        union all
        select (${customers}::uuid[])[3], 'paid', 99.5, '1975-03-02 10:00+08', null, null
        returning id`.then((rows) => rows.map((r) => r.id as string));
      await expectKeptEqualsSummed(tx);
      await asOwner(tx, 'select private.fold_order_changes(true)');
      await expectKeptEqualsSummed(tx);
      await tx`update public.orders set status = 'cancelled', cancelled_at = private.now() - interval '1 minute' where id = ${
        ids[1]
      }`;
      await tx`update public.orders set status = 'refunded' where id = ${ids[2]}`;
      await expectKeptEqualsSummed(tx);
      await asOwner(tx, 'select private.fold_order_changes(true)');
      await tx`update public.orders set ordered_at = '1975-03-03 09:00+08' where id = ${ids[3]}`;
      await tx`update public.orders set customer_id = ${customers[0]} where id = ${ids[4]}`;
      await expectKeptEqualsSummed(tx);
      await asOwner(tx, 'select private.fold_order_changes(true)');
      await expectKeptEqualsSummed(tx);
      await tx`delete from public.orders where customer_id = ${customers[1]}`;
      await expectKeptEqualsSummed(tx);
      await asOwner(tx, 'select private.fold_order_changes(true)');
      await expectKeptEqualsSummed(tx);
      // Rebuilt from scratch, they are what they were.
      await asOwner(tx, 'select private.refold_all_orders()');
      await expectKeptEqualsSummed(tx);
      // Kept answered each window, not the fallback.
      expect((await keptAndSummed(tx, { from: null, before: null, pattern: null })).kept).not.toBeNull();
    });
    expect(error).toBeUndefined();
  });

  it('over a random history of writes, with folds of random sizes among them, every kept row equals a recompute', async () => {
    // A fixed seed, so a failure replays: a linear congruential generator.
    let state = 43;
    const random = (n: number) => (state = (state * 1103515245 + 12345) % 2147483648) % n;
    const { error } = await asRole(sql, { role: 'service_role' }, async (tx) => {
      const customers = await tx`
        insert into public.customers (email, name) select 'kept-r' || n || '@test.example', 'Kept R' || n from generate_series(1, 6) n
        returning id`.then((rows) => rows.map((r) => r.id as string));
      const statuses = ['pending', 'paid', 'shipped', 'completed', 'cancelled', 'refunded'];
      for (let step = 0; step < 60; step++) {
        const [order] =
          await tx`select id from public.orders where customer_id = any(${customers}::uuid[]) order by id limit 1 offset ${
            random(8)
          }`;
        const action = order ? random(5) : 0;
        const customer = customers[random(customers.length)];
        const at = `1974-0${1 + random(3)}-1${random(9)} 1${random(9)}:00+08`;
        if (action === 0) {
          const status = statuses[random(statuses.length)];
          await tx`insert into public.orders (customer_id, status, total_amount, ordered_at, completed_at, cancelled_at)
                   values (${customer}, ${status}, ${1 + random(500)}, ${at}::timestamptz,
                           case when ${status} = 'completed' then ${at}::timestamptz end,
                           case when ${status} = 'cancelled' then ${at}::timestamptz end)`;
        } else if (action === 1) {
          await tx`update public.orders set ordered_at = ${at}::timestamptz where id = ${order.id}`;
        } else if (action === 2) await tx`update public.orders set customer_id = ${customer} where id = ${order.id}`;
        else if (action === 3) await tx`update public.orders set status = 'refunded' where id = ${order.id}`;
        else await tx`delete from public.orders where id = ${order.id}`;
        if (random(4) === 0) {
          await asOwner(tx, `select private.fold_order_changes(true, ${1 + random(5)})`);
          const [row] = await tx`
            select (select count(*) from private.order_changes) as unfolded,
                   (select coalesce(jsonb_agg(to_jsonb(f) order by f.order_date), '[]') from private.order_day_figures f
                    where f.order_date < '1975-01-01' and f.orders <> 0) as days,
                   (select coalesce(jsonb_agg(jsonb_build_object('order_date', r.order_date, 'orders', r.orders,
                             'counted_orders', r.counted_orders, 'revenue', r.revenue, 'completed', r.completed,
                             'cancelled', r.cancelled, 'refunded', r.refunded, 'promised', r.promised,
                             'on_time', r.on_time) order by r.order_date), '[]')
                    from (select o.order_date, count(*)::int as orders, count(*) filter (where k.counted)::int as counted_orders,
                                 coalesce(sum(o.total_amount) filter (where k.counted), 0) as revenue,
                                 count(*) filter (where o.completed_at is not null)::int as completed,
                                 count(*) filter (where o.cancelled_at is not null)::int as cancelled,
                                 count(*) filter (where not k.counted and o.cancelled_at is null)::int as refunded,
                                 count(*) filter (where o.promised_at is not null and o.cancelled_at is null)::int as promised,
                                 count(*) filter (where o.cancelled_at is null and o.delivered_at <= o.promised_at)::int
                                   as on_time
                          from public.orders o cross join lateral (select private.counts_as_revenue(o.counted_until) as counted) k
                          where o.order_date < '1975-01-01' group by o.order_date) r) as days_recomputed,
                   (select coalesce(jsonb_agg(to_jsonb(f) order by f.customer_id), '[]') from private.customer_order_figures f
                    where f.customer_id = any(${customers}::uuid[])) as customers,
                   (select coalesce(jsonb_agg(to_jsonb(n) order by n.customer_id), '[]')
                    from private.customer_order_figures_now(${customers}::uuid[]) n) as customers_recomputed,
                   (select coalesce(jsonb_agg(to_jsonb(k) order by k.customer_id), '[]') from private.customer_counted_orders k
                    where k.customer_id = any(${customers}::uuid[])) as counted,
                   (select coalesce(jsonb_agg(jsonb_build_object('customer_id', c.customer_id, 'placed_at', c.placed_at,
                                                                 'running_spend', c.running_spend) order by c.customer_id), '[]')
                    from (select o.customer_id, array_agg(o.ordered_at order by o.ordered_at, o.total_amount) as placed_at,
                                 array_agg(o.running order by o.ordered_at, o.total_amount) as running_spend
                          from (select o.*, sum(o.total_amount) over (partition by o.customer_id order by o.ordered_at, o.total_amount
                                                                      rows unbounded preceding) as running
                                from public.orders o
                                where o.customer_id = any(${customers}::uuid[]) and o.counted_until = 'infinity') o
                          group by o.customer_id) c) as counted_recomputed`;
          if (Number(row.unfolded) === 0) {
            expect(row.days, `step ${step}`).toEqual(row.days_recomputed);
            expect(row.customers, `step ${step}`).toEqual(row.customers_recomputed);
            // Each customer's counted orders as custom periods read them (50_health/55_custom_periods.sql).
            expect(row.counted, `step ${step}`).toEqual(row.counted_recomputed);
          }
        }
      }
      await asOwner(tx, 'select private.fold_order_changes(true)');
      await expectKeptEqualsSummed(tx);
    });
    expect(error).toBeUndefined();
  });

  it('answer nothing where "as of now" would count differently, or for a caller who does not see every order', async () => {
    const { error } = await asRole(sql, { role: 'service_role' }, async (tx) => {
      const [{ id: customer }] =
        await tx`insert into public.customers (email, name) values ('kept-f@test.example', 'Kept F') returning id`;
      await tx`insert into public.orders (customer_id, status, total_amount, ordered_at, completed_at)
               values (${customer}, 'completed', 5, private.now() - interval '1 hour', private.now() + interval '1 hour')`;
      expect((await keptAndSummed(tx, { from: null, before: null, pattern: null })).kept).toBeNull();
      // A window that does not start at a store midnight is summed from the orders too.
      await tx`update public.orders set completed_at = private.now() - interval '1 second' where customer_id = ${customer}`;
      expect((await keptAndSummed(tx, { from: null, before: null, pattern: null })).kept).not.toBeNull();
      expect((await keptAndSummed(tx, { from: '2026-01-01T01:00:00Z', before: null, pattern: null })).kept).toBeNull();
    });
    expect(error).toBeUndefined();
    const customer = await asRole(
      sql,
      { role: 'authenticated', sub: '00000000-0000-0000-0000-00000000c0de' },
      (tx) => keptAndSummed(tx, { from: null, before: null, pattern: null }),
    );
    expect(customer.error).toBeUndefined();
    expect(customer.result?.kept).toBeNull();
  });
});
