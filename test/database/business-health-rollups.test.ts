/**
 * The order and customer figures of business health come from their changes kept by hour
 * (`private.health_figure_changes`, folded from the orders' change log), no longer from
 * the orders of the window at request time. These tests hold the new path to the computation it replaced,
 * kept here as SQL (`OLD_COMPUTATION`: the order figures as they were and RFM straight from the orders) and
 * the live report made to call it (`oldReport`): the same JSON, and the same figures to the last digit, for
 * every period at many `as_of` moments, on a generated store and after every kind of write. The store is
 * generated into a database of this file's own on the suite's server, so no other test's orders fall in its
 * windows.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../scripts/seed-demo.mjs';
import { applySchemaFiles } from '../../scripts/lib/schema-files.mjs';
import { ROOT } from '../../scripts/lib/stack.mjs';
import { scratchDatabase } from '../support/client.ts';
import { differences, keptAndRebuilt, keptAndRecomputedRevenue } from '../support/health-rollups.ts';
import { seededRandom } from '../support/random.ts';

/** The figures before the rollups, created in schema `old_health` of this file's database. */
const OLD_COMPUTATION = `
create schema old_health;

create or replace function old_health.health_order_figures(as_of timestamptz, days integer)
returns table (
  orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint,
  revenue numeric, previous_revenue numeric, week_orders bigint, week_completed bigint
)
language plpgsql
stable
set search_path = ''
set work_mem = '64MB'
set plan_cache_mode = 'force_custom_plan'
as $$
declare
  window_start timestamptz := as_of - make_interval(days => days);
  previous_start timestamptz := as_of - make_interval(days => 2 * days);
  week_start timestamptz := as_of - interval '7 days';
begin
  return query
  select
    count(*) filter (where o.in_window),
    count(*) filter (where o.in_window and o.completed_at < as_of),
    count(*) filter (where o.in_window and o.is_cancelled),
    count(*) filter (where o.in_window and o.promised_at < as_of and not o.is_cancelled),
    count(*) filter (where o.in_window and o.promised_at < as_of and not o.is_cancelled
                       and o.delivered_at <= o.promised_at),
    coalesce(sum(o.total_amount) filter (where o.in_window and o.status <> 'refunded' and not o.is_cancelled), 0),
    coalesce(sum(o.total_amount) filter (where not o.in_window and o.status <> 'refunded' and not o.is_cancelled), 0),
    count(*) filter (where o.in_week),
    count(*) filter (where o.in_week and o.completed_at < as_of)
  from (
    select o.ordered_at >= window_start as in_window, o.ordered_at >= week_start as in_week, coalesce(o.cancelled_at < as_of, false) as is_cancelled,
           o.completed_at, o.promised_at, o.delivered_at, o.status, o.total_amount
    from public.orders o
    where o.ordered_at >= previous_start and o.ordered_at < as_of
  ) o;
end
$$;


create or replace function old_health.health_customer_figures(as_of timestamptz, days integer)
returns table (
  customers bigint, average_rfm numeric, repeat_customers bigint, week_customers bigint, week_average_rfm numeric
)
language sql
stable
set search_path = ''
as $$
  with counted as (
    select o.customer_id, o.ordered_at, o.total_amount
    from public.orders o
    where o.status <> 'refunded' and not coalesce(o.cancelled_at < as_of, false)
      and o.ordered_at >= as_of - interval '365 days' and o.ordered_at < as_of
  ),
  scored as (
    select max(c.ordered_at) >= as_of - interval '7 days' as in_week,
           extract(epoch from as_of - max(c.ordered_at)) / 86400 as recency_days,
           count(*) as frequency, sum(c.total_amount) as spend
    from counted c
    group by c.customer_id
    having max(c.ordered_at) >= as_of - make_interval(days => days)
  )
  select count(*),
         private.health_average_rfm_score(array_agg(s.recency_days), array_agg(s.frequency), array_agg(s.spend)),
         count(*) filter (where s.frequency >= 2),
         case when days > 7 then count(*) filter (where s.in_week) else count(*) end,
         case when days > 7
              then private.health_average_rfm_score(array_agg(s.recency_days) filter (where s.in_week),
                                                    array_agg(s.frequency) filter (where s.in_week),
                                                    array_agg(s.spend) filter (where s.in_week))
              else private.health_average_rfm_score(array_agg(s.recency_days), array_agg(s.frequency), array_agg(s.spend)) end
  from scored s
$$;
`;

/** The figure functions the oracle swaps: `old_health.<name>` of `OLD_COMPUTATION` for the live `private.<name>`. */
const REPLACED = ['health_order_figures', 'health_customer_figures'];

/**
 * The live report as `old_health.health_report`, calling the old figure functions instead of the live ones:
 * only the figures are swapped, so a change to the report's own formulas changes both sides alike. A
 * replacement that finds nothing (a function renamed) fails here rather than compare the live report with
 * itself.
 */
async function oldReport(db: postgres.Sql): Promise<string> {
  const [{ definition }] = await db`select pg_get_functiondef('private.health_report'::regproc) as definition`;
  const replacements: [RegExp, string][] = [
    [/^(CREATE OR REPLACE FUNCTION )private\.health_report\(/, '$1old_health.health_report('],
    ...REPLACED.map((name): [RegExp, string] => [new RegExp(`\\bprivate\\.${name}\\(`, 'g'), `old_health.${name}(`]),
  ];
  return replacements.reduce((text: string, [pattern, replacement]) => {
    expect(text, `${pattern} in the definition of private.health_report`).toMatch(pattern);
    return text.replace(pattern, replacement);
  }, definition);
}

const scratch = scratchDatabase('health_rollups');
const url = scratch.url;
/** The demo store's "today": orders run over the year before it. */
const AS_OF = '2026-03-01';
let sql: postgres.Sql;

beforeAll(async () => {
  await scratch.create();
  sql = postgres(url, { max: 4, onnotice: () => {} });
  await sql.unsafe(await readFile(path.join(ROOT, 'supabase/bootstrap/platform.sql'), 'utf8'));
  await applySchemaFiles(url);
  await sql.unsafe(OLD_COMPUTATION);
  await sql.unsafe(await oldReport(sql));
  await seedDemo(url, { orders: 1500, seed: 7, customers: 150, tickets: 150, products: 20, asOf: AS_OF }, { quiet: true });
}, 120_000);

afterAll(async () => {
  await sql?.end();
});

/** Moments around the store's data: inside hours, on hour boundaries, a microsecond off them, before and after it. */
const MOMENTS = [
  `${AS_OF} 00:00Z`, `${AS_OF} 09:41:27.123456Z`, '2026-02-27 23:59:59.999999Z', '2026-02-22 00:00:00.000001Z',
  '2026-01-17 14:00Z', '2025-11-03 06:30Z', '2025-06-12 18:05:10Z', '2025-03-02 01:00Z', '2026-04-10 12:00Z',
  '2026-08-30 21:15Z', '2024-12-01 00:00Z',
];
const PERIODS = [['7d', 7], ['30d', 30], ['90d', 90]] as const;

/**
 * Every figure and report of the new path next to the old computation's, as text (numeric digits and all),
 * once every order change is folded (as a report folds before it reads).
 */
async function compare(db: postgres.Sql | postgres.TransactionSql, moments: string[]) {
  await db`select private.fold_order_changes(true)`;
  const rows = await db`
    select m.as_of::text as as_of, p.period, p.days,
           (select to_jsonb(f)::text from private.health_order_figures(m.as_of, p.days) f) as new_orders,
           (select to_jsonb(f)::text from old_health.health_order_figures(m.as_of, p.days) f) as old_orders,
           (select to_jsonb(f)::text from private.health_customer_figures(m.as_of, p.days) f) as new_customers,
           (select to_jsonb(f)::text from old_health.health_customer_figures(m.as_of, p.days) f) as old_customers,
           private.health_report(p.period, false, true, true, m.as_of)::text as new_report,
           old_health.health_report(p.period, false, true, true, m.as_of)::text as old_report
    from unnest(${moments}::text[]::timestamptz[]) m(as_of)
    cross join (values ('7d', 7), ('30d', 30), ('90d', 90)) p(period, days)`;
  expect(rows.length).toBe(moments.length * PERIODS.length);
  for (const row of rows) {
    const at = `${row.period} as of ${row.as_of}`;
    expect(row.new_orders, `order figures, ${at}`).toBe(row.old_orders);
    expect(row.new_customers, `customer figures, ${at}`).toBe(row.old_customers);
    expect(row.new_report, `report, ${at}`).toBe(row.old_report);
  }
  return rows;
}

describe('business health from the kept figure changes', () => {
  it('gives the old computation’s figures and report JSON for every period at moments before, inside and after the store', async () => {
    const rows = await compare(sql, MOMENTS);
    // The comparison saw a store, not empty windows.
    expect(rows.filter((r) => JSON.parse(r.new_orders).orders > 100).length).toBeGreaterThan(10);
    expect(rows.filter((r) => JSON.parse(r.new_customers).customers > 20).length).toBeGreaterThan(10);
  });

  it('a report asked in English has the same numbers and codes as the default, and its words are English', async () => {
    const rows = await sql`
      select m.as_of::text as as_of, p.period,
             private.health_report(p.period, false, true, true, m.as_of) as zh,
             private.health_report(p.period, false, true, true, m.as_of, 'en') as en
      from unnest(${MOMENTS}::text[]::timestamptz[]) m(as_of)
      cross join (values ('7d'), ('30d'), ('90d')) p(period)`;
    const cjk = /[\u3000-\u9fff\uff00-\uffef]/;
    const words = (report: any) => [report.scoreDetails.rating, report.trends.description,
      ...report.insights.flatMap((i: any) => [i.title, i.description, ...i.actions])];
    const codes = (report: any) => ({ ...report, scoreDetails: { ...report.scoreDetails, rating: undefined },
      trends: { ...report.trends, description: undefined },
      insights: report.insights.map((i: any) => ({ ...i, title: undefined, description: undefined, actions: i.actions.length })) });
    expect(rows.filter((r) => r.zh.insights.length > 0).length).toBeGreaterThan(10);
    const seen = new Set<string>();
    for (const row of rows) {
      const at = `${row.period} as of ${row.as_of}`;
      expect(codes(row.en), at).toEqual(codes(row.zh));
      for (const word of words(row.en)) expect(word, at).not.toMatch(cjk);
      for (const word of words(row.zh)) expect(word, at).toMatch(cjk);
      row.en.insights.forEach((i: any) => seen.add(i.title));
    }
    expect(seen.size).toBeGreaterThan(3);
    // Every rating band and trend description has its English word.
    const [{ untranslated }] = await sql`
      select array_agg(w) filter (where private.health_word(w, 'en') = w or private.health_word(w, 'zh-TW') <> w) as untranslated
      from (select private.health_rating(s) as w from unnest(array[0, 40, 60, 75, 90]::numeric[]) s
            union all select private.health_trend(c, c) ->> 'description' from unnest(array[-10, 0, 10]::numeric[]) c) x`;
    expect(untranslated).toBeNull();
  });

  it('scores the RFM band edges, the year’s first moment, late and instant cancellations and refunds as the old computation does', async () => {
    // Four customers in 2010, far from the store: each edge moves one score by a third among a few customers.
    const x = '2010-06-01 10:20:30.5Z';
    const [a, b, c, d] = (await sql`
      insert into public.customers (email, name)
      select 'edge-' || i || '@rollups.test', 'Edge ' || i from generate_series(1, 4) i returning id`).map((r) => r.id as string);
    await sql`
      insert into public.orders (customer_id, status, total_amount, ordered_at, cancelled_at)
      values
        -- recency: one order at x (999.99, below the first spend band), one outside the year
        (${a}, 'paid', 999.99, ${x}, null), (${a}, 'paid', 5, ${x}::timestamptz - interval '400 days', null),
        -- frequency and spend: ten orders of 2,000.00, the oldest 360 days before x
        ${sql.unsafe(Array.from({ length: 10 }, (_, i) => `('${b}', 'paid', 2000, timestamptz '${x}' - interval '${i === 9 ? 360 : i * 11} days', null)`).join(', '))},
        -- cancelled an hour after x: counts until then
        (${c}, 'cancelled', 6000, ${x}::timestamptz - interval '2 days', ${x}::timestamptz + interval '1 hour'),
        (${c}, 'paid', 4000, ${x}::timestamptz - interval '10 days', null),
        -- cancelled as it was placed (never counts), refunded (never counts), and a plain one
        (${d}, 'cancelled', 3000, ${x}::timestamptz - interval '1 day', ${x}::timestamptz - interval '1 day'),
        (${d}, 'refunded', 3000, ${x}::timestamptz - interval '3 days', null),
        (${d}, 'paid', 1000, ${x}::timestamptz - interval '20 days', null)`;
    const edges = ['0', '1 hour', '72 hours', '168 hours', '336 hours', '720 hours', '2160 hours', '5 days', '8760 hours'];
    const [{ moments }] = await sql`
      select array_agg((${x}::timestamptz + e.offset_ + s.shift)::text) as moments
      from unnest(${edges}::interval[]) e(offset_)
      cross join (values (interval '-1 microsecond'), (interval '0'), (interval '1 microsecond')) s(shift)`;
    await compare(sql, moments);
  });

  it('a report in busy current 10 minutes counts back from their end, as exact as from their start, with orders placed up to now and steps scheduled later in them', async () => {
    await sql.begin(async (tx) => {
      const customers = (await tx`select id from public.customers order by id limit 40`).map((r) => r.id as string);
      // 800 orders over the last 100 days, then 400 in these 10 minutes up to now; a third of those promised,
      // completed or cancelled later in them, and a few placed later in them.
      await tx`
        with h as (select private.now() as now, date_bin('10 minutes', private.now(), timestamptz '2000-01-01 00:00+00') as start)
        insert into public.orders (customer_id, status, total_amount, ordered_at, promised_at, delivered_at, completed_at, cancelled_at)
        select c, s, (120 + 991 * i % 7000)::numeric(12, 2), t,
               case when i % 3 = 0 then later else t + interval '2 days' end,
               case when s = 'completed' then t end,
               case when s = 'completed' then case when i % 2 = 0 then later else t + interval '1 minute' end end,
               case when s = 'cancelled' then case when i % 2 = 0 then later else t end end
        from h, generate_series(1, 1200) i
        cross join lateral (values ((${customers}::uuid[])[1 + i % 40])) u(c)
        cross join lateral (values ((array['paid', 'completed', 'cancelled', 'refunded', 'paid'])[1 + i % 5])) v(s)
        cross join lateral (values (
          case when i <= 800 then h.now - make_interval(days => i % 100, mins => 7 * i)
               when i % 50 = 0 then h.now + (h.start + interval '10 minutes' - h.now) * (i % 7 + 1) / 9
               else h.start + (h.now - h.start) * (i - 800) / 401 end,
          h.now + (h.start + interval '10 minutes' - h.now) * (i % 5 + 1) / 7)) w(t, later)`;
      const [{ moments, ahead }] = await tx`
        with h as (select private.now() as now, date_bin('10 minutes', private.now(), timestamptz '2000-01-01 00:00+00') as start)
        select array[h.now::text, (h.now + interval '1 microsecond')::text, (h.start + interval '1 microsecond')::text,
                     (h.start + (h.now - h.start) / 2)::text, (h.start + interval '10 minutes' - interval '1 microsecond')::text] as moments,
               private.health_boundary(h.now) = h.start + interval '10 minutes' or h.now = h.start as ahead
        from h`;
      expect(ahead, 'now counts from the end of its 10 minutes').toBe(true);
      const rows = await compare(tx, moments);
      expect(rows.filter((r) => JSON.parse(r.new_orders).orders > 300).length).toBeGreaterThan(5);
      throw new Error('rolled back');
    }).catch((error) => {
      if (error.message !== 'rolled back') throw error;
    });
  });

  it('the health rollups equal a full recompute after a burst of inserts, cancellations, refunds, edits and deletes, also in replica mode', async () => {
    const customers = (await sql`select id from public.customers order by id limit 12`).map((r) => r.id as string);
    const [{ id: newcomer }] = await sql`insert into public.customers (email, name) values ('newcomer@rollups.test', 'N') returning id`;
    // New orders spread over the store's year and after it, for old customers and a new one.
    await sql`
      insert into public.orders (customer_id, status, total_amount, ordered_at, promised_at, delivered_at, completed_at, cancelled_at)
      select c, s, a, t, t + interval '3 days', case when s = 'completed' then t + interval '2 days' end,
             case when s = 'completed' then t + interval '4 days' end, case when s = 'cancelled' then t + interval '30 minutes' end
      from unnest(${[...customers, ...customers, newcomer, newcomer]}::uuid[]) with ordinality u(c, i)
      cross join lateral (values ((array['paid', 'completed', 'cancelled', 'refunded'])[1 + i % 4],
                                  (150 + 997 * i)::numeric(12, 2),
                                  timestamptz '2026-02-27 13:17:00Z' - make_interval(days => ((i * 37) % 400)::int, mins => (i * 7)::int))) v(s, a, t)`;
    // The orders this test wrote, without lines: the seed's orders carry goods, whose status moves only as the
    // order_status_moves table allows (test/database/order-goods.test.ts), and which are never deleted.
    const ids = (await sql`select id from public.orders o where customer_id = any(${customers})
                           and not exists (select 1 from public.order_lines l where l.order_id = o.id)
                           order by ordered_at desc, id`).map((r) => r.id as string);
    expect(ids.length).toBeGreaterThan(16);
    // Cancelled long after, just after and before ordering; refunded; completed; amount, time and customer changed.
    await sql`update public.orders set status = 'cancelled', cancelled_at = ordered_at + interval '20 days' where id = ${ids[0]}`;
    await sql`update public.orders set status = 'cancelled', cancelled_at = ordered_at + interval '1 second' where id = ${ids[1]}`;
    await sql`update public.orders set cancelled_at = ordered_at - interval '1 hour' where id = ${ids[2]}`;
    await sql`update public.orders set status = 'refunded' where id = any(${ids.slice(3, 6)})`;
    await sql`update public.orders set status = 'completed', completed_at = ordered_at + interval '95 days' where id = ${ids[6]}`;
    await sql`update public.orders set total_amount = 19999.99 where id = ${ids[7]}`;
    await sql`update public.orders set ordered_at = ordered_at - interval '200 days 3 hours' where id = ${ids[8]}`;
    await sql`update public.orders set customer_id = ${newcomer} where id = ${ids[9]}`;
    await sql`update public.orders set promised_at = ordered_at + interval '1 day', delivered_at = ordered_at + interval '12 hours' where id = ${ids[10]}`;
    await sql`update public.orders set status = 'paid', cancelled_at = null where id = ${ids[0]}`;
    await sql`delete from public.orders where id = any(${ids.slice(11, 14)})`;
    // Many rows and customers in one statement (orders stored as amounts: one with lines totals them).
    await sql`update public.orders o set total_amount = total_amount + 1 where ordered_at >= '2026-01-20' and ordered_at < '2026-02-05'
              and not exists (select 1 from public.order_lines l where l.order_id = o.id)`;
    // Written as a logical replica writes: the triggers fire always.
    await sql.begin(async (tx) => {
      await tx`select set_config('session_replication_role', 'replica', true)`;
      await tx`insert into public.orders (customer_id, status, total_amount, ordered_at)
               values (${customers[0]}, 'paid', 4321, '2026-02-28 08:00Z'), (${newcomer}, 'paid', 800, '2026-02-10 10:00Z')`;
      await tx`update public.orders set status = 'cancelled', cancelled_at = '2026-02-28 09:00Z' where id = ${ids[15]}`;
      await tx`delete from public.orders where id = ${ids[16]}`;
    });

    const { kept, rebuilt } = await keptAndRebuilt(sql);
    expect(kept.length).toBeGreaterThan(1000);
    expect(differences(kept, rebuilt)).toEqual([]);
    await compare(sql, [...MOMENTS, '2026-02-28 08:30Z', '2026-02-28 09:00:00.000001Z']);
  });

  it('over random write histories (placements, moves between days, status moves, refunds, cancellations, deletes, backfills, customer moves, bulk edits), with folds of random sizes among them, every report equals the old computation, the daily revenue its orders and the kept figures a full recompute', async () => {
    for (const seed of [3, 11, 29]) {
      const { next, int, pick, chance } = seededRandom(seed);
      const customers = [
        ...(await sql`select id from public.customers order by id limit 4`).map((r) => r.id as string),
        ...(await sql`
          insert into public.customers (email, name)
          select 'history-' || ${seed} || '-' || i || '@rollups.test', 'H' || i from generate_series(1, 6) i
          returning id`).map((r) => r.id as string),
      ];
      const placed: string[] = [];
      // A moment of the last 60 days before the store's today, or (a backfill) of the year before that.
      const at = (backfill = false) =>
        `timestamptz '${AS_OF} 00:00Z' - make_interval(hours => ${backfill ? 1440 + int(7000) : int(1440)}, mins => ${int(60)})`;
      const writes: Record<string, (db: postgres.Sql | postgres.TransactionSql) => Promise<unknown>> = {
        place: async (db) => {
          const status = pick(['paid', 'pending', 'shipped', 'completed', 'cancelled', 'refunded']);
          const [{ id }] = await db.unsafe(`
            insert into public.orders (customer_id, status, total_amount, ordered_at, promised_at, delivered_at, completed_at, cancelled_at)
            select $1, $2::text, $3, t, t + interval '2 days',
                   case when $2 = 'completed' then t + make_interval(hours => $4) end,
                   case when $2 = 'completed' then t + interval '3 days' end,
                   case when $2 = 'cancelled' then t + make_interval(mins => $4) end
            from (select ${at(chance(0.15))} as t) x
            returning id`, [pick(customers), status, 1 + int(30000) / 100, int(72)]);
          placed.push(id);
        },
        'move between days': (db) => db`
          update public.orders set ordered_at = ordered_at - make_interval(hours => ${1 + int(200)})
          where id = ${pick(placed)}`,
        'status move': (db) => db`update public.orders set status = ${pick(['paid', 'shipped', 'delivered'])} where id = ${pick(placed)}`,
        refund: (db) => db`update public.orders set status = 'refunded', refunded_at = ordered_at + interval '1 day' where id = ${pick(placed)}`,
        cancel: (db) => db`
          update public.orders set status = 'cancelled', cancelled_at = ordered_at + make_interval(mins => ${int(3) * int(5000)})
          where id = ${pick(placed)}`,
        complete: (db) => db`
          update public.orders set status = 'completed', cancelled_at = null, delivered_at = ordered_at + make_interval(hours => ${int(96)}),
                                   completed_at = ordered_at + interval '4 days'
          where id = ${pick(placed)}`,
        delete: async (db) => {
          const id = placed.splice(int(placed.length), 1)[0];
          await db`delete from public.orders where id = ${id}`;
        },
        'customer move': (db) => db`update public.orders set customer_id = ${pick(customers)} where id = ${pick(placed)}`,
        'bulk edit': (db) => db`update public.orders o set total_amount = total_amount + 1 where customer_id = ${pick(customers)}
                                and not exists (select 1 from public.order_lines l where l.order_id = o.id)`,
      };
      const kinds = Object.keys(writes);
      for (let step = 0; step < 160; step++) {
        const kind = placed.length < 5 ? 'place' : pick(kinds);
        if (chance(0.2)) await sql.begin(async (tx) => { await writes[kind](tx); await writes.place(tx); });
        else await writes[kind](sql);
        if (chance(0.1)) await sql`select private.fold_order_changes(${chance(0.5)}, ${1 + int(40)})`;
      }
      // Attribution's days as read with the changes still unfolded, against their orders.
      const revenue = await keptAndRecomputedRevenue(sql, 'private.order_daily_revenue_now');
      expect(revenue.kept, `seed ${seed}`).toEqual(revenue.recomputed);
      const moments = Array.from({ length: 6 }, () =>
        new Date(Date.parse(`${AS_OF}T00:00:00Z`) - Math.floor(next() * 90 * 86_400_000)).toISOString());
      await compare(sql, moments);
    }
    // A kept figure or score gone wrong stays wrong, as the next history only adds to it: one full rebuild
    // after the three finds it (a rebuild is most of this test's time).
    const { kept, rebuilt } = await keptAndRebuilt(sql);
    expect(differences(kept, rebuilt)).toEqual([]);
  }, 60_000);

  it('concurrent order writers do not wait on each other: two open transactions writing the same hour both proceed, and once folded the kept figures equal a recompute', async () => {
    const [first, second] = [postgres(url, { max: 1, onnotice: () => {} }), postgres(url, { max: 1, onnotice: () => {} })];
    try {
      const [a, b] = (await sql`
        insert into public.customers (email, name) values ('writer-a@rollups.test', 'A'), ('writer-b@rollups.test', 'B')
        returning id`).map((r) => r.id as string);
      // Paid orders of the same hour and day: what is kept of them is folded later, by one folder.
      let inserted!: () => void;
      let release!: () => void;
      const firstInserted = new Promise<void>((resolve) => (inserted = resolve));
      const held = new Promise<void>((resolve) => (release = resolve));
      const open = first.begin(async (tx) => {
        await tx`insert into public.orders (customer_id, status, total_amount, ordered_at, promised_at)
                 values (${a}, 'paid', 1200, '2026-02-28 10:15Z', '2026-03-02 10:15Z')`;
        inserted();
        await held;
      });
      await firstInserted;
      // With the first transaction still open, the second writes the same hours' changes without waiting.
      try {
        await second.begin(async (tx) => {
          await tx`set local lock_timeout = '2s'`;
          await tx`insert into public.orders (customer_id, status, total_amount, ordered_at, promised_at)
                   values (${b}, 'paid', 800, '2026-02-28 10:45Z', '2026-03-02 10:45Z')`;
        });
      } finally {
        release();
        await open;
      }
      const { kept, rebuilt } = await keptAndRebuilt(sql);
      expect(differences(kept, rebuilt)).toEqual([]);
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
  });

  it('writers of one customer do not wait at their writes and both commit, under READ COMMITTED and REPEATABLE READ alike, and the fold scores the customer exactly from the orders as they are', async () => {
    const [first, second] = [postgres(url, { max: 1, onnotice: () => {} }), postgres(url, { max: 1, onnotice: () => {} })];
    try {
      const [{ id: customer }] = await sql`insert into public.customers (email, name) values ('same@rollups.test', 'S') returning id`;
      for (const isolation of ['read committed', 'repeatable read']) {
        let inserted!: () => void;
        let proceed!: () => void;
        const secondInserted = new Promise<void>((resolve) => (inserted = resolve));
        const firstCommitted = new Promise<void>((resolve) => (proceed = resolve));
        const later = second.begin(`isolation level ${isolation}`, async (tx) => {
          await tx`select 1`; // the snapshot is taken before the first writer commits
          await tx`insert into public.orders (customer_id, status, total_amount, ordered_at)
                   values (${customer}, 'paid', 7000, '2026-02-24 08:00Z')`;
          inserted();
          await firstCommitted;
        }).then(() => null, (error) => error);
        await secondInserted;
        // The second writer's transaction is open with an order of the same customer: this one neither waits
        // for it nor sees its order; neither writes anything of the customer's score.
        await first.begin(async (tx) => {
          await tx`set local lock_timeout = '2s'`;
          await tx`insert into public.orders (customer_id, status, total_amount, ordered_at)
                   values (${customer}, 'paid', 3000, '2026-02-20 08:00Z')`;
        });
        proceed();
        expect(await later).toBeNull();
      }
      // A score gone wrong under either isolation stays wrong: one rebuild after both finds it.
      const { kept, rebuilt } = await keptAndRebuilt(sql);
      expect(differences(kept, rebuilt)).toEqual([]);
      await compare(sql, ['2026-02-25 09:30Z', '2026-02-28 00:00Z']);
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
  });

  it('the triggers on orders are written out in the schema, and those that log the changes fire always, also with session_replication_role = replica (the goods, whose own tables replicate, only at the origin)', async () => {
    const triggers = await sql`
      select tgname, tgenabled from pg_trigger
      where tgrelid = 'public.orders'::regclass and not tgisinternal order by tgname`;
    expect(triggers.map((t) => [t.tgname, t.tgenabled])).toEqual([
      ['orders_guard_figures', 'O'], ['orders_log_delete', 'A'], ['orders_log_insert', 'A'], ['orders_log_truncate', 'A'],
      ['orders_log_update', 'A'], ['orders_move_goods', 'O'], ['orders_touch_updated_at', 'O'],
    ]);
    const files = ['30_orders/40_order_change_log.sql', '30_orders/10_customers_orders.sql', '30_orders/20_order_goods.sql'];
    const schema = (await Promise.all(files
      .map((file) => readFile(path.join(ROOT, 'supabase/schemas', file), 'utf8')))).join('\n');
    for (const { tgname } of triggers) expect(schema).toMatch(new RegExp(`create trigger ${tgname}\\s+(after|before) \\w+( of [\\w, ]+)? on public\\.orders`));
  });
});
