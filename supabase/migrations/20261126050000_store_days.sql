-- The store's own day: every day the database computes is a day in the store's time zone
-- (private.store_time_zone, Asia/Taipei), where it was a UTC day. The helpers, the day figures of
-- business health and the zone-change operation are new; order_date, the stretches of activity and "today"
-- read the store's day; the stored days are rebuilt once, here.

create or replace function private.store_time_zone()
returns text
language sql immutable parallel safe as $$
  select 'Asia/Taipei'::text
$$;

-- The store's day an instant falls on.
create or replace function private.store_day(instant timestamptz)
returns date
language sql immutable parallel safe as $$
  select pg_catalog.date(pg_catalog.timezone(private.store_time_zone(), instant))
$$;

-- The instant a store day begins (its midnight there; a day in a zone with daylight saving may last 23 or
-- 25 hours).
create or replace function private.store_day_start(day date)
returns timestamptz
language sql immutable parallel safe as $$
  select pg_catalog.timezone(private.store_time_zone(), day::pg_catalog.timestamp)
$$;

-- Today, in the store, by the database's clock.
create or replace function private.store_today()
returns date
language sql stable parallel safe as $$
  select private.store_day(private.now())
$$;

revoke execute on function private.store_time_zone(), private.store_day(timestamptz), private.store_day_start(date),
  private.store_today() from public, anon;

grant execute on function private.store_time_zone(), private.store_day(timestamptz), private.store_day_start(date),
  private.store_today() to authenticated, service_role;

create or replace function private.refresh_campaign_active_spans(campaign_ids uuid[])
returns void
language sql set search_path = '' as $$
  delete from private.campaign_active_spans s where s.campaign_id = any(campaign_ids);
  insert into private.campaign_active_spans (opened_by, campaign_id, first_day, last_day)
  select p.id, p.campaign_id, private.store_day(p.changed_at),
         coalesce(private.store_day(p.until - interval '1 microsecond'), 'infinity')
  from (
    select h.id, h.campaign_id, h.to_status, h.changed_at,
           lead(h.changed_at) over (partition by h.campaign_id order by h.changed_at, h.id) as until
    from unnest(campaign_ids) c(id)
    join public.campaign_status_history h on h.campaign_id = c.id
  ) p
  where p.to_status = 'active' and (p.until is null or p.until > p.changed_at);
$$;

create or replace function private.campaign_metrics(target_campaign uuid)
returns table (
  attributed_revenue numeric,
  attribution_days bigint,
  avg_daily_revenue numeric,
  collaboration_campaigns bigint,
  competition_intensity text,
  daily_attribution jsonb
)
language sql stable set search_path = '' as $$
  with days as materialized (
    select r.attribution_date, r.total_active_campaigns, r.normalized_weight, r.attributed_amount
    from public.campaigns c
    cross join lateral private.campaign_attribution_rows(
      c.start_date, least(c.end_date, private.store_today()), null, true, c.id) r
    where c.id = target_campaign and c.deleted_at is null
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
         (select count(*)
          from (select o.campaign_id
                from private.campaign_attribution_days o
                where o.attribution_date in (select d.attribution_date from days d)
                  and o.campaign_id <> target_campaign
                group by o.campaign_id) others),
         case when f.typical_competition >= 4 then 'high' when f.typical_competition >= 2 then 'medium' else 'low' end,
         coalesce((select jsonb_agg(jsonb_build_object(
                            'date', d.attribution_date,
                            'attributed_amount', d.attributed_amount,
                            'attribution_percentage', d.normalized_weight * 100)
                          order by d.attribution_date)
                   from days d), '[]')
  from figures f
$$;

create or replace function public.revenue_attribution(from_date date, to_date date)
returns table (
  campaign_id uuid,
  campaign_name text,
  campaign_type text,
  attribution_layer public.attribution_layer,
  analysis_date date,
  active_days integer,
  first_active_date date,
  last_active_date date,
  total_attributed_revenue numeric,
  avg_attribution_weight numeric
)
language plpgsql stable set search_path = '' as $$
#variable_conflict use_column
begin
  perform private.check_analysis_range(from_date, to_date);
  return query
  select r.campaign_id,
         c.name,
         c.campaign_type,
         r.attribution_layer,
         private.store_today(),
         count(*)::integer,
         min(r.attribution_date),
         max(r.attribution_date),
         sum(r.attributed_amount),
         round(avg(r.normalized_weight), 4)
  from private.campaign_attribution_rows(from_date, to_date, null, true) r
  join public.campaigns c
    on c.id = r.campaign_id and c.deleted_at is null and c.end_date >= from_date and c.start_date <= to_date
  group by r.campaign_id, c.name, c.campaign_type, r.attribution_layer;
end
$$;

create or replace view public.campaign_overlap_calendar with (security_invoker = true) as
select c.date, c.active_campaign_count, c.active_campaigns, c.active_layers, c.total_revenue, c.competition_intensity
from public.campaign_calendar('-infinity', private.store_today()) c;

create or replace view public.revenue_attribution_analysis with (security_invoker = true) as
select a.campaign_id, a.campaign_name, a.campaign_type, a.attribution_layer, a.analysis_date, a.active_days,
       a.first_active_date, a.last_active_date, a.total_attributed_revenue, a.avg_attribution_weight
from public.revenue_attribution('-infinity', private.store_today()) a;

create or replace view public.campaign_collaboration_analysis with (security_invoker = true) as
select c.campaign_1_id, c.campaign_1_name, c.campaign_1_layer, c.campaign_2_id, c.campaign_2_name, c.campaign_2_layer,
       c.overlap_days, c.first_overlap_date, c.last_overlap_date, c.same_layer
from public.campaign_collaboration('-infinity', private.store_today()) c;

create or replace function health.business_days()
returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  as_of timestamptz := private.now();
  today date := private.store_day(as_of);
begin
  if not private.is_admin() then
    perform private.raise_api_error(403, 'INSUFFICIENT_PERMISSION', 'Administrator permission is required to see the figures');
  end if;
  return jsonb_build_object('time_zone', private.store_time_zone(), 'as_of', private.api_timestamp(as_of))
    || (select jsonb_object_agg(d.name, jsonb_build_object(
                 'date', d.day, 'from', private.api_timestamp(d.first), 'before', private.api_timestamp(d.until),
                 'revenue', f.revenue, 'counted_orders', f.counted_orders, 'orders', f.orders,
                 'completed', f.completed, 'cancelled', f.cancelled))
        from (values ('today', today, private.store_day_start(today), as_of),
                     ('yesterday', today - 1, private.store_day_start(today - 1), private.store_day_start(today)))
             d(name, day, first, until)
        cross join lateral (
          select coalesce(sum(o.total_amount) filter (where k.counted), 0) as revenue,
                 count(*) filter (where k.counted) as counted_orders,
                 count(*) as orders,
                 count(*) filter (where o.completed_at < d.until) as completed,
                 count(*) filter (where o.cancelled_at < d.until) as cancelled
          from public.orders o
          cross join lateral (select o.status <> 'refunded'
                                     and (o.cancelled_at is null or o.cancelled_at >= d.until) as counted) k
          where o.ordered_at >= d.first and o.ordered_at < d.until) f);
end
$$;

revoke execute on function health.business_days() from public, anon;

grant execute on function health.business_days() to authenticated, service_role;

create or replace function private.rebuild_store_days()
returns void
language plpgsql set search_path = '' as $$
declare
  campaign_ids uuid[];
begin
  lock table public.orders, public.campaigns, public.campaign_status_history in share row exclusive mode;
  alter table public.orders alter column order_date set expression as (private.store_day(ordered_at));

  truncate private.order_daily_revenue;
  insert into private.order_daily_revenue (order_date, slot, revenue)
  select o.order_date, 1, sum(o.total_amount)
  from public.orders o
  where private.is_revenue_status(o.status)
  group by o.order_date
  having sum(o.total_amount) <> 0
  order by o.order_date;

  -- Emptied first, so each table is written once, not left half dead rows.
  truncate private.campaign_active_spans, private.campaign_attribution_days;
  campaign_ids := array(select c.id from public.campaigns c order by c.id);
  perform private.refresh_campaign_active_spans(campaign_ids);
  perform private.recompute_campaign_attribution_days(private.campaign_days_to_recompute(campaign_ids, false));
end
$$;

create or replace function private.change_store_time_zone(time_zone text)
returns void
language plpgsql set search_path = '' as $$
begin
  -- Names only: PostgreSQL also takes abbreviations and POSIX strings ('UTC+8', which means UTC-8), which
  -- are no store's zone.
  if time_zone is null or not exists (select 1 from pg_catalog.pg_timezone_names n where n.name = time_zone) then
    raise exception using errcode = '22023', message = format('%s is not an IANA time zone name', coalesce(time_zone, 'null')),
      hint = 'Use a name such as Asia/Taipei or Europe/Paris (select name from pg_timezone_names).';
  end if;
  execute format($definition$
    create or replace function private.store_time_zone()
    returns text
    language sql immutable parallel safe as $body$
      select %L::text
    $body$ $definition$, time_zone);
  perform private.rebuild_store_days();
end
$$;

revoke execute on function private.rebuild_store_days(), private.change_store_time_zone(text)
  from public, anon, authenticated, service_role;

-- Days stored so far were UTC days: every one of them computed again as the store's.
select private.rebuild_store_days();
