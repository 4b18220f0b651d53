-- Attribution (seed 03, CONTRACT §3A; docs/attribution.md explains it with a worked example). One
-- set-based implementation, private.campaign_attribution_rows, answers both the function and the three
-- views, so they cannot disagree. Everything is security invoker: a caller sees the campaigns and the
-- orders (hence the revenue) their RLS lets them see.

-- Which campaigns count on which UTC day: the day lies within the campaign's dates and the status
-- history shows it active at some moment of that day. So a campaign completed today still counts for
-- the days it ran, and a paused stretch does not count.
create or replace function private.campaign_activity(from_date date, to_date date)
returns table (activity_date date, campaign_id uuid)
language sql
stable
set search_path = ''
as $$
  select distinct d::date, c.id
  from public.campaigns c
  join lateral (
    select h.to_status, h.changed_at, lead(h.changed_at) over (order by h.changed_at, h.id) as until
    from public.campaign_status_history h
    where h.campaign_id = c.id
  ) s on s.to_status = 'active' and (s.until is null or s.until > s.changed_at)
  cross join lateral generate_series(
    greatest(c.start_date, from_date, (s.changed_at at time zone 'UTC')::date)::timestamp,
    least(c.end_date, to_date, ((s.until at time zone 'UTC') - interval '1 microsecond')::date)::timestamp,
    interval '1 day') as d
  where c.deleted_at is null
    and c.start_date <= to_date
    and c.end_date >= from_date
$$;

-- One row per (day, counted campaign). Weights are apportioned in units of 0.0001 and amounts in cents,
-- both by largest remainder, so each day's weights sum to exactly 1 and its amounts to the amount.
-- `day_amount` is `order_amount`, or with `revenue_as_amount` that day's revenue: the orders the caller
-- can see that are paid, shipped, delivered or completed.
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
language sql
stable
set search_path = ''
as $$
  with active as (
    select a.activity_date, c.id, c.name, c.campaign_type, c.attribution_layer, c.attribution_weight, c.priority_score,
           c.start_date, c.end_date,
           -- Exact: weight (2 decimals) x layer factor (2) x priority factor (2) has at most 6 decimals.
           trim_scale(c.attribution_weight
             * case c.attribution_layer when 'site-wide' then 1.50 when 'target-oriented' then 1.25 else 1.00 end
             * (0.50 + c.priority_score * 0.01)) as raw
    from private.campaign_activity(from_date, to_date) a
    join public.campaigns c on c.id = a.campaign_id
  ),
  shares as (
    select *,
           count(*) over day as n,
           case when sum(raw) over day > 0 then raw * 10000 / sum(raw) over day else 10000.0 / count(*) over day end
             as exact_units
    from active
    window day as (partition by activity_date)
  ),
  ranked_units as (
    select *,
           10000 - sum(floor(exact_units)) over (partition by activity_date) as deficit,
           row_number() over (partition by activity_date
             order by exact_units - floor(exact_units) desc, attribution_layer, priority_score desc,
                      attribution_weight desc, id) as remainder_rank
    from shares
  ),
  weighted as (
    select *, floor(exact_units) + case when remainder_rank <= deficit then 1 else 0 end as units
    from ranked_units
  ),
  amounts as (
    select day.activity_date,
           case when revenue_as_amount
             then coalesce((select sum(o.total_amount) from public.orders o
                            where o.order_date = day.activity_date
                              and o.status in ('paid', 'shipped', 'delivered', 'completed')), 0)
             else order_amount end as amount
    from (select distinct activity_date from active) day
  ),
  cents as (
    select w.*, m.amount, round(m.amount * 100) * w.units / 10000 as exact_cents
    from weighted w join amounts m using (activity_date)
  ),
  ranked_cents as (
    select *,
           round(amount * 100) - sum(floor(exact_cents)) over (partition by activity_date) as cent_deficit,
           row_number() over (partition by activity_date
             order by exact_cents - floor(exact_cents) desc, attribution_layer, priority_score desc,
                      attribution_weight desc, id) as cent_rank
    from cents
  )
  select activity_date, n::integer, id, name, campaign_type, attribution_layer, attribution_weight, priority_score,
         raw,
         (units / 10000)::numeric(5, 4),
         case when units >= 5000 then 'dominant' when units >= 2500 then 'significant'
              when units >= 1000 then 'moderate' else 'minor' end,
         start_date, end_date,
         amount,
         ((floor(exact_cents) + case when cent_rank <= cent_deficit then 1 else 0 end) / 100)::numeric(14, 2)
  from ranked_cents
$$;

create or replace function public.calculate_campaign_attributions(target_date date, order_amount numeric default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  result jsonb;
begin
  if target_date is null then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'target_date is required', 'target_date', null, 'required');
  end if;
  if order_amount < 0 or order_amount >= 1000000000000 or scale(order_amount) > 2 then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'Invalid order_amount', 'order_amount',
      to_jsonb(order_amount), 'a non-negative amount below 1000000000000 with at most 2 decimal places');
  end if;

  with r as (
    select * from private.campaign_attribution_rows(target_date, target_date, order_amount, false)
  )
  select jsonb_build_object(
           'attribution_date', target_date,
           'total_active_campaigns', (select count(*) from r),
           'active_layers', coalesce(
             (select jsonb_agg(l.attribution_layer order by l.attribution_layer)
              from (select distinct r.attribution_layer from r) l), '[]'),
           'attributions', coalesce(
             (select jsonb_agg(
                jsonb_build_object(
                  'campaign_id', r.campaign_id,
                  'campaign_name', r.campaign_name,
                  'campaign_type', r.campaign_type,
                  'attribution_layer', r.attribution_layer,
                  'raw_weight', r.raw_weight,
                  'normalized_weight', r.normalized_weight,
                  'attribution_strength', r.attribution_strength,
                  'period_start', r.period_start,
                  'period_end', r.period_end)
                || case when order_amount is null then '{}'::jsonb
                        else jsonb_build_object('attributed_amount', r.attributed_amount) end
                order by r.normalized_weight desc, r.attribution_layer, r.priority_score desc, r.campaign_id)
              from r), '[]'))
         || case when order_amount is null then '{}'::jsonb else jsonb_build_object('order_amount', order_amount) end
    into result;
  return result;
end
$$;

-- The views cover every day up to today (UTC) on which at least one campaign counted; revenue is each
-- day's revenue apportioned by that day's normalized weights, to the cent.
create or replace view public.campaign_overlap_calendar with (security_invoker = true) as
select r.attribution_date as date,
       count(*)::integer as active_campaign_count,
       jsonb_agg(jsonb_build_object(
           'campaign_id', r.campaign_id,
           'campaign_name', r.campaign_name,
           'campaign_type', r.campaign_type,
           'attribution_layer', r.attribution_layer,
           'normalized_weight', r.normalized_weight,
           'attribution_strength', r.attribution_strength,
           'attributed_amount', r.attributed_amount)
         order by r.normalized_weight desc, r.attribution_layer, r.priority_score desc, r.campaign_id) as active_campaigns,
       (array_agg(distinct r.attribution_layer order by r.attribution_layer))::text[] as active_layers,
       max(r.day_amount) as total_revenue,
       case when count(*) >= 4 then 'high' when count(*) >= 2 then 'medium' else 'low' end as competition_intensity
from private.campaign_attribution_rows('-infinity', (now() at time zone 'UTC')::date, null, true) r
group by r.attribution_date;

create or replace view public.revenue_attribution_analysis with (security_invoker = true) as
select r.campaign_id,
       r.campaign_name,
       r.campaign_type,
       r.attribution_layer,
       (now() at time zone 'UTC')::date as analysis_date,
       count(*)::integer as active_days,
       min(r.attribution_date) as first_active_date,
       max(r.attribution_date) as last_active_date,
       sum(r.attributed_amount) as total_attributed_revenue,
       round(avg(r.normalized_weight), 4) as avg_attribution_weight
from private.campaign_attribution_rows('-infinity', (now() at time zone 'UTC')::date, null, true) r
group by r.campaign_id, r.campaign_name, r.campaign_type, r.attribution_layer;

create or replace view public.campaign_collaboration_analysis with (security_invoker = true) as
with r as (
  select attribution_date, campaign_id, campaign_name, attribution_layer
  from private.campaign_attribution_rows('-infinity', (now() at time zone 'UTC')::date, null, false)
)
select a.campaign_id as campaign_1_id,
       a.campaign_name as campaign_1_name,
       a.attribution_layer as campaign_1_layer,
       b.campaign_id as campaign_2_id,
       b.campaign_name as campaign_2_name,
       b.attribution_layer as campaign_2_layer,
       count(*)::integer as overlap_days,
       min(a.attribution_date) as first_overlap_date,
       max(a.attribution_date) as last_overlap_date,
       a.attribution_layer = b.attribution_layer as same_layer
from r a
join r b on b.attribution_date = a.attribution_date and a.campaign_id < b.campaign_id
group by a.campaign_id, a.campaign_name, a.attribution_layer, b.campaign_id, b.campaign_name, b.attribution_layer;

revoke all on public.campaign_overlap_calendar, public.revenue_attribution_analysis,
  public.campaign_collaboration_analysis from anon;
revoke insert, update, delete, truncate on public.campaign_overlap_calendar, public.revenue_attribution_analysis,
  public.campaign_collaboration_analysis from authenticated, service_role;
grant select on public.campaign_overlap_calendar, public.revenue_attribution_analysis,
  public.campaign_collaboration_analysis to authenticated, service_role;

revoke execute on function public.calculate_campaign_attributions(date, numeric) from public, anon;
revoke execute on function private.campaign_activity(date, date) from public, anon;
revoke execute on function private.campaign_attribution_rows(date, date, numeric, boolean) from public, anon;
grant execute on function public.calculate_campaign_attributions(date, numeric) to authenticated, service_role;
grant execute on function private.campaign_activity(date, date) to authenticated, service_role;
grant execute on function private.campaign_attribution_rows(date, date, numeric, boolean) to authenticated, service_role;
