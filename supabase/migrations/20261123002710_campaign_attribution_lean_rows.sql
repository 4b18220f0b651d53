-- The same rows from the same rules (docs/attribution.md, 20261123002500), computed leaner (issue #6):
--   * a campaign's days of activity come from its stored stretches (20261123002705) instead of a walk
--     of its status history;
--   * the precedence order used to break ties (layer, priority desc, weight desc, id) is one integer per
--     campaign, ranked once, so each day's two remainder rankings sort integers rather than an enum, a
--     numeric and a uuid;
--   * each day's campaign count and weight total are grouped once per day instead of being windowed
--     over every row, and the rows carried between steps hold only integers: names and dates are
--     joined back from the candidates at the end;
--   * a day's revenue comes from private.order_daily_revenue for callers who see every order; anyone
--     else's is still summed from the orders their RLS shows them.
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
-- Planned for each call: one day and a whole history want different plans.
set plan_cache_mode = 'force_custom_plan'
as $$
#variable_conflict use_column
declare
  stored_revenue boolean := revenue_as_amount and private.sees_all_orders();
begin
  return query
  with candidate as materialized (
    select c.id, c.name, c.campaign_type, c.attribution_layer, c.attribution_weight, c.priority_score,
           c.start_date, c.end_date,
           (c.attribution_weight * 100)::bigint
             * case c.attribution_layer when 'site-wide' then 150 when 'target-oriented' then 125 else 100 end
             * (50 + c.priority_score) as raw_millionths,
           row_number() over (order by c.attribution_layer, c.priority_score desc, c.attribution_weight desc, c.id)
             as precedence
    from public.campaigns c
    where c.deleted_at is null
      and c.end_date >= from_date
      and c.start_date <= to_date
  ),
  -- A campaign (named by its precedence, unique among the candidates) counts on a day when the day
  -- lies within its dates and within one of its stretches of activity (private.campaign_active_spans,
  -- kept from its status history).
  activity as materialized (
    select distinct s.first_day + g.i as activity_date, s.precedence, s.raw_millionths
    from (
      select c.precedence, c.raw_millionths,
             greatest(c.start_date, from_date, a.first_day) as first_day,
             least(c.end_date, to_date, a.last_day) as last_day
      from private.campaign_active_spans a
      join candidate c on c.id = a.campaign_id
      where a.last_day >= from_date and a.first_day <= to_date
    ) s
    cross join lateral generate_series(0, s.last_day - s.first_day) as g(i)
  ),
  -- A share is numerator / divisor units of 0.0001; with every raw weight 0 the campaigns share equally.
  day_totals as materialized (
    select a.activity_date, count(*)::integer as n, sum(a.raw_millionths)::bigint as total
    from activity a
    group by a.activity_date
  ),
  shares as (
    select a.activity_date, a.precedence, d.n,
           case when d.total > 0 then a.raw_millionths * 10000 else 10000 end as numerator,
           case when d.total > 0 then d.total else d.n end as divisor
    from activity a
    join day_totals d using (activity_date)
  ),
  ranked_units as (
    select s.activity_date, s.precedence, s.n, s.numerator / s.divisor as whole_units,
           10000 - sum(s.numerator / s.divisor) over (partition by s.activity_date) as deficit,
           row_number() over (partition by s.activity_date order by s.numerator % s.divisor desc, s.precedence)
             as remainder_rank
    from shares s
  ),
  amounts as materialized (
    select d.activity_date, d.amount, round(d.amount * 100)::bigint as cents
    from (select t.activity_date,
                 case when not revenue_as_amount then order_amount
                      when stored_revenue
                        then coalesce((select r.revenue from private.order_daily_revenue r
                                       where r.order_date = t.activity_date), 0)
                      else coalesce((select sum(o.total_amount) from public.orders o
                                     where o.order_date = t.activity_date
                                       and private.is_revenue_status(o.status)), 0)
                 end as amount
          from day_totals t) d
  ),
  cents as (
    select u.activity_date, u.precedence, u.n, u.units, m.amount, m.cents * u.units as cents_x10000,
           m.cents
    from (select r.*, r.whole_units + case when r.remainder_rank <= r.deficit then 1 else 0 end as units
          from ranked_units r) u
    join amounts m using (activity_date)
  ),
  ranked_cents as (
    select c.*,
           c.cents - sum(c.cents_x10000 / 10000) over (partition by c.activity_date) as cent_deficit,
           row_number() over (partition by c.activity_date order by c.cents_x10000 % 10000 desc, c.precedence)
             as cent_rank
    from cents c
  )
  select r.activity_date, r.n, c.id, c.name, c.campaign_type, c.attribution_layer, c.attribution_weight,
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
  join candidate c using (precedence);
end
$$;
