-- The health figures kept by 10 minutes and by hour checked and put right too, by the same nightly job.

create or replace function private.repair_kept_hour_sums(first_at timestamptz, before_at timestamptz)
returns integer
language sql security definer set search_path = '' as $$
  with off as (
    select s.days, s.hour, sum(s.orders) as orders, sum(s.completed) as completed, sum(s.cancelled) as cancelled,
           sum(s.due) as due, sum(s.on_time) as on_time, sum(s.revenue) as revenue,
           sum(s.previous_revenue) as previous_revenue, sum(s.revenue_orders) as revenue_orders,
           sum(s.previous_revenue_orders) as previous_revenue_orders
    from (select k.days, date_bin('1 hour', k.ten_minutes, timestamptz '2000-01-01 00:00+00') as hour, k.orders,
                 k.completed, k.cancelled, k.due, k.on_time, k.revenue, k.previous_revenue, k.revenue_orders,
                 k.previous_revenue_orders
          from private.health_figure_changes_by_10_minutes k
          where k.ten_minutes >= first_at and k.ten_minutes < before_at
          union all
          select h.days, h.hour, -h.orders, -h.completed, -h.cancelled, -h.due, -h.on_time, -h.revenue,
                 -h.previous_revenue, -h.revenue_orders, -h.previous_revenue_orders
          from private.health_figure_changes h
          where h.hour >= first_at and h.hour < before_at) s
    group by 1, 2
    having sum(s.orders) <> 0 or sum(s.completed) <> 0 or sum(s.cancelled) <> 0 or sum(s.due) <> 0
        or sum(s.on_time) <> 0 or sum(s.revenue) <> 0 or sum(s.previous_revenue) <> 0 or sum(s.revenue_orders) <> 0
        or sum(s.previous_revenue_orders) <> 0
  ), written as (
    insert into private.health_figure_changes as f (
      days, hour, orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders,
      previous_revenue_orders)
    select * from off
    on conflict (days, hour) do update set
      orders = f.orders + excluded.orders, completed = f.completed + excluded.completed,
      cancelled = f.cancelled + excluded.cancelled, due = f.due + excluded.due, on_time = f.on_time + excluded.on_time,
      revenue = f.revenue + excluded.revenue, previous_revenue = f.previous_revenue + excluded.previous_revenue,
      revenue_orders = f.revenue_orders + excluded.revenue_orders,
      previous_revenue_orders = f.previous_revenue_orders + excluded.previous_revenue_orders
    returning 1
  )
  select count(*)::integer from written
$$;

create or replace function private.repair_kept_hours(first_at timestamptz, before_at timestamptz)
returns integer
language plpgsql security definer set search_path = '' set work_mem = '256MB' as $$
declare
  reach interval := make_interval(hours => 48 * (select max(d) from unnest(private.health_window_days()) d));
  repaired integer;
begin
  -- Whole hours, so each 10 minutes and hour is compared whole.
  first_at := date_bin('1 hour', first_at, timestamptz '2000-01-01 00:00+00');
  before_at := date_bin('1 hour', before_at - interval '1 microsecond', timestamptz '2000-01-01 00:00+00')
    + interval '1 hour';
  with steps as (
    select s.* from private.order_figure_steps(array(
      select row(null, 1, v.*, null)::private.order_changes
      from public.orders o cross join lateral private.order_version(o) v
      where o.ordered_at >= first_at - reach and o.ordered_at < before_at
      union all
      select row(null, -c.sign, c.order_id, c.customer_id, c.status, c.total_amount, c.ordered_at, c.order_date,
                 c.promised_at, c.delivered_at, c.completed_at, c.cancelled_at, c.counted_until,
                 null)::private.order_changes
      from private.order_changes c
      where c.ordered_at >= first_at - reach and c.ordered_at < before_at)) s
    where s.at >= first_at and s.at < before_at
    union all
    select k.ten_minutes, k.days, -k.orders, -k.completed, -k.cancelled, -k.due, -k.on_time, -k.revenue,
           -k.previous_revenue, -k.revenue_orders, -k.previous_revenue_orders
    from private.health_figure_changes_by_10_minutes k
    where k.ten_minutes >= first_at and k.ten_minutes < before_at
  ), off as materialized (
    select s.days, date_bin('10 minutes', s.at, timestamptz '2000-01-01 00:00+00') as ten_minutes,
           sum(s.orders) as orders, sum(s.completed) as completed, sum(s.cancelled) as cancelled, sum(s.due) as due,
           sum(s.on_time) as on_time, sum(s.revenue) as revenue, sum(s.previous_revenue) as previous_revenue,
           sum(s.revenue_orders) as revenue_orders, sum(s.previous_revenue_orders) as previous_revenue_orders
    from steps s
    group by 1, 2
    having sum(s.orders) <> 0 or sum(s.completed) <> 0 or sum(s.cancelled) <> 0 or sum(s.due) <> 0
        or sum(s.on_time) <> 0 or sum(s.revenue) <> 0 or sum(s.previous_revenue) <> 0 or sum(s.revenue_orders) <> 0
        or sum(s.previous_revenue_orders) <> 0
  ), by_10_minutes as (
    insert into private.health_figure_changes_by_10_minutes as f (
      days, ten_minutes, orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders,
      previous_revenue_orders)
    select * from off
    on conflict (days, ten_minutes) do update set
      orders = f.orders + excluded.orders, completed = f.completed + excluded.completed,
      cancelled = f.cancelled + excluded.cancelled, due = f.due + excluded.due, on_time = f.on_time + excluded.on_time,
      revenue = f.revenue + excluded.revenue, previous_revenue = f.previous_revenue + excluded.previous_revenue,
      revenue_orders = f.revenue_orders + excluded.revenue_orders,
      previous_revenue_orders = f.previous_revenue_orders + excluded.previous_revenue_orders
    returning 1
  )
  select count(*) into repaired from by_10_minutes;
  return repaired + private.repair_kept_hour_sums(first_at, before_at);
end
$$;

revoke execute on function private.repair_kept_hour_sums(timestamptz, timestamptz),
  private.repair_kept_hours(timestamptz, timestamptz) from public, anon, authenticated;

grant execute on function private.repair_kept_hour_sums(timestamptz, timestamptz),
  private.repair_kept_hours(timestamptz, timestamptz) to service_role;

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
