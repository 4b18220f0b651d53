-- Campaign metrics rank a campaign against the others of its days by counting instead of sorting each
-- day (docs/attribution.md, "Cost"): private.campaign_attribution_rows with of_campaign counts, per day,
-- the campaigns whose key (remainder, then tie-break order) is larger; every other caller still sorts each
-- day by the same key. Same answers.

-- Every attribution answer (the function, the three views, a campaign's metrics) comes from these rows:
-- the stored shares of each day of the range and, when an amount is asked for, the day's amount split
-- by the same largest-remainder rule in cents. A day's amount is the order amount given, or its revenue:
-- from private.order_daily_revenue for callers who see every order, summed from the orders their RLS
-- shows them for anyone else. With recompute, the shares come from private.campaign_attribution_shares
-- instead of the stored table: the computation the tests compare every answer with.
--
-- The split: each campaign gets the whole cents of its share, and the day's missing cents go one each to
-- the campaigns that rank first by one integer key, the remainder (largest first) then the tie-break
-- order; a campaign gets one when fewer campaigns of its day rank before it than there are cents
-- missing. For every campaign of the days asked the ranks come from sorting each day by the key; with
-- of_campaign (a campaign's metrics: only its rows, on the days it counts on) by counting, for each of
-- its days, the day's campaigns whose key is larger, which reads the day's integers from the primary key
-- and sorts nothing.
create or replace function private.campaign_attribution_rows(
  from_date date, to_date date, order_amount numeric, revenue_as_amount boolean, of_campaign uuid default null,
  recompute boolean default false
)
returns table (
  attribution_date date,
  total_active_campaigns integer,
  campaign_id uuid,
  attribution_layer public.attribution_layer,
  raw_weight numeric,
  normalized_weight numeric(5, 4),
  attribution_strength text,
  answer_rank integer,
  day_amount numeric(14, 2),
  attributed_amount numeric(14, 2)
)
language plpgsql
stable
set search_path = ''
-- Planned for each call: the branches not taken are left out of the plan, and one day and a whole
-- history want different plans.
set plan_cache_mode = 'force_custom_plan'
as $$
#variable_conflict use_column
declare
  stored_revenue boolean := revenue_as_amount and private.sees_all_orders();
begin
  return query
  with fresh as materialized (
    select * from private.campaign_attribution_shares(from_date, to_date)
  ),
  -- The rows returned.
  wanted as materialized (
    select d.attribution_date, d.campaign_id, d.total_active_campaigns, d.units, d.precedence_rank, d.answer_rank,
           d.attribution_layer, d.raw_weight, d.normalized_weight, d.attribution_strength
    from private.campaign_attribution_days d
    where not recompute
      and d.attribution_date between from_date and to_date
      and (of_campaign is null or d.campaign_id = of_campaign)
    union all
    select f.attribution_date, f.campaign_id, f.total_active_campaigns, f.units, f.precedence_rank, f.answer_rank,
           f.attribution_layer, f.raw_weight, f.normalized_weight, f.attribution_strength
    from fresh f
    where recompute and (of_campaign is null or f.campaign_id = of_campaign)
  ),
  amounts as materialized (
    select t.attribution_date, t.amount, round(t.amount * 100)::bigint as cents
    from (select w.attribution_date,
                 case when not revenue_as_amount then order_amount
                      when stored_revenue
                        then coalesce((select r.revenue from private.order_daily_revenue r
                                       where r.order_date = w.attribution_date), 0)
                      else coalesce((select sum(o.total_amount) from public.orders o
                                     where o.order_date = w.attribution_date
                                       and private.is_revenue_status(o.status)), 0)
                 end as amount
          from (select distinct w.attribution_date from wanted w) w) t
  ),
  ranked_by_sorting as (
    select w.attribution_date, w.campaign_id, m.cents * w.units / 10000 as whole_cents,
           m.cents - sum(m.cents * w.units / 10000) over (partition by w.attribution_date) as missing_cents,
           row_number() over (partition by w.attribution_date
                              order by (m.cents * w.units % 10000) * 2147483648 + (2147483647 - w.precedence_rank) desc)
             - 1 as ranked_before
    from wanted w
    join amounts m using (attribution_date)
    where of_campaign is null
  ),
  ranked_by_counting as (
    select w.attribution_date, w.campaign_id, m.cents * w.units / 10000 as whole_cents, c.missing_cents, c.ranked_before
    from wanted w
    join amounts m using (attribution_date)
    cross join lateral (
      select m.cents - sum(m.cents * o.units / 10000) as missing_cents,
             count(*) filter (
               where (m.cents * o.units % 10000) * 2147483648 + (2147483647 - o.precedence_rank)
                   > (m.cents * w.units % 10000) * 2147483648 + (2147483647 - w.precedence_rank)) as ranked_before
      from (select d.units, d.precedence_rank from private.campaign_attribution_days d
            where not recompute and d.attribution_date = w.attribution_date
            union all
            select f.units, f.precedence_rank from fresh f
            where recompute and f.attribution_date = w.attribution_date) o
    ) c
    where of_campaign is not null
  ),
  ranked as materialized (
    select * from ranked_by_sorting
    union all
    select * from ranked_by_counting
  )
  select w.attribution_date, w.total_active_campaigns, w.campaign_id, w.attribution_layer, w.raw_weight,
         w.normalized_weight, w.attribution_strength, w.answer_rank, m.amount,
         ((r.whole_cents + case when r.ranked_before < r.missing_cents then 1 else 0 end) / 100.0)::numeric(14, 2)
  from wanted w
  join ranked r using (attribution_date, campaign_id)
  join amounts m using (attribution_date);
end
$$;
