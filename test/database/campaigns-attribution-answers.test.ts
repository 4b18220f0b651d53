/**
 * Every attribution answer reads the stored days (private.campaign_attribution_days) and must be, to the
 * byte, what the computation gives: the answers built here exactly as they were built before the days
 * were stored, over private.campaign_attribution_rows(..., recompute => true), which takes each day's
 * shares from the rules (private.campaign_attribution_shares) instead of the table. A generated set of
 * campaigns over past days (history dated in the past, orders with revenue), today and future days, with
 * ties, zero weights and names that need escaping; compared as an administrator (the stored daily revenue)
 * and as a customer (revenue from the orders RLS shows), then rolled back.
 */
import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { addDays, admin, storeToday, TYPE_BY_LAYER } from '../support/campaigns.ts';
import { database, unique } from '../support/client.ts';
import { seededRandom } from '../support/random.ts';

const sql = database(4);
const today = storeToday();
type Tx = postgres.TransactionSql;

const NAMES = ['Plain', 'Quote " and \\ backslash', 'Tab\tnew\nline', 'é中文🙂', 'control \u0001\u001f', '</script>'];
const LAYERS = ['site-wide', 'target-oriented', 'category-specific'] as const;

/**
 * Plants `count` campaigns with dates from 35 days ago to 35 days ahead and a status history dated in the
 * past (as the demo seed writes it, replica mode), some still active (so they count on their future days),
 * and orders of the past days for a customer who is a signed-in user.
 */
async function plant(tx: Tx, seed: number, count: number) {
  const r = seededRandom(seed);
  await tx`select set_config('session_replication_role', 'replica', true)`;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    // Site-wide campaigns never both active at once: only the current status is constrained, so those
    // are planted completed (their history says when they ran).
    const layer = r.pick(LAYERS);
    const start = addDays(today, r.int(60) - 35);
    const end = addDays(start, r.int(25));
    const tie = i % 7 === 0;
    const weight = tie ? 1.2 : r.pick([0, 0.5, 1, 1.25, 2, 3.33, 9.99]);
    const priority = tie ? 60 : r.pick([0, 25, 50, 75, 100]);
    const status = layer === 'site-wide' ? 'completed' : r.pick(['active', 'active', 'paused', 'completed', 'cancelled', 'draft']);
    const [{ id }] = await tx`
      insert into public.campaigns (name, status, start_date, end_date, campaign_type, attribution_layer, attribution_weight, priority_score)
      values (${`${r.pick(NAMES)} ${i}`}, ${status}, ${start}, ${end}, ${TYPE_BY_LAYER[layer]}, ${layer}, ${weight}, ${priority})
      returning id`;
    ids.push(id);
    const activated = addDays(start, r.int(5) - 2);
    const moves: [string, string][] = [['draft', `${addDays(activated, -3)}T10:00:00+08:00`]];
    if (status !== 'draft') moves.push(['active', `${activated}T${String(r.int(24)).padStart(2, '0')}:00:00Z`]);
    if (status === 'paused' || status === 'completed' || status === 'cancelled') {
      const until = addDays(activated, r.int(12));
      moves.push([status, `${until < today ? until : today}T23:00:00+08:00`]);
    }
    await tx`
      insert into public.campaign_status_history (campaign_id, to_status, changed_at, changed_by_role)
      select ${id}, m.status::public.campaign_status, m.at::timestamptz, 'postgres'
      from jsonb_to_recordset(${tx.json(moves.map(([s, at]) => ({ status: s, at })))}) m(status text, at text)
      where m.at::timestamptz <= private.now()`;
  }
  // Two campaigns weighted 0 alone on days of their own: the day's share is split equally.
  for (const n of [0, 1]) {
    const [{ id }] = await tx`
      insert into public.campaigns (name, status, start_date, end_date, campaign_type, attribution_layer, attribution_weight, priority_score)
      values (${`Zero ${n}`}, 'active', ${addDays(today, 200)}, ${addDays(today, 203)}, 'brand_week', 'category-specific', 0, ${n * 10})
      returning id`;
    await tx`insert into public.campaign_status_history (campaign_id, to_status, changed_at, changed_by_role)
             values (${id}, 'active', private.now() - interval '1 day', 'postgres')`;
    ids.push(id);
  }
  await tx`select set_config('session_replication_role', 'origin', true)`;

  const user = crypto.randomUUID();
  await tx`insert into auth.users (id, aud, role, email) values (${user}, 'authenticated', 'authenticated', ${`${user}@example.com`})`;
  const [{ id: customer }] = await tx`
    insert into public.customers (email, name, user_id) values (${`${unique('buyer')}@test.example`}, 'Buyer', ${user}) returning id`;
  await tx`
    insert into public.orders (customer_id, status, total_amount, ordered_at)
    select ${customer}, (array['paid', 'shipped', 'delivered', 'paid', 'pending', 'refunded'])[1 + g % 6],
           round((17.31 * g) % 900 + 0.07, 2), private.store_day_start(${today}::date - (g % 34)) + interval '9 hours'
    from generate_series(1, 120) g`;
  return { ids, user };
}

/** Runs `work` as `caller` inside the snapshot of the planting transaction. */
async function as<T>(tx: Tx, sub: string, work: () => Promise<T>): Promise<T> {
  await tx`select set_config('role', 'authenticated', true),
                  set_config('request.jwt.claims', ${JSON.stringify({ role: 'authenticated', sub })}, true)`;
  try {
    return await work();
  } finally {
    await tx`reset role`;
  }
}

/** The attribution answer as it was built before the days were stored, over the recomputed rows. */
function computedAttribution(tx: Tx, day: string, amount: string | null) {
  return tx`
    with r as (
      select r.*, c.name as campaign_name, c.campaign_type, c.priority_score, c.start_date as period_start, c.end_date as period_end
      from private.campaign_attribution_rows(${day}::text::date, ${day}::text::date, ${amount}::numeric, false, null, true) r
      join public.campaigns c on c.id = r.campaign_id
    )
    select json_strip_nulls(json_build_object(
             'attribution_date', ${day}::text::date,
             'total_active_campaigns', (select count(*) from r),
             'active_layers', coalesce(
               (select json_agg(l.attribution_layer order by l.attribution_layer)
                from (select distinct r.attribution_layer from r) l), '[]'),
             'attributions', coalesce(
               (select json_agg(
                  json_build_object(
                    'campaign_id', r.campaign_id,
                    'campaign_name', r.campaign_name,
                    'campaign_type', r.campaign_type,
                    'attribution_layer', r.attribution_layer,
                    'raw_weight', r.raw_weight,
                    'normalized_weight', r.normalized_weight,
                    'attribution_strength', r.attribution_strength,
                    'period_start', r.period_start,
                    'period_end', r.period_end,
                    'attributed_amount', r.attributed_amount)
                  order by r.normalized_weight desc, r.attribution_layer, r.priority_score desc, r.campaign_id)
                from r), '[]'),
             'order_amount', ${amount}::numeric))::text as answer`;
}

/** A campaign's metrics as private.campaign_metrics computed them before, over the recomputed rows. */
function computedMetrics(tx: Tx, id: string) {
  return tx`
    with r as (
      select r.*
      from public.campaigns c
      cross join lateral private.campaign_attribution_rows(
        c.start_date, least(c.end_date, private.store_today()), null, true, null, true) r
      where c.id = ${id} and c.deleted_at is null
    ),
    days as (
      select r.attribution_date, r.total_active_campaigns, r.normalized_weight, r.attributed_amount
      from r
      where r.campaign_id = ${id}
    ),
    figures as (
      select coalesce(sum(attributed_amount), 0) as attributed_revenue,
             count(*) as attribution_days,
             round(avg(total_active_campaigns)) as typical_competition
      from days
    )
    select row(f.attributed_revenue,
               f.attribution_days,
               case when f.attribution_days = 0 then 0 else round(f.attributed_revenue / f.attribution_days, 2) end,
               (select count(distinct r.campaign_id)
                from r join days d using (attribution_date)
                where r.campaign_id <> ${id}),
               case when f.typical_competition >= 4 then 'high' when f.typical_competition >= 2 then 'medium' else 'low' end,
               coalesce((select jsonb_agg(jsonb_build_object(
                                  'date', d.attribution_date,
                                  'attributed_amount', d.attributed_amount,
                                  'attribution_percentage', d.normalized_weight * 100)
                                order by d.attribution_date)
                         from days d), '[]'))::text as metrics
    from figures f`;
}

/** The three range functions as they were built before, over the recomputed rows, as text. */
function computedRanges(tx: Tx, from: string, to: string) {
  return tx`
    with r as (
      select r.*, c.name as campaign_name, c.campaign_type, c.priority_score
      from private.campaign_attribution_rows(${from}::text::date, ${to}::text::date, null, true, null, true) r
      join public.campaigns c on c.id = r.campaign_id
    ), p as (
      select r.attribution_date, r.campaign_id, c.name as campaign_name, r.attribution_layer
      from private.campaign_attribution_rows(${from}::text::date, ${to}::text::date, null, false, null, true) r
      join public.campaigns c on c.id = r.campaign_id
    )
    select
      (select coalesce(json_agg(x order by x.date), '[]')::text from (
         select r.attribution_date as date, count(*)::integer as active_campaign_count,
                jsonb_agg(jsonb_build_object(
                    'campaign_id', r.campaign_id, 'campaign_name', r.campaign_name, 'campaign_type', r.campaign_type,
                    'attribution_layer', r.attribution_layer, 'normalized_weight', r.normalized_weight,
                    'attribution_strength', r.attribution_strength, 'attributed_amount', r.attributed_amount)
                  order by r.normalized_weight desc, r.attribution_layer, r.priority_score desc, r.campaign_id) as active_campaigns,
                (array_agg(distinct r.attribution_layer order by r.attribution_layer))::text[] as active_layers,
                max(r.day_amount)::numeric as total_revenue,
                case when count(*) >= 4 then 'high' when count(*) >= 2 then 'medium' else 'low' end as competition_intensity
         from r group by r.attribution_date) x) as calendar,
      (select coalesce(json_agg(x order by x.campaign_id), '[]')::text from (
         select r.campaign_id, r.campaign_name, r.campaign_type, r.attribution_layer, private.store_today() as analysis_date,
                count(*)::integer as active_days, min(r.attribution_date) as first_active_date,
                max(r.attribution_date) as last_active_date, sum(r.attributed_amount) as total_attributed_revenue,
                round(avg(r.normalized_weight), 4) as avg_attribution_weight
         from r group by r.campaign_id, r.campaign_name, r.campaign_type, r.attribution_layer) x) as revenue,
      (select coalesce(json_agg(x order by x.campaign_1_id, x.campaign_2_id), '[]')::text from (
         select a.campaign_id as campaign_1_id, a.campaign_name as campaign_1_name, a.attribution_layer as campaign_1_layer,
                b.campaign_id as campaign_2_id, b.campaign_name as campaign_2_name, b.attribution_layer as campaign_2_layer,
                count(*)::integer as overlap_days, min(a.attribution_date) as first_overlap_date,
                max(a.attribution_date) as last_overlap_date, a.attribution_layer = b.attribution_layer as same_layer
         from p a join p b on b.attribution_date = a.attribution_date and a.campaign_id < b.campaign_id
         group by a.campaign_id, a.campaign_name, a.attribution_layer, b.campaign_id, b.campaign_name, b.attribution_layer) x) as pairs`;
}

function answeredRanges(tx: Tx, from: string, to: string) {
  return tx`
    select (select coalesce(json_agg(x order by x.date), '[]')::text from public.campaign_calendar(${from}::text::date, ${to}::text::date) x) as calendar,
           (select coalesce(json_agg(x order by x.campaign_id), '[]')::text from public.revenue_attribution(${from}::text::date, ${to}::text::date) x)
             as revenue,
           (select coalesce(json_agg(x order by x.campaign_1_id, x.campaign_2_id), '[]')::text
            from public.campaign_collaboration(${from}::text::date, ${to}::text::date) x) as pairs`;
}

describe('answers read from the stored days', () => {
  it('metrics, attribution and calendar answer the same JSON as the computation from campaign_attribution_rows', async () => {
    let compared = 0;
    await sql.begin('isolation level repeatable read', async (tx) => {
      const { ids, user } = await plant(tx, 20261123, 60);
      const from = addDays(today, -36);
      const to = addDays(today, 36);
      const days = [...Array(73).keys()].map((i) => addDays(from, i)).concat([addDays(today, 200), addDays(today, 201)]);

      for (const caller of [admin.sub, user]) {
        await as(tx, caller, async () => {
          for (const day of days) {
            for (const amount of [null, '0.01', '100', '98765.43']) {
              const [{ answer }] = await tx`select private.campaign_attributions_json(${day}::text::date, ${amount}::numeric) as answer`;
              const [{ answer: computed }] = await computedAttribution(tx, day, amount);
              expect(answer, `${day} ${amount}`).toBe(computed);
              const [{ rpc }] = await tx`select public.calculate_campaign_attributions(${day}::text::date, ${amount}::numeric)::text as rpc`;
              expect(rpc).toBe((await tx`select ${computed}::text::jsonb::text as j`)[0].j);
              compared++;
            }
            const [{ first }] = await tx`select private.campaign_attributions_json(${day}::text::date, 100, 3) as first`;
            const full = JSON.parse((await tx`select private.campaign_attributions_json(${day}::text::date, 100) as a`)[0].a);
            expect(JSON.parse(first)).toEqual({ ...full, attributions: full.attributions.slice(0, 3) });
          }
          for (const id of ids) {
            const [answered] = await tx`
              select row(m.attributed_revenue, m.attribution_days, m.avg_daily_revenue, m.collaboration_campaigns,
                         m.competition_intensity, m.daily_attribution)::text as metrics
              from private.campaign_metrics(${id}) m`;
            const [computed] = await computedMetrics(tx, id);
            expect(answered.metrics, id).toBe(computed.metrics);
            compared++;
          }
          for (const [rangeFrom, rangeTo] of [[from, to], [today, today], [addDays(today, 1), addDays(today, 210)], ['-infinity', today]]) {
            const [answered] = await answeredRanges(tx, rangeFrom, rangeTo);
            const [computed] = await computedRanges(tx, rangeFrom, rangeTo);
            expect(answered, `${rangeFrom}..${rangeTo}`).toEqual(computed);
            compared++;
          }
        });
      }
      // The set covers what it should: past, today and future days with campaigns, several per day, and
      // the all-zero days.
      const [{ past, now, future, crowded, zero }] = await tx`
        select count(*) filter (where attribution_date < ${today}::date) > 0 as past,
               count(*) filter (where attribution_date = ${today}::date) > 0 as now,
               count(*) filter (where attribution_date > ${today}::date) > 0 as future,
               max(total_active_campaigns) >= 5 as crowded,
               count(*) filter (where attribution_date = ${addDays(today, 200)}::date and units = 5000) = 2 as zero
        from private.campaign_attribution_days where campaign_id = any(${ids}::uuid[])`;
      expect({ past, now, future, crowded, zero }).toEqual({ past: true, now: true, future: true, crowded: true, zero: true });
      throw new Error('rollback');
    }).catch((error) => {
      if (error.message !== 'rollback') throw error;
    });
    expect(compared).toBe(2 * (75 * 4 + 62 + 4));
  });
});
