/**
 * A report folds the orders' change log before it reads (private.fold_order_changes(true)), one folder at a
 * time. A report that finds another folding waits for it within the statement's bound, never within the
 * lock bound the API gives each request (a quarter of it): that bound is for a write that waits on a row,
 * and a report refused LOCK_TIMEOUT (409) only because another report was folding told its reader to retry
 * what was never refused. Found by the stalled-database test on a loaded machine: one of four reports sent
 * together got 409. On a store of its own, so the suite's periodic folds never take the lock.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedStore, scratchDatabase } from '../support/client.ts';

const store = scratchDatabase('report_fold_wait');
let sql: postgres.Sql;

beforeAll(async () => {
  sql = await migratedStore(store, 3);
});

afterAll(() => sql?.end());

describe('a report waiting for another folder', () => {
  it('waits for the fold past its lock_timeout, within its statement_timeout, and folds what is left', async () => {
    const [{ id: customer }] = await sql`
      insert into public.customers (email, name) values ('fold-wait@report.test', 'Fold wait') returning id`;
    await sql`insert into public.orders (customer_id, status, total_amount) values (${customer}, 'paid', 120)`;
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Another folder, holding the lock as a long fold would.
    const folder = sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext('private.fold_order_changes'))`;
      holding();
      await released;
    });
    await held;
    const report = sql.begin(async (tx) => {
      await tx`set local lock_timeout = '100ms'`;
      await tx`set local statement_timeout = '20s'`;
      const [{ folded }] = await tx`select private.fold_order_changes(true) as folded`;
      const [{ lock_timeout }] = await tx`select current_setting('lock_timeout') as lock_timeout`;
      return { folded: Number(folded) > 0, lock_timeout };
    }).catch((error: Error) => error.message);
    // Five times the lock bound: a report bound by it would have been refused by now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    release();
    await folder;
    // The report's own lock bound is given back for the rest of its transaction.
    expect(await report).toEqual({ folded: true, lock_timeout: '100ms' });
    expect(await sql`select 1 from private.order_changes`).toHaveLength(0);
  });
});
