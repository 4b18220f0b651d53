/**
 * Writing orders is the store's checkout, its payment webhooks and its order-status jobs. An order write
 * appends its change to the orders' change log and nothing more; the fold turns the log into what business
 * health and attribution keep (the daily revenue, the figure changes, the customers' scores). No order
 * writer may wait for another writer or for the fold, no mix of order writes may end in a deadlock, and
 * what is kept must equal a recompute from the orders once folded, however the folds fall among the
 * writes. On a database of this file's own, as the recompute truncates the kept rows.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySchemaFiles } from '../../scripts/lib/schema-files.mjs';
import { ROOT } from '../../scripts/lib/stack.mjs';
import { scratchDatabase } from '../support/client.ts';
import { differences, keptAndRebuilt, keptAndRecomputedRevenue } from '../support/health-rollups.ts';
import { seededRandom } from '../support/random.ts';

const scratch = scratchDatabase('order_writes');
let sql: postgres.Sql;

beforeAll(async () => {
  await scratch.create();
  sql = postgres(scratch.url, { max: 20, onnotice: () => {} });
  await sql.unsafe(await readFile(path.join(ROOT, 'supabase/bootstrap/platform.sql'), 'utf8'));
  await applySchemaFiles(scratch.url);
}, 120_000);

afterAll(async () => {
  await sql?.end();
});

const DAY = '2026-03-10';
type Tx = postgres.Sql | postgres.ReservedSql | postgres.TransactionSql;

async function newCustomers(count: number, tag: string): Promise<string[]> {
  return (await sql`
    insert into public.customers (email, name)
    select ${tag} || '-' || i || '-' || gen_random_uuid() || '@orders.test', 'C' || i from generate_series(1, ${count}) i
    returning id`).map((r) => r.id as string);
}

/** `count` paid orders of `customer` on DAY, at hours from 08:00. */
async function paidOrders(customer: string, count: number): Promise<string[]> {
  return (await sql`
    insert into public.orders (customer_id, status, total_amount, ordered_at, promised_at)
    select ${customer}, 'paid', 100 + i, ${`${DAY} 08:00Z`}::timestamptz + make_interval(mins => i),
           ${`${DAY} 08:00Z`}::timestamptz + interval '2 days'
    from generate_series(1, ${count}) i
    returning id`).map((r) => r.id as string);
}

/**
 * Every kind of order write, on `customer`'s order `order` (or a new one for an insert); `other` is where a
 * move takes it.
 */
const WRITES: Record<string, (tx: Tx, customer: string, order: string, other: string) => Promise<unknown>> = {
  insert: (tx, customer) =>
    tx`insert into public.orders (customer_id, status, total_amount, ordered_at)
       values (${customer}, 'paid', 250, ${`${DAY} 12:30Z`})`,
  'status move': (tx, _, order) =>
    tx`update public.orders set status = 'completed', completed_at = ordered_at + interval '1 day' where id = ${order}`,
  cancel: (tx, _, order) =>
    tx`update public.orders set status = 'cancelled', cancelled_at = ordered_at + interval '2 hours' where id = ${order}`,
  refund: (tx, _, order) => tx`update public.orders set status = 'refunded' where id = ${order}`,
  delete: (tx, _, order) => tx`delete from public.orders where id = ${order}`,
  'move to another customer': (tx, _, order, other) => tx`update public.orders set customer_id = ${other} where id = ${order}`,
};

async function expectKeptEqualsRecompute() {
  const { kept, rebuilt } = await keptAndRebuilt(sql);
  expect(differences(kept, rebuilt)).toEqual([]);
  const revenue = await keptAndRecomputedRevenue(sql, 'private.order_daily_revenue');
  const [{ unfolded }] = await sql`select count(*)::int as unfolded from private.order_changes`;
  expect(revenue.kept).toEqual(revenue.recomputed);
  expect(unfolded).toBe(0);
}

/** What the analytics keep, as text: to show that a write changed none of it. */
async function keptState() {
  const [row] = await sql`
    select (select coalesce(string_agg(r::text, ',' order by r.order_date), '') from private.order_daily_revenue r)
           || (select coalesce(string_agg(f::text, ',' order by f.days, f.hour), '') from private.health_figure_changes f)
           || (select coalesce(string_agg(f::text, ',' order by f.days, f.ten_minutes), '')
               from private.health_figure_changes_by_10_minutes f)
           || (select coalesce(string_agg(c::text, ',' order by c.customer_id), '') from private.customer_scores c) as kept`;
  return row.kept as string;
}

describe('an order write appends its change and nothing more', () => {
  it('the change log holds order versions: its columns after the key and the sign are private.order_version’s, in order, as its triggers append them by position', async () => {
    const columns = async (query: Promise<{ name: string; type: string }[]>) =>
      (await query).map((c) => `${c.name} ${c.type}`);
    const log = await columns(sql`
      select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute
      where attrelid = 'private.order_changes'::regclass and attnum > 0 and not attisdropped order by attnum`);
    const version = await columns(sql`
      select a.name, format_type(a.type, null) as type
      from pg_proc p, unnest(p.proargnames[2:], p.proallargtypes[2:]) with ordinality a(name, type, n)
      where p.oid = 'private.order_version(public.orders)'::regprocedure order by a.n`);
    expect(log.slice(0, 2)).toEqual(['change_id bigint', 'sign smallint']);
    expect(log.slice(2, -1).map((c) => c.replace('numeric(12,2)', 'numeric'))).toEqual(version);
    expect(log.at(-1)).toBe('transaction_id xid8');
  });

  it('each kind of write appends its order’s versions to the log and changes nothing kept; a write of columns the analytics do not read appends nothing', async () => {
    const [customer, other] = await newCustomers(2, 'append');
    await paidOrders(customer, 1);
    await sql`select private.fold_order_changes(true)`;
    const before = await keptState();
    const logged = async (write: () => Promise<unknown>) => {
      const [{ last }] = await sql`select coalesce(max(change_id), 0)::bigint as last from private.order_changes`;
      await write();
      return (await sql`
        select sign, status from private.order_changes where change_id > ${last} order by change_id`)
        .map((r) => `${r.sign > 0 ? '+' : '-'}${r.status}`);
    };
    const order = (await sql`select id from public.orders where customer_id = ${customer}`)[0].id as string;
    expect(await logged(() => WRITES.insert(sql, customer, order, other))).toEqual(['+paid']);
    expect(await logged(() => WRITES.refund(sql, customer, order, other))).toEqual(['-paid', '+refunded']);
    expect(await logged(() => sql`update public.orders set paid_at = ordered_at + interval '1 minute' where id = ${order}`))
      .toEqual([]);
    expect(await logged(() => WRITES['move to another customer'](sql, customer, order, other))).toEqual(['-refunded', '+refunded']);
    expect(await logged(() => WRITES.delete(sql, customer, order, other))).toEqual(['-refunded']);
    expect(await keptState()).toBe(before);
    await expectKeptEqualsRecompute();
  });

  it('a customer deleted with their orders before the fold is taken out of what is kept', async () => {
    const [customer] = await newCustomers(1, 'leaving');
    await paidOrders(customer, 3);
    await sql`select private.fold_order_changes(true)`;
    await sql`delete from public.orders where customer_id = ${customer}`;
    await sql`delete from public.customers where id = ${customer}`;
    await expectKeptEqualsRecompute();
  });

  it('every kind of write proceeds at once while a fold holds its lock and every kept row', async () => {
    const [customer, other] = await newCustomers(2, 'folding');
    const orders = await paidOrders(customer, 6);
    const folder = await sql.reserve();
    try {
      await folder`begin`;
      await folder`select pg_advisory_xact_lock(hashtext('private.fold_order_changes'))`;
      await folder`lock table private.order_daily_revenue, private.health_figure_changes,
                   private.health_figure_changes_by_10_minutes, private.customer_scores in access exclusive mode`;
      for (const [i, [kind, write]] of Object.entries(WRITES).entries()) {
        await sql.begin(async (tx) => {
          await tx`set local lock_timeout = '1s'`;
          await write(tx, customer, orders[i], other);
        }).catch((error) => {
          throw new Error(`${kind} waited for the fold: ${error.message}`);
        });
      }
      // A periodic fold meanwhile goes on without waiting, and folds nothing.
      const [{ folded }] = await sql`select private.fold_order_changes() as folded`;
      expect(Number(folded)).toBe(0);
    } finally {
      await folder`rollback`;
      folder.release();
    }
    await expectKeptEqualsRecompute();
  });

  it('an order a fold’s rescoring saw before its change was folded, and moved away again, is taken out of the customer’s scores', async () => {
    // A rescoring walks the orders as they are, so it may see an order whose change the fold has not
    // taken yet. That change and the move away, folded later in one batch, add up to nothing for the
    // customer: they must be rescored all the same.
    const [customer, other] = await newCustomers(2, 'seen-early');
    await paidOrders(customer, 1);
    await sql`select private.fold_order_changes(true)`;
    await sql`insert into public.orders (customer_id, status, total_amount, ordered_at)
              values (${customer}, 'paid', 300, ${`${DAY} 09:30Z`})`;
    // Two rows the fold's first batch will lock, held so that the order placed earlier commits before its
    // rescoring walks, and the move after.
    const [scores, figures, folder] = [await sql.reserve(), await sql.reserve(), await sql.reserve()];
    let folding: Promise<unknown> = Promise.resolve();
    try {
      await scores`begin`;
      await scores`select 1 from private.customer_scores where customer_id = ${customer} for update`;
      const [{ pid }] = await folder`select pg_backend_pid() as pid`;
      folding = folder`select private.fold_order_changes(true)`.execute();
      await waitUntilBlocked(pid, scores);
      await sql`insert into public.orders (customer_id, status, total_amount, ordered_at)
                values (${customer}, 'paid', 700, ${`${DAY} 09:00Z`})`;
      // The hour the customer's first order leaves the 90 days, which the rescoring moves.
      await figures`begin`;
      const held = await figures`
        select 1 from private.health_figure_changes where days = 90 and hour = ${`${DAY} 08:00Z`}::timestamptz + interval '90 days'
        for update`;
      expect(held.length).toBe(1);
      await scores`commit`;
      await waitUntilBlocked(pid, figures);
      await sql`update public.orders set customer_id = ${other} where customer_id = ${customer} and total_amount = 700`;
    } finally {
      await scores`rollback`.catch(() => {});
      await figures`commit`.catch(() => {});
      await folding;
      for (const held of [scores, figures, folder]) held.release();
    }
    await expectKeptEqualsRecompute();
  });
});

/** Until the session `pid` waits for a lock `holder`'s session holds. */
async function waitUntilBlocked(pid: number, holder: postgres.ReservedSql) {
  const [{ pid: holderPid }] = await holder`select pg_backend_pid() as pid`;
  for (let tries = 0; ; tries++) {
    const [{ blocked }] = await sql`select ${holderPid}::int = any(pg_blocking_pids(${pid})) as blocked`;
    if (blocked) return;
    if (tries > 500) throw new Error(`session ${pid} never came to wait for session ${holderPid}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('order writers of different customers never wait on each other', () => {
  it('with an open transaction holding a paid order of the day, every kind of write of other customers’ orders that day proceeds at once', async () => {
    const [holder, ...others] = await newCustomers(3, 'wait');
    const orders = await paidOrders(others[0], 6);
    const open = await sql.reserve();
    try {
      await open`begin`;
      await open`insert into public.orders (customer_id, status, total_amount, ordered_at) values (${holder}, 'paid', 99, ${`${DAY} 09:00Z`})`;
      for (const [i, [kind, write]] of Object.entries(WRITES).entries()) {
        await sql.begin(async (tx) => {
          await tx`set local lock_timeout = '1s'`;
          await write(tx, others[0], orders[i], others[1]);
        }).catch((error) => {
          throw new Error(`${kind} waited for the open transaction: ${error.message}`);
        });
      }
    } finally {
      await open`commit`;
      open.release();
    }
    await expectKeptEqualsRecompute();
  });
});

describe('a customer’s history does not make their checkout cost more', () => {
  it('customers with 300 orders are rescored exactly after a checkout, cancel, refund, move, backfill and delete, with large and with tiny amounts', async () => {
    const [large, tiny, other] = await newCustomers(3, 'history');
    // A year of daily orders: the large ones reach the top spend band within their newest 128, the tiny
    // ones never do, so the rescoring must read all of those.
    for (const [customer, amount] of [[large, 300], [tiny, 1]] as const) {
      await sql`
        insert into public.orders (customer_id, status, total_amount, ordered_at)
        select ${customer}, 'paid', ${amount}, ${`${DAY} 10:00Z`}::timestamptz - make_interval(days => i)
        from generate_series(1, 300) i`;
    }
    const newest = async (customer: string) =>
      (await sql`select id from public.orders where customer_id = ${customer} order by ordered_at desc limit 1`)[0].id as string;
    for (const customer of [large, tiny]) {
      await sql`insert into public.orders (customer_id, status, total_amount, ordered_at) values (${customer}, 'paid', 80, ${`${DAY} 11:00Z`})`;
      await expectKeptEqualsRecompute();
      await sql`update public.orders set status = 'cancelled', cancelled_at = ordered_at + interval '3 days' where id = ${await newest(customer)}`;
      await sql`update public.orders set status = 'refunded' where id = ${await newest(customer)}`;
      await sql`update public.orders set customer_id = ${other} where id = ${await newest(customer)}`;
      // Backfilled far back, and one from the middle deleted: changes before the newest orders.
      await sql`insert into public.orders (customer_id, status, total_amount, ordered_at)
                values (${customer}, 'paid', 5000, ${`${DAY} 10:00Z`}::timestamptz - interval '200 days 5 hours')`;
      await sql`delete from public.orders where id = (select id from public.orders where customer_id = ${customer} order by ordered_at limit 1 offset 150)`;
      await expectKeptEqualsRecompute();
    }
  }, 60_000);
});

describe('no deadlock from any mix of order writes', () => {
  it('two transactions writing the same two customers in opposite orders, for every pair of write kinds, both commit', async () => {
    const kinds = Object.keys(WRITES);
    const failures: string[] = [];
    for (const first of kinds) {
      for (const second of kinds) {
        const [x, y] = await newCustomers(2, 'cross');
        const [xOrders, yOrders] = [await paidOrders(x, 2), await paidOrders(y, 2)];
        const [a, b] = [await sql.reserve(), await sql.reserve()];
        try {
          await Promise.all([a`begin`, b`begin`]);
          // A wait that is not a deadlock (a row both need) fails fast too instead of hanging the test.
          await Promise.all([a`set local lock_timeout = '5s'`, b`set local lock_timeout = '5s'`]);
          await WRITES[first](a, x, xOrders[0], y);
          await WRITES[second](b, y, yOrders[0], x);
          // Each now writes the customer the other has written; with per-statement locks on the customers'
          // rows this is the classic cycle.
          const settled = await Promise.allSettled([
            WRITES[first](a, y, yOrders[1], x).then(() => a`commit`),
            WRITES[second](b, x, xOrders[1], y).then(() => b`commit`),
          ]);
          for (const result of settled) {
            if (result.status === 'rejected') failures.push(`${first} / ${second}: ${result.reason.code} ${result.reason.message}`);
          }
        } finally {
          await Promise.all([a`rollback`.catch(() => {}), b`rollback`.catch(() => {})]);
          a.release();
          b.release();
        }
      }
    }
    expect(failures).toEqual([]);
    await expectKeptEqualsRecompute();
  }, 120_000);

  it('a seeded burst of 16 writers mixing single- and multi-statement transactions over shared customers and days, with folds of random sizes among them: 0 deadlocks, 0 errors, and the kept figures equal a recompute', async () => {
    const { next: random } = seededRandom(19);
    const customers = await newCustomers(24, 'burst');
    const kinds = Object.keys(WRITES);
    const errors: string[] = [];
    let writes = 0;
    // Each writer writes only orders it placed itself (two writers updating the same order rows in
    // opposite orders deadlock on those rows, whatever is kept of them), for customers all writers share.
    const writer = async (w: number) => {
      const mine: { id: string; customer: string }[] = [];
      const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
      for (let t = 0; t < 100; t++) {
        const statements = random() < 0.3 ? 2 + Math.floor(random() * 2) : 1;
        try {
          await sql.begin(async (tx) => {
            for (let s = 0; s < statements; s++) {
              const kind = mine.length < 3 ? 'insert' : pick(kinds);
              const customer = pick(customers);
              if (kind === 'insert') {
                const day = Math.floor(random() * 5);
                const [{ id }] = await tx`
                  insert into public.orders (customer_id, status, total_amount, ordered_at, promised_at)
                  values (${customer}, ${pick(['paid', 'pending', 'shipped'])}, ${10 + Math.floor(random() * 3000)},
                          ${`${DAY} 00:00Z`}::timestamptz + make_interval(days => ${day}, mins => ${w * 60 + t}),
                          ${`${DAY} 00:00Z`}::timestamptz + make_interval(days => ${day + 3}))
                  returning id`;
                mine.push({ id, customer });
              } else {
                const index = Math.floor(random() * mine.length);
                const order = mine[index];
                const other = pick(customers);
                await WRITES[kind](tx, order.customer, order.id, other);
                if (kind === 'delete') mine.splice(index, 1);
                if (kind === 'move to another customer') order.customer = other;
              }
              writes++;
            }
          });
        } catch (error) {
          errors.push(`${(error as postgres.PostgresError).code ?? ''} ${(error as Error).message}`);
        }
      }
    };
    // Folds run among the writes, as the periodic fold and the reports run them: one at a time, the others
    // returning at once.
    let writing = true;
    let foldedAmongWrites = 0;
    const folder = async () => {
      while (writing) {
        const [{ folded }] = await sql`select private.fold_order_changes(${random() < 0.5}, ${1 + Math.floor(random() * 200)}) as folded`;
        foldedAmongWrites += Number(folded);
      }
    };
    const folders = Promise.all([folder(), folder()]);
    await Promise.all(Array.from({ length: 16 }, (_, w) => writer(w)));
    writing = false;
    await folders;
    expect(errors).toEqual([]);
    expect(writes).toBeGreaterThan(2000);
    expect(foldedAmongWrites).toBeGreaterThan(500);
    await expectKeptEqualsRecompute();
  }, 120_000);
});
