/**
 * Each store day's revenue that attribution reads instead of the day's orders is derived data: the days
 * the fold keeps (`private.order_daily_revenue`) plus the order changes not yet folded
 * (`private.order_daily_revenue_now`). What attribution reads must equal a recomputation from the orders
 * after any write, concurrent writes of one day included, and so must the kept days once folded; only
 * callers who see every order may read either. Orders are dated in the 1970s, outside every window other
 * tests read.
 */
import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { asRole, createCustomer, database, DEMO_ADMIN_ID, DEMO_CUSTOMER_ID, rolledBack } from '../support/client.ts';
import { keptAndRecomputedRevenue } from '../support/health-rollups.ts';

const sql = database(12);

/**
 * The 1970s' days as attribution reads them (kept plus not yet folded), and the same recomputed from the
 * orders; with `fold`, the kept days alone after folding every change.
 */
async function keptAndRecomputed(db: postgres.Sql | postgres.TransactionSql, { fold = false } = {}) {
  if (fold) await db`select private.fold_order_changes(true)`;
  return keptAndRecomputedRevenue(db, fold ? 'private.order_daily_revenue' : 'private.order_daily_revenue_now', '1980-01-01');
}

describe('daily revenue (the change log and the fold)', () => {
  it('equals a recomputation from orders after inserts, updates of status, amount and date, and deletes', async () => {
    await rolledBack(sql, async (tx) => {
      const customer = await createCustomer(tx, 'revenue');
      let writes = 0;
      const expectConsistent = async () => {
        const { kept, recomputed } = await keptAndRecomputed(tx);
        expect(kept).toEqual(recomputed);
        // Every other write folded, so the reads see kept days with and without changes still to fold.
        if (++writes % 2 === 0) expect(await keptAndRecomputed(tx, { fold: true })).toEqual({ kept, recomputed });
      };
      const ids = await tx`
        insert into public.orders (customer_id, status, total_amount, ordered_at, cancelled_at)
        values (${customer}, 'paid', 100, '1975-03-01 10:00+08', null), (${customer}, 'delivered', 250.5, '1975-03-01 23:59+08', null),
               (${customer}, 'pending', 40, '1975-03-02 08:00+08', null), (${customer}, 'refunded', 999, '1975-03-02 12:00+08', null),
               (${customer}, 'cancelled', 70, '1975-03-02 12:00+08', '1975-03-02 13:00+08')
        returning id`.then((rows) => rows.map((r) => r.id as string));
      const { kept } = await keptAndRecomputed(tx);
      // Revenue from placing until cancelled or refunded: the pending order counts, the refunded and the
      // cancelled one do not (the store's one revenue rule, as the health figures count it).
      expect(kept).toEqual({ '1975-03-01': 350.5, '1975-03-02': 40 });

      await tx`update public.orders set status = 'paid' where id = ${ids[2]}`;
      await expectConsistent();
      await tx`update public.orders set total_amount = 12.34 where id = ${ids[1]}`;
      await expectConsistent();
      await tx`update public.orders set ordered_at = '1975-02-28 23:59+08' where id = ${ids[0]}`;
      await expectConsistent();
      await tx`update public.orders set status = 'refunded' where customer_id = ${customer}`;
      await expectConsistent();
      await tx`update public.orders set status = 'shipped' where customer_id = ${customer}`;
      await expectConsistent();
      await tx`delete from public.orders where id = ${ids[3]}`;
      await expectConsistent();
      await tx`delete from public.orders where customer_id = ${customer}`;
      await expectConsistent();
    });
  });

  it('is kept for orders written with session_replication_role = replica, as a logical replica writes them', async () => {
    await rolledBack(sql, async (tx) => {
      const customer = await createCustomer(tx, 'revenue');
      await tx`select set_config('session_replication_role', 'replica', true)`;
      await tx`insert into public.orders (customer_id, status, total_amount, ordered_at)
               values (${customer}, 'paid', 70, '1977-05-01 10:00+08'), (${customer}, 'shipped', 30.25, '1977-05-01 11:00+08')`;
      await tx`select set_config('session_replication_role', 'origin', true)`;
      const { kept, recomputed } = await keptAndRecomputed(tx, { fold: true });
      expect(kept['1977-05-01']).toBe(100.25);
      expect(kept).toEqual(recomputed);
    });
  });

  it('two dozen concurrent order writes on the same days add up exactly', async () => {
    const customer = await createCustomer(sql, 'revenue');
    try {
      await Promise.all(Array.from({ length: 24 }, (_, i) => sql.begin(async (tx) => {
        const [{ id }] = await tx`
          insert into public.orders (customer_id, status, total_amount, ordered_at)
          values (${customer}, 'paid', ${10 + i}, timestamptz '1976-01-01 12:00+08' + make_interval(days => ${i % 3}))
          returning id`;
        await tx`select pg_sleep(0.01)`;
        if (i % 3 === 0) await tx`update public.orders set status = 'refunded' where id = ${id}`;
        else if (i % 3 === 1) await tx`update public.orders set total_amount = total_amount + 1 where id = ${id}`;
      })));
      const { kept, recomputed } = await keptAndRecomputed(sql);
      expect(Object.keys(recomputed).filter((day) => day.startsWith('1976-'))).toHaveLength(2);
      expect(kept).toEqual(recomputed);
      expect(await keptAndRecomputed(sql, { fold: true })).toEqual({ kept, recomputed });
    } finally {
      await sql`delete from public.orders where customer_id = ${customer}`;
      await sql`delete from public.customers where id = ${customer}`;
    }
  });

  it('a customer cannot read the store’s daily revenue nor the order changes; an administrator can', async () => {
    for (const relation of ['private.order_daily_revenue', 'private.order_daily_revenue_now', 'private.order_changes']) {
      const rowsSeenBy = async (sub: string) => {
        let rows = -1;
        await rolledBack(sql, async (tx) => {
          // A change not yet folded, so the log has a row to hide.
          const customer = await createCustomer(tx, 'revenue');
          await tx`insert into public.orders (customer_id, status, total_amount, ordered_at)
                   values (${customer}, 'paid', 5, '1978-01-01 12:00+08')`;
          await tx`select set_config('role', 'authenticated', true),
                          set_config('request.jwt.claims', ${JSON.stringify({ role: 'authenticated', sub })}, true)`;
          [{ rows }] = await tx`select count(*)::integer as rows from ${tx(relation)}`;
        });
        return rows;
      };
      expect(await rowsSeenBy(DEMO_CUSTOMER_ID), relation).toBe(0);
      expect(await rowsSeenBy(DEMO_ADMIN_ID), relation).toBeGreaterThan(0);
      const anonymous = await asRole(sql, { role: 'anon' }, (tx) => tx`select 1 from ${tx(relation)}`);
      expect(anonymous.error?.code, relation).toBe('42501');
    }
  });
});
