-- The store days the analytics keep: rebuilt when the zone changes, checked nightly against the orders
-- (private.repair_kept_days). private.change_store_time_zone rewrites the zone and every day derived from it
-- in one transaction, as the owner, in a migration or psql (docs/architecture.md, "The store's day"); it locks
-- orders and the campaign tables while it runs, a moment of downtime for a change made once in a store's life.

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

-- Checks each store day's kept revenue and figures in [first_day, last_day] against its orders and rewrites
-- any that disagrees (a bug, a restore, an owner's hand edit), without an operator or stopping checkouts. A
-- day should hold its orders less the changes still in the log, read in one statement (one snapshot) under
-- the fold's lock. Returns the days rewritten; nightly over the last 35 days (docs/reliability.md, "Kept
-- figures").
create or replace function private.repair_kept_days(first_day date, last_day date)
returns integer
language plpgsql security definer set search_path = '' as $$
declare
  repaired integer;
begin
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('private.fold_order_changes'));
  with due as materialized (
    select coalesce(n.key_date, p.key_date) as order_date,
           coalesce(n.orders, 0) - coalesce(p.orders, 0) as orders,
           coalesce(n.counted_orders, 0) - coalesce(p.counted_orders, 0) as counted_orders,
           coalesce(n.revenue, 0) - coalesce(p.revenue, 0) as revenue,
           coalesce(n.completed, 0) - coalesce(p.completed, 0) as completed,
           coalesce(n.cancelled, 0) - coalesce(p.cancelled, 0) as cancelled,
           coalesce(n.refunded, 0) - coalesce(p.refunded, 0) as refunded,
           coalesce(n.promised, 0) - coalesce(p.promised, 0) as promised,
           coalesce(n.on_time, 0) - coalesce(p.on_time, 0) as on_time
    from (select * from private.order_list_sums(array(
            select row(null, 1, v.*, null)::private.order_changes
            from public.orders o cross join lateral private.order_version(o) v
            where o.order_date between first_day and last_day)) where key_date is not null) n
    full join (select * from private.order_list_sums(array(
                 select c from private.order_changes c where c.order_date between first_day and last_day))
               where key_date is not null) p
      on p.key_date = n.key_date
  ), kept as (
    select f.* from private.order_day_figures f where f.order_date between first_day and last_day
  ), wrong as (
    -- Every day either side holds, a missing row reading as zeros.
    select coalesce(d.order_date, k.order_date) as order_date, coalesce(d.orders, 0) as orders,
           coalesce(d.counted_orders, 0) as counted_orders, coalesce(d.revenue, 0) as revenue,
           coalesce(d.completed, 0) as completed, coalesce(d.cancelled, 0) as cancelled,
           coalesce(d.refunded, 0) as refunded, coalesce(d.promised, 0) as promised, coalesce(d.on_time, 0) as on_time
    from due d
    full join kept k on k.order_date = d.order_date
    where (coalesce(k.orders, 0), coalesce(k.counted_orders, 0), coalesce(k.revenue, 0), coalesce(k.completed, 0),
           coalesce(k.cancelled, 0), coalesce(k.refunded, 0), coalesce(k.promised, 0), coalesce(k.on_time, 0))
          is distinct from
          (coalesce(d.orders, 0), coalesce(d.counted_orders, 0), coalesce(d.revenue, 0), coalesce(d.completed, 0),
           coalesce(d.cancelled, 0), coalesce(d.refunded, 0), coalesce(d.promised, 0), coalesce(d.on_time, 0))
  ), figures as (
    insert into private.order_day_figures as f
    select w.* from wrong w
    on conflict (order_date) do update
      set orders = excluded.orders, counted_orders = excluded.counted_orders, revenue = excluded.revenue,
          completed = excluded.completed, cancelled = excluded.cancelled, refunded = excluded.refunded,
          promised = excluded.promised, on_time = excluded.on_time
    returning f.order_date
  ), revenue as (
    select coalesce(d.order_date, r.order_date) as order_date, coalesce(d.revenue, 0) as revenue
    from due d
    full join (select * from private.order_daily_revenue where order_date between first_day and last_day) r
      on r.order_date = d.order_date
    where coalesce(r.revenue, 0) <> coalesce(d.revenue, 0)
  ), revenue_set as (
    insert into private.order_daily_revenue as r (order_date, revenue)
    select v.order_date, v.revenue from revenue v where v.revenue <> 0
    on conflict (order_date) do update set revenue = excluded.revenue
    returning r.order_date
  ), revenue_gone as (
    delete from private.order_daily_revenue r
    using revenue v where v.order_date = r.order_date and v.revenue = 0
    returning r.order_date
  )
  select count(distinct x.order_date) into repaired
  from (select order_date from figures union all select order_date from revenue_set
        union all select order_date from revenue_gone) x;
  return repaired;
end
$$;

-- The same check of the orders list's kept figures of each customer with an order on [first_day, last_day]
-- (private.customer_order_figures), against their orders as they are: everything logged is folded first,
-- under the fold's lock, and a customer whose orders change meanwhile (a change still in the log) is left to
-- the next fold, which sums them again anyway. Returns the customers rewritten.
create or replace function private.repair_kept_customers(first_day date, last_day date)
returns integer
language plpgsql security definer set search_path = '' as $$
declare
  customers uuid[];
  repaired integer;
begin
  perform private.fold_order_changes(true);
  customers := array(
    select distinct o.customer_id from public.orders o
    where o.order_date between first_day and last_day
      and not exists (select 1 from private.order_changes c where c.customer_id = o.customer_id));
  with due as (
    select * from private.customer_order_figures_now(customers)
  ), wrong as (
    select coalesce(d.customer_id, k.customer_id) as customer_id, d is null as gone
    from due d
    full join (select * from private.customer_order_figures k where k.customer_id = any (customers)) k
      on k.customer_id = d.customer_id
    where k is distinct from d
  ), written as (
    insert into private.customer_order_figures as k
    select d.* from due d join wrong w on w.customer_id = d.customer_id
    on conflict (customer_id) do update
      set orders = excluded.orders, counted_orders = excluded.counted_orders, revenue = excluded.revenue,
          completed = excluded.completed, cancelled = excluded.cancelled, refunded = excluded.refunded,
          last_order_date = excluded.last_order_date
    returning k.customer_id
  ), removed as (
    delete from private.customer_order_figures k using wrong w where k.customer_id = w.customer_id and w.gone
    returning k.customer_id
  )
  select count(*) into repaired from (select customer_id from written union all select customer_id from removed) x;
  return repaired;
end
$$;

revoke execute on function private.repair_kept_days(date, date), private.repair_kept_customers(date, date)
  from public, anon, authenticated;

grant execute on function private.repair_kept_days(date, date), private.repair_kept_customers(date, date)
  to service_role;

-- The nightly check of the last 35 store days: their kept figures, those of their customers, the health
-- figures of their hours (private.repair_kept_hours, 50_health/30_figure_changes.sql) and their orders' kept
-- costs (private.repair_kept_costs, 30_orders/20_order_goods.sql), where the platform has pg_cron (the
-- local stack runs it on a timer instead: scripts/lib/stack.mjs).
do $$
begin
  if exists (select 1 from pg_available_extensions where name = 'pg_cron') then
    create extension if not exists pg_cron with schema pg_catalog;
    perform cron.schedule('repair-kept-days', '17 3 * * *',
      'select private.repair_kept_days(private.store_today() - 35, private.store_today()),
              private.repair_kept_customers(private.store_today() - 35, private.store_today()),
              private.repair_kept_hours(private.store_day_start(private.store_today() - 35), private.now()),
              private.repair_kept_costs(private.store_today() - 35, private.store_today())');
  end if;
exception when others then
  raise notice 'pg_cron is not usable here (%): the local stack checks the kept days itself', sqlerrm;
end
$$;
