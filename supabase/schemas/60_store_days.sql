-- Changing the store's time zone (private.store_time_zone, 00_platform_helpers.sql): one operation, in one
-- transaction, that rewrites the zone and every day derived from it. Run it as the database owner, in a
-- migration (`select private.change_store_time_zone('Europe/Paris');`) or from psql; docs/architecture.md,
-- "The store's day". It takes orders and the campaign tables exclusively while it rewrites them: a
-- moment of downtime for a change made once in a store's life.

-- Every stored day computed again from the instants it comes from: each order's order_date (a table
-- rewrite: the generated column's stored values follow the zone only when recomputed), the daily revenue,
-- the campaigns' stretches of activity and the attribution days built on them. The health figures are kept
-- by the hour and customers' scores by the instant: no day in them to rebuild.
create or replace function private.rebuild_store_days()
returns void
language plpgsql set search_path = '' as $$
declare
  campaign_ids uuid[];
begin
  lock table public.orders, public.campaigns, public.campaign_status_history in share row exclusive mode;
  -- Changes logged under the old days are folded under them first; with orders locked none follow.
  perform private.fold_order_changes(true);
  alter table public.orders alter column order_date set expression as (private.store_day(ordered_at));

  truncate private.order_daily_revenue;
  insert into private.order_daily_revenue (order_date, revenue)
  select o.order_date, sum(o.total_amount)
  from public.orders o
  where private.counts_as_revenue(o.counted_until)
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
