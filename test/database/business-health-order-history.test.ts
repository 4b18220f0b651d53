/**
 * `private.customer_order_history`, the per-customer running totals of orders by day that the RFM pass
 * reads instead of a year of orders, is derived data kept by triggers on `public.orders`: it must equal a
 * recomputation from the orders after any write, concurrent writes included, and the RFM figures read
 * through it must equal the same figures computed from the orders alone. Orders are dated in the 1980s,
 * outside every window other tests read.
 */
import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { createCustomer, database, rolledBack } from '../support/client.ts';

const sql = database(12);

/** The history of these customers as kept, and as recomputed from their orders. */
async function historyAndRecomputation(db: postgres.Sql | postgres.TransactionSql, customers: string[]) {
  const [row] = await db`
    select
      (select coalesce(jsonb_agg(jsonb_build_array(h.customer_id, h.days, h.cum_orders, h.cum_spend)
                                 order by h.customer_id), '[]')
       from private.customer_order_history h
       where h.customer_id = any(${customers}::uuid[]) and h.days is not null) as kept,
      (select coalesce(jsonb_agg(jsonb_build_array(r.customer_id, r.days, r.cum_orders, r.cum_spend)
                                 order by r.customer_id), '[]')
       from (
         select d.customer_id, array_agg(d.order_date order by d.order_date) as days,
                array_agg(d.total_orders order by d.order_date) as cum_orders,
                array_agg(d.total_spend order by d.order_date) as cum_spend
         from (
           select o.customer_id, o.order_date,
                  (sum(count(*)) over (partition by o.customer_id order by o.order_date))::integer as total_orders,
                  sum(sum(o.total_amount)) over (partition by o.customer_id order by o.order_date) as total_spend
           from public.orders o
           where o.customer_id = any(${customers}::uuid[]) and o.status <> 'refunded' and o.cancelled_at is null
           group by o.customer_id, o.order_date
         ) d
         group by d.customer_id
       ) r) as recomputed`;
  return row as { kept: unknown; recomputed: unknown };
}

describe('customer order history (kept by triggers on orders)', () => {
  it('equals a recomputation from orders after inserts, updates of every counted column, and deletes', async () => {
    await rolledBack(sql, async (tx) => {
      const a = await createCustomer(tx, 'history');
      const b = await createCustomer(tx, 'history');
      const expectConsistent = async () => {
        const { kept, recomputed } = await historyAndRecomputation(tx, [a, b]);
        expect(kept).toEqual(recomputed);
      };
      const ids = await tx`
        insert into public.orders (customer_id, status, total_amount, ordered_at, cancelled_at)
        values (${a}, 'paid', 100, '1985-03-01 10:00Z', null), (${a}, 'paid', 250.5, '1985-03-01 23:00Z', null),
               (${a}, 'delivered', 40, '1985-02-10 08:00Z', null), (${b}, 'paid', 999, '1985-02-20 12:00Z', null),
               (${b}, 'cancelled', 70, '1985-02-21 12:00Z', '1985-02-21 13:00Z'), (${b}, 'refunded', 30, '1985-02-22 12:00Z', null)
        returning id`.then((rows) => rows.map((r) => r.id as string));
      await expectConsistent();

      await tx`update public.orders set status = 'cancelled', cancelled_at = ordered_at + interval '1 hour' where id = ${ids[0]}`;
      await expectConsistent();
      await tx`update public.orders set status = 'paid', cancelled_at = null where id = ${ids[4]}`;
      await expectConsistent();
      await tx`update public.orders set status = 'paid' where id = ${ids[5]}`;
      await expectConsistent();
      await tx`update public.orders set total_amount = 12.34 where id = ${ids[1]}`;
      await expectConsistent();
      await tx`update public.orders set ordered_at = '1984-12-31 23:59Z' where id = ${ids[2]}`;
      await expectConsistent();
      await tx`update public.orders set customer_id = ${b} where id = ${ids[1]}`;
      await expectConsistent();
      await tx`update public.orders set status = 'refunded' where customer_id = any(${[a, b]}::uuid[])`;
      await expectConsistent();
      await tx`update public.orders set status = 'paid' where customer_id = any(${[a, b]}::uuid[])`;
      await expectConsistent();
      await tx`delete from public.orders where id = ${ids[3]}`;
      await expectConsistent();
      await tx`delete from public.orders where customer_id = any(${[a, b]}::uuid[])`;
      await expectConsistent();
    });
  });

  it('is kept for orders written with session_replication_role = replica, as a logical replica writes them', async () => {
    await rolledBack(sql, async (tx) => {
      const a = await createCustomer(tx, 'history');
      await tx`select set_config('session_replication_role', 'replica', true)`;
      await tx`insert into public.orders (customer_id, status, total_amount, ordered_at)
               values (${a}, 'paid', 100, '1987-01-05 10:00Z'), (${a}, 'paid', 50, '1987-01-07 10:00Z')`;
      await tx`select set_config('session_replication_role', 'origin', true)`;
      const { kept, recomputed } = await historyAndRecomputation(tx, [a]);
      expect((recomputed as unknown[]).length).toBe(1);
      expect(kept).toEqual(recomputed);
    });
  });

  it('stays exact under concurrent order writes for the same customers', async () => {
    const customers = [await createCustomer(sql, 'history'), await createCustomer(sql, 'history')];
    try {
      await Promise.all(Array.from({ length: 24 }, (_, i) => sql.begin(async (tx) => {
        const [{ id }] = await tx`
          insert into public.orders (customer_id, status, total_amount, ordered_at)
          select c, 'paid', ${10 + i}, timestamptz '1986-01-01 12:00Z' + make_interval(days => ${i % 5})
          from unnest(${customers}::uuid[]) c
          returning id`;
        await tx`select pg_sleep(0.01)`;
        if (i % 3 === 0) {
          await tx`update public.orders set status = 'cancelled', cancelled_at = ordered_at + interval '1 hour' where id = ${id}`;
        } else if (i % 3 === 1) {
          await tx`update public.orders set total_amount = total_amount + 1 where id = ${id}`;
        }
      })));
      const { kept, recomputed } = await historyAndRecomputation(sql, customers);
      expect((recomputed as unknown[]).length).toBe(2);
      expect(kept).toEqual(recomputed);
    } finally {
      await sql`delete from public.orders where customer_id = any(${customers}::uuid[])`;
      await sql`delete from public.customers where id = any(${customers}::uuid[])`;
    }
  });

  it('gives the RFM figures computed from the orders alone, for an as_of inside a day and late cancellations', async () => {
    await rolledBack(sql, async (tx) => {
      const a = await createCustomer(tx, 'history');
      const b = await createCustomer(tx, 'history');
      const c = await createCustomer(tx, 'history');
      await tx`
        insert into public.orders (customer_id, status, total_amount, ordered_at, cancelled_at)
        values
          -- on the first day of the year, before and after its start (as_of 1988-06-15 13:30 minus 365 days)
          (${a}, 'paid', 20000, '1987-06-16 09:00Z', null), (${a}, 'paid', 3000, '1987-06-16 18:00Z', null),
          (${a}, 'paid', 700, '1988-01-10 10:00Z', null),
          -- on as_of's day, before and after it
          (${a}, 'paid', 800, '1988-06-15 08:00Z', null), (${b}, 'paid', 5000, '1988-06-15 20:00Z', null),
          -- cancelled after as_of: counted in this report
          (${b}, 'cancelled', 6000, '1988-06-12 10:00Z', '1988-06-16 10:00Z'),
          -- cancelled before as_of, and refunded: never counted
          (${c}, 'cancelled', 9000, '1988-06-13 10:00Z', '1988-06-13 11:00Z'), (${c}, 'refunded', 9000, '1988-06-14 10:00Z', null),
          (${c}, 'paid', 1200, '1988-06-01 10:00Z', null), (${c}, 'paid', 400, '1988-03-01 10:00Z', null)`;
      for (const days of [7, 30]) {
        const [figures] = await tx`select * from private.health_customer_figures('1988-06-15 13:30Z', ${days})`;
        const [reference] = await tx`
          with counted as (
            select o.* from public.orders o
            where o.customer_id = any(${[a, b, c]}::uuid[]) and o.status <> 'refunded'
              and not coalesce(o.cancelled_at < timestamptz '1988-06-15 13:30Z', false)
              and o.ordered_at < '1988-06-15 13:30Z'
          ),
          history as (
            select o.customer_id, extract(epoch from timestamptz '1988-06-15 13:30Z' - max(o.ordered_at)) / 86400 as recency,
                   count(*) as frequency, sum(o.total_amount) as spend
            from counted o
            where o.ordered_at >= timestamptz '1988-06-15 13:30Z' - interval '365 days'
              and o.customer_id in (select customer_id from counted
                                    where ordered_at >= timestamptz '1988-06-15 13:30Z' - make_interval(days => ${days}))
            group by o.customer_id
          )
          select count(*) as customers, avg(private.health_rfm_score(recency, frequency, spend)) as average_rfm,
                 count(*) filter (where frequency >= 2) as repeat_customers
          from history`;
        expect(figures.customers).toBe(reference.customers);
        expect(figures.repeat_customers).toBe(reference.repeat_customers);
        expect(Number(figures.average_rfm)).toBeCloseTo(Number(reference.average_rfm), 12);
      }
    });
  });
});
