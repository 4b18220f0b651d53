-- Attribution costs what the question needs, not the whole history (issue #6). The rules are those of
-- 20261123002020 and docs/attribution.md, unchanged; only how they are computed changes:
--   * the campaigns counted in a date range are found through an index, and only their status history
--     is read;
--   * the apportioning runs on integers, with the same results as the exact numeric arithmetic;
--   * a campaign's metrics compute only the days of that campaign (private.campaign_metrics) instead of
--     reading the whole campaign_overlap_calendar.

-- "Which campaigns overlap these dates" must be answered by a btree: every caller is subject to RLS, and
-- a qual can reach an index under RLS only through a leakproof operator. The date comparisons are; the
-- range operators of the gist index campaigns_period_idx are not, so that index is never used here.
-- end_date leads because attribution asks about recent days: the scan covers the campaigns ending on
-- or after the first day, and start_date is checked within the index.
create index if not exists campaigns_attribution_period_idx
  on public.campaigns (end_date, start_date) where deleted_at is null;

-- Same rows as before, from the same rules (private.campaign_activity of 20261123002020 is folded in
-- here and dropped). What changed is the cost:
--   * the campaigns overlapping the range are found once, through the index above, and only their
--     status history is read; their columns are joined to each counted day from that small set;
--   * a raw weight is an exact integer number of millionths (weight, layer factor and priority factor
--     each in hundredths), so a share's units and remainder are an integer division. Within one day every
--     remainder has the same divisor, so comparing the integer remainders orders them exactly as comparing
--     the fractions does. Cents are integers the same way (a day's amount in cents times 10 000 units fits
--     a bigint up to 9.2 trillion a day; beyond that it fails with an overflow rather than rounds);
--   * each day's revenue is read once per day, not once per row;
--   * PL/pgSQL keeps the plan between calls, where a SQL function would plan this query on every call.
create or replace function private.campaign_attribution_rows(
  from_date date, to_date date, order_amount numeric, revenue_as_amount boolean
)
returns table (
  attribution_date date,
  total_active_campaigns integer,
  campaign_id uuid,
  campaign_name text,
  campaign_type text,
  attribution_layer public.attribution_layer,
  attribution_weight numeric,
  priority_score smallint,
  raw_weight numeric,
  normalized_weight numeric(5, 4),
  attribution_strength text,
  period_start date,
  period_end date,
  day_amount numeric(14, 2),
  attributed_amount numeric(14, 2)
)
language plpgsql
stable
set search_path = ''
as $$
#variable_conflict use_column
begin
  return query
  with candidate as materialized (
    select c.id, c.name, c.campaign_type, c.attribution_layer, c.attribution_weight, c.priority_score,
           c.start_date, c.end_date,
           (c.attribution_weight * 100)::bigint
             * case c.attribution_layer when 'site-wide' then 150 when 'target-oriented' then 125 else 100 end
             * (50 + c.priority_score) as raw_millionths
    from public.campaigns c
    where c.deleted_at is null
      and c.end_date >= from_date
      and c.start_date <= to_date
  ),
  -- A campaign counts on a day when the day lies within its dates and its status history shows it
  -- active at some moment of that day.
  activity as (
    select distinct d::date as activity_date, c.id
    from candidate c
    join lateral (
      select h.to_status, h.changed_at, lead(h.changed_at) over (order by h.changed_at, h.id) as until
      from public.campaign_status_history h
      where h.campaign_id = c.id
    ) s on s.to_status = 'active' and (s.until is null or s.until > s.changed_at)
    cross join lateral generate_series(
      greatest(c.start_date, from_date, (s.changed_at at time zone 'UTC')::date)::timestamp,
      least(c.end_date, to_date, ((s.until at time zone 'UTC') - interval '1 microsecond')::date)::timestamp,
      interval '1 day') as d
  ),
  shares as (
    -- A share is numerator / divisor units of 0.0001; with every raw weight 0 the campaigns share equally.
    select a.activity_date, a.id, c.attribution_layer, c.priority_score, c.attribution_weight,
           count(*) over day as n,
           case when sum(c.raw_millionths) over day > 0 then c.raw_millionths * 10000 else 10000 end as numerator,
           case when sum(c.raw_millionths) over day > 0 then (sum(c.raw_millionths) over day)::bigint
                else count(*) over day end as divisor
    from activity a
    join candidate c using (id)
    window day as (partition by a.activity_date)
  ),
  ranked_units as (
    select *,
           10000 - sum(numerator / divisor) over (partition by activity_date) as deficit,
           row_number() over (partition by activity_date
             order by numerator % divisor desc, attribution_layer, priority_score desc, attribution_weight desc, id)
             as remainder_rank
    from shares
  ),
  -- Materialized, or the planner inlines it and runs the revenue query once per row instead of per day.
  amounts as materialized (
    select day.activity_date, day.amount, round(day.amount * 100)::bigint as cents
    from (select a.activity_date,
                 case when revenue_as_amount
                   then coalesce((select sum(o.total_amount) from public.orders o
                                  where o.order_date = a.activity_date
                                    and o.status in ('paid', 'shipped', 'delivered', 'completed')), 0)
                   else order_amount end as amount
          from (select distinct activity_date from activity) a) day
  ),
  cents as (
    select u.*, m.amount, m.cents, m.cents * u.units as cents_x10000
    from (select *, numerator / divisor + case when remainder_rank <= deficit then 1 else 0 end as units
          from ranked_units) u
    join amounts m using (activity_date)
  ),
  ranked_cents as (
    select *,
           cents - sum(cents_x10000 / 10000) over (partition by activity_date) as cent_deficit,
           row_number() over (partition by activity_date
             order by cents_x10000 % 10000 desc, attribution_layer, priority_score desc, attribution_weight desc, id)
             as cent_rank
    from cents
  )
  select r.activity_date, r.n::integer, r.id, c.name, c.campaign_type, c.attribution_layer, c.attribution_weight,
         c.priority_score,
         -- Exact: at most 6 decimals.
         trim_scale(c.raw_millionths / 1000000.0),
         (r.units / 10000.0)::numeric(5, 4),
         case when r.units >= 5000 then 'dominant' when r.units >= 2500 then 'significant'
              when r.units >= 1000 then 'moderate' else 'minor' end,
         c.start_date, c.end_date,
         r.amount,
         ((r.cents_x10000 / 10000 + case when r.cent_rank <= r.cent_deficit then 1 else 0 end) / 100.0)::numeric(14, 2)
  from ranked_cents r
  join candidate c using (id);
end
$$;

drop function if exists private.campaign_activity(date, date);

-- A campaign's figures over its own days (docs/campaigns.md), from the same rows as the views: each
-- day's attribution depends only on that day, so computing the campaign's date range gives, for its
-- days, exactly the entries campaign_overlap_calendar shows. Days run up to today, as in the views.
create or replace function private.campaign_metrics(target_campaign uuid)
returns table (
  attributed_revenue numeric,
  attribution_days bigint,
  avg_daily_revenue numeric,
  collaboration_campaigns bigint,
  competition_intensity text,
  daily_attribution jsonb
)
language sql
stable
set search_path = ''
as $$
  with r as (
    select r.*
    from public.campaigns c
    cross join lateral private.campaign_attribution_rows(
      c.start_date, least(c.end_date, (now() at time zone 'UTC')::date), null, true) r
    where c.id = target_campaign and c.deleted_at is null
  ),
  days as (
    select r.attribution_date, r.total_active_campaigns, r.normalized_weight, r.attributed_amount
    from r
    where r.campaign_id = target_campaign
  ),
  figures as (
    select coalesce(sum(attributed_amount), 0) as attributed_revenue,
           count(*) as attribution_days,
           round(avg(total_active_campaigns)) as typical_competition
    from days
  )
  select f.attributed_revenue,
         f.attribution_days,
         case when f.attribution_days = 0 then 0 else round(f.attributed_revenue / f.attribution_days, 2) end,
         (select count(distinct r.campaign_id)
          from r join days d using (attribution_date)
          where r.campaign_id <> target_campaign),
         case when f.typical_competition >= 4 then 'high' when f.typical_competition >= 2 then 'medium' else 'low' end,
         coalesce((select jsonb_agg(jsonb_build_object(
                            'date', d.attribution_date,
                            'attributed_amount', d.attributed_amount,
                            'attribution_percentage', d.normalized_weight * 100)
                          order by d.attribution_date)
                   from days d), '[]')
  from figures f
$$;

revoke execute on function private.campaign_metrics(uuid) from public, anon;
grant execute on function private.campaign_metrics(uuid) to authenticated, service_role;
