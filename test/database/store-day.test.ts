/**
 * Every day the database computes is a day in the store's time zone (private.store_time_zone, Asia/Taipei
 * by default): an order's day, a day's revenue, the days a campaign counts on, "today". The cases sit on
 * the boundaries: 15:59:59Z and 16:00:00Z are two Taipei days; in America/New_York a day lasts 23 or 25
 * hours. Changing the zone is one operation (private.change_store_time_zone) that leaves every kept day as
 * a database created in the new zone would have it. Zone changes run on databases of their own.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, admin, freshDay, storeToday } from '../support/campaigns.ts';
import { createCustomer, database, DEMO_ADMIN_ID, rolledBack, scratchDatabase } from '../support/client.ts';

const sql = database(4);

describe("the store's day in Asia/Taipei", () => {
  it('an order at 00:30 in Taipei (16:30Z the day before) belongs to the Taipei day', async () => {
    await rolledBack(sql, async (tx) => {
      const customer = await createCustomer(tx, 'storeday');
      const rows = await tx`
        insert into public.orders (customer_id, status, total_amount, ordered_at)
        values (${customer}, 'paid', 1, '1976-11-20 15:59:59Z'), (${customer}, 'paid', 1, '1976-11-20 16:00:00Z'),
               (${customer}, 'paid', 1, '1976-11-20 16:30:00Z'), (${customer}, 'paid', 1, '1976-11-21 15:59:59.999999Z')
        returning order_date::text as day`;
      expect(rows.map((r) => r.day)).toEqual(['1976-11-20', '1976-11-21', '1976-11-21', '1976-11-21']);
    });
  });

  it("a day's revenue on the calendar is the store's day: 505.55 where the UTC day would hold 707.77", async () => {
    const day = freshDay();
    const before = addDays(day, -1);
    await rolledBack(sql, async (tx) => {
      const customer = await createCustomer(tx, 'storeday');
      await tx`
        insert into public.orders (customer_id, status, total_amount, ordered_at)
        values (${customer}, 'paid', 101.11, ${`${before}T15:59:59Z`}), (${customer}, 'paid', 202.22, ${`${before}T16:00:00Z`}),
               (${customer}, 'paid', 303.33, ${`${day}T15:59:59Z`}), (${customer}, 'paid', 404.44, ${`${day}T16:00:00Z`})`;
      await tx`insert into public.campaigns (name, start_date, end_date, campaign_type)
               values ('Store day', ${addDays(day, -3)}, ${addDays(day, 3)}, 'brand_week')`;
      await tx`update public.campaigns set status = 'active' where name = 'Store day' and start_date = ${addDays(day, -3)}`;
      await tx`select set_config('role', 'authenticated', true),
                      set_config('request.jwt.claims', ${JSON.stringify({ role: 'authenticated', sub: admin.sub })}, true)`;
      const calendar = await tx`select date::text, total_revenue from public.campaign_calendar(${before}, ${addDays(day, 1)})`;
      expect(Object.fromEntries(calendar.map((r) => [r.date, Number(r.total_revenue)]))).toEqual({
        [before]: 101.11,
        [day]: 505.55,
        [addDays(day, 1)]: 404.44,
      });
    });
  });

  it("today in the analysis views is the store's today", async () => {
    const [row] = await sql`select private.store_today()::text as today, private.store_time_zone() as zone`;
    expect(row.zone).toBe('Asia/Taipei');
    expect(row.today).toBe(storeToday());
  });
});

/** A database of its own, in `zone` from the start (Asia/Taipei when null). */
async function storeIn(scratch: ReturnType<typeof scratchDatabase>, zone: string | null) {
  await scratch.createMigrated();
  const db = postgres(scratch.url, {
    max: 1,
    onnotice: () => {},
    types: { numeric: { to: 1700, from: [1700], serialize: String, parse: Number } } as never,
  });
  if (zone) await db`select private.change_store_time_zone(${zone})`;
  return db;
}

const CUSTOMER = '5a1e0000-0000-4000-8000-000000000001';
const EARLY = '5a1e0000-0000-4000-8000-0000000000c1';
const LATE = '5a1e0000-0000-4000-8000-0000000000c2';

/**
 * The same store history, lived at its instants: orders on both sides of the New York DST changes and of
 * Taipei's midnight, and two campaigns whose status moves fall on either side of a midnight.
 */
async function liveHistory(db: postgres.Sql) {
  await db`insert into public.customers (id, email, name) values (${CUSTOMER}, 'store-day@test.example', 'Store day')`;
  const placed = [
    ['2026-03-07 15:59:59Z', 'paid', 10.01], ['2026-03-07 16:00:00Z', 'paid', 20.02],
    ['2026-03-08 04:59:59Z', 'completed', 30.03], ['2026-03-08 05:00:00Z', 'paid', 40.04],
    ['2026-03-09 03:59:59Z', 'shipped', 50.05], ['2026-03-09 04:00:00Z', 'paid', 60.06],
    ['2026-03-09 12:00:00Z', 'pending', 70.07], ['2026-11-01 03:59:59Z', 'paid', 80.08],
    ['2026-11-01 04:00:00Z', 'delivered', 90.09], ['2026-11-02 04:59:59Z', 'paid', 100.1],
    ['2026-11-02 05:00:00Z', 'refunded', 110.11],
  ] as const;
  for (const [i, [at, status, amount]] of placed.entries()) {
    await db`insert into public.orders (id, customer_id, status, total_amount, ordered_at, completed_at)
             values (${`5a1e0000-0000-4000-8000-${String(i).padStart(12, '0')}`}, ${CUSTOMER}, ${status}, ${amount}, ${at},
                     ${status === 'completed' ? at : null})`;
  }
  const moves = [
    [EARLY, 'create', '2026-03-01 00:00:00Z'],
    [LATE, 'create', '2026-03-01 00:00:00Z'],
    // New York: 23:30 on the 7th (EST); Taipei: 12:30 on the 8th.
    [EARLY, 'active', '2026-03-08 04:30:00Z'],
    // Taipei: 00:30 on the 8th; New York: 11:30 on the 7th.
    [LATE, 'active', '2026-03-07 16:30:00Z'],
    // New York: 23:30 on the 8th (EDT, the 23-hour day); Taipei: 11:30 on the 9th.
    [EARLY, 'paused', '2026-03-09 03:30:00Z'],
  ] as const;
  for (const [id, move, at] of moves) {
    await db.begin(async (tx) => {
      await tx`select set_config('store.clock_offset', (${at}::timestamptz - now())::text, true),
                      set_config('role', 'authenticated', true),
                      set_config('request.jwt.claims', ${JSON.stringify({ role: 'authenticated', sub: DEMO_ADMIN_ID })}, true)`;
      if (move === 'create') {
        await tx`insert into public.campaigns (id, name, start_date, end_date, campaign_type, attribution_weight)
                 values (${id}, ${id === EARLY ? 'Early' : 'Late'}, '2026-03-05', '2026-03-12',
                         ${id === EARLY ? 'brand_week' : 'vip_exclusive'}, ${id === EARLY ? 1.5 : 0.7})`;
      } else {
        await tx`select 1 from public.update_campaign(${id}, ${tx.json({ status: move })})`;
      }
    });
  }
}

/** Every kept day of the store, and the same days computed again from the instants they come from. */
async function keptDays(db: postgres.Sql) {
  const [row] = await db`
    select
      (select jsonb_agg(jsonb_build_array(o.id, o.order_date) order by o.id) from public.orders o) as order_dates,
      (select jsonb_agg(jsonb_build_array(o.id, private.store_day(o.ordered_at)) order by o.id) from public.orders o)
        as order_dates_recomputed,
      (select jsonb_object_agg(r.order_date, r.revenue order by r.order_date)
       from private.order_daily_revenue_now r where r.revenue <> 0)
        as revenue,
      (select jsonb_object_agg(r.order_date, r.revenue order by r.order_date)
       from (select private.store_day(ordered_at) as order_date, sum(total_amount) as revenue from public.orders
             where private.counts_as_revenue(counted_until) group by 1) r) as revenue_recomputed,
      (select jsonb_agg(jsonb_build_array(s.campaign_id, s.first_day, s.last_day) order by s.campaign_id, s.first_day)
       from private.campaign_active_spans s) as spans,
      (select jsonb_agg(to_jsonb(d) order by d.attribution_date, d.campaign_id) from private.campaign_attribution_days d) as days,
      (select jsonb_agg(to_jsonb(c) order by c.date) from public.campaign_calendar('2026-03-01', '2026-03-15') c) as calendar`;
  return row;
}

const spansOf = (row: postgres.Row, id: string) =>
  (row.spans as [string, string, string][]).filter(([campaign]) => campaign === id).map(([, first, last]) => [first, last]);
const dayOf = (row: postgres.Row, orderNumber: number) =>
  (row.order_dates as [string, string][]).find(([id]) => id.endsWith(String(orderNumber).padStart(12, '0')))?.[1];

describe('a store in a zone with daylight saving, and changing the zone', () => {
  let taipei: postgres.Sql;
  let taipeiThenNewYork: postgres.Sql;
  let newYork: postgres.Sql;
  const stores = [scratchDatabase('store_day_taipei'), scratchDatabase('store_day_changed'), scratchDatabase('store_day_ny')];

  beforeAll(async () => {
    [taipei, taipeiThenNewYork, newYork] = await Promise.all(
      stores.map((store, i) => storeIn(store, i === 2 ? 'America/New_York' : null)),
    );
    await Promise.all([taipei, taipeiThenNewYork, newYork].map(liveHistory));
  }, 120_000);

  afterAll(async () => {
    await Promise.all([taipei, taipeiThenNewYork, newYork].map((db) => db?.end()));
  });

  it('a New York day begins at its midnight: 23 hours on 8 March, 25 on 1 November', async () => {
    const [row] = await newYork`
      select extract(epoch from private.store_day_start('2026-03-09') - private.store_day_start('2026-03-08')) / 3600 as spring,
             extract(epoch from private.store_day_start('2026-11-02') - private.store_day_start('2026-11-01')) / 3600 as autumn,
             private.store_day_start('2026-03-08') as march_8`;
    expect([Number(row.spring), Number(row.autumn)]).toEqual([23, 25]);
    expect((row.march_8 as Date).toISOString()).toBe('2026-03-08T05:00:00.000Z');
    const row2 = await keptDays(newYork);
    expect([0, 1, 2, 3, 4, 5, 7, 8, 9, 10].map((n) => dayOf(row2, n))).toEqual([
      '2026-03-07', '2026-03-07', '2026-03-07', '2026-03-08', '2026-03-08', '2026-03-09',
      '2026-10-31', '2026-11-01', '2026-11-01', '2026-11-02',
    ]);
  });

  it("a campaign counts on the store's days it was active: New York and Taipei differ by a day", async () => {
    const [ny, tw] = await Promise.all([keptDays(newYork), keptDays(taipei)]);
    expect(spansOf(ny, EARLY)).toEqual([['2026-03-07', '2026-03-08']]);
    expect(spansOf(ny, LATE)).toEqual([['2026-03-07', 'infinity']]);
    expect(spansOf(tw, EARLY)).toEqual([['2026-03-08', '2026-03-09']]);
    expect(spansOf(tw, LATE)).toEqual([['2026-03-08', 'infinity']]);
    expect(dayOf(tw, 1)).toBe('2026-03-08');
    expect(dayOf(tw, 0)).toBe('2026-03-07');
  });

  it('after a change of zone every kept day equals a full recompute and a store created in the new zone', async () => {
    await taipeiThenNewYork`select private.change_store_time_zone('America/New_York')`;
    const [changed, created] = await Promise.all([keptDays(taipeiThenNewYork), keptDays(newYork)]);
    expect(changed.order_dates).toEqual(changed.order_dates_recomputed);
    expect(changed.revenue).toEqual(changed.revenue_recomputed);
    for (const key of ['order_dates', 'revenue', 'spans', 'days', 'calendar'] as const) {
      expect({ [key]: changed[key] }).toEqual({ [key]: created[key] });
    }
    // The comparison saw the history, not two empty stores.
    expect(spansOf(changed, EARLY)).toEqual([['2026-03-07', '2026-03-08']]);
    expect((changed.days as unknown[]).length).toBeGreaterThan(4);
    expect(changed.revenue['2026-03-07']).toBe(60.06);
  });

  it('refuses what is not a time zone name, and nobody but the owner may change the zone', async () => {
    for (const zone of ['UTC+8', 'Not/AZone', 'CST', '']) {
      await expect(newYork`select private.change_store_time_zone(${zone})`).rejects.toThrow(/not an IANA time zone name/);
    }
    const rights = await newYork`
      select r, has_function_privilege(r, 'private.change_store_time_zone(text)', 'execute') as may
      from unnest(array['anon', 'authenticated', 'service_role']) r`;
    expect(rights.map((r) => r.may)).toEqual([false, false, false]);
    const [{ zone }] = await newYork`select private.store_time_zone() as zone`;
    expect(zone).toBe('America/New_York');
  });
});
