-- The figures a health report scores, each read as of `as_of`, so a report can be asked of any past
-- moment. The trend's current week comes from the period's own pass: the customers and orders of the
-- window's last 7 days are a filter of the period's (`week_*` columns), scored with the same `as_of`.
--
-- The figure queries are planned for each call (plan_cache_mode): after five calls PostgreSQL may switch
-- a function's statements to a generic plan, blind to how many orders the window holds.

-- Orders in the window and the previous equal window, as of `as_of`; `week_*` are the last 7 days'.
create or replace function private.health_order_figures(as_of timestamptz, days integer)
returns table (
  orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint,
  revenue numeric, previous_revenue numeric, week_orders bigint, week_completed bigint
)
language plpgsql
stable
set search_path = ''
set work_mem = '64MB'
set plan_cache_mode = 'force_custom_plan'
as $$
declare
  window_start timestamptz := as_of - make_interval(days => days);
  previous_start timestamptz := as_of - make_interval(days => 2 * days);
  week_start timestamptz := as_of - interval '7 days';
begin
  return query
  select
    count(*) filter (where o.in_window),
    count(*) filter (where o.in_window and o.completed_at < as_of),
    count(*) filter (where o.in_window and o.is_cancelled),
    count(*) filter (where o.in_window and o.promised_at < as_of and not o.is_cancelled),
    count(*) filter (where o.in_window and o.promised_at < as_of and not o.is_cancelled
                       and o.delivered_at <= o.promised_at),
    coalesce(sum(o.total_amount) filter (where o.in_window and o.status <> 'refunded' and not o.is_cancelled), 0),
    coalesce(sum(o.total_amount) filter (where not o.in_window and o.status <> 'refunded' and not o.is_cancelled), 0),
    count(*) filter (where o.in_week),
    count(*) filter (where o.in_week and o.completed_at < as_of)
  from (
    select o.ordered_at >= window_start as in_window, o.ordered_at >= week_start as in_week, coalesce(o.cancelled_at < as_of, false) as is_cancelled,
           o.completed_at, o.promised_at, o.delivered_at, o.status, o.total_amount
    from public.orders o
    where o.ordered_at >= previous_start and o.ordered_at < as_of
  ) o;
end
$$;

-- RFM of the customers with a counted order in the window: recency from their last order before
-- `as_of`, frequency and spend over the 365 days before it. A year of member orders is the history's
-- running total at the day before `as_of`'s day minus the one at the day before the year's first day,
-- plus the members ordered on `as_of`'s day before `as_of`, minus those on the first day before the
-- year starts, plus the orders cancelled only after `as_of`. `week_*` are the figures of those with an
-- order in the window's last 7 days (the whole window when it is 7 days).
create or replace function private.health_customer_figures(as_of timestamptz, days integer)
returns table (
  customers bigint, average_rfm numeric, repeat_customers bigint, week_customers bigint, week_average_rfm numeric
)
language plpgsql
stable
set search_path = ''
set work_mem = '64MB'
set plan_cache_mode = 'force_custom_plan'
as $$
declare
  year_start timestamptz := as_of - interval '365 days';
  week_start timestamptz := as_of - interval '7 days';
  last_day date := (as_of at time zone 'UTC')::date;
  first_day date := (year_start at time zone 'UTC')::date;
begin
  return query
  with active as (
    select o.customer_id, max(o.ordered_at) as last_ordered_at
    from public.orders o
    where o.ordered_at >= as_of - make_interval(days => days) and o.ordered_at < as_of
      and o.status <> 'refunded' and not coalesce(o.cancelled_at < as_of, false)
    group by o.customer_id
  ),
  corrections as (
    select e.customer_id, sum(e.n) as n, sum(e.s) as s
    from (
      select o.customer_id,
             case when o.ordered_at >= year_start then 1 else -1 end as n,
             case when o.ordered_at >= year_start then o.total_amount else -o.total_amount end as s
      from public.orders o
      where o.status <> 'refunded' and o.cancelled_at is null
        and ((o.ordered_at >= last_day::timestamp at time zone 'UTC' and o.ordered_at < as_of)
          or (o.ordered_at >= first_day::timestamp at time zone 'UTC' and o.ordered_at < year_start))
      union all
      select o.customer_id, 1, o.total_amount
      from public.orders o
      where o.cancelled_at >= as_of and o.status <> 'refunded'
        and o.ordered_at >= year_start and o.ordered_at < as_of
    ) e
    group by e.customer_id
  ),
  scored as (
    select a.last_ordered_at >= week_start as in_week,
           extract(epoch from as_of - a.last_ordered_at) / 86400 as recency_days,
           (coalesce(h.cum_orders[width_bucket(last_day - 1, h.days)], 0)
             - coalesce(h.cum_orders[width_bucket(first_day - 1, h.days)], 0) + coalesce(c.n, 0))::bigint as frequency,
           coalesce(h.cum_spend[width_bucket(last_day - 1, h.days)], 0)
             - coalesce(h.cum_spend[width_bucket(first_day - 1, h.days)], 0) + coalesce(c.s, 0) as spend
    from active a
    left join private.customer_order_history h on h.customer_id = a.customer_id
    left join corrections c on c.customer_id = a.customer_id
  )
  select f.customers, f.average_rfm, f.repeat_customers,
         case when days > 7 then f.week_customers else f.customers end,
         case when days > 7 then f.week_average_rfm else f.average_rfm end
  from (
    select count(*) as customers,
           private.health_average_rfm_score(array_agg(s.recency_days), array_agg(s.frequency), array_agg(s.spend))
             as average_rfm,
           count(*) filter (where s.frequency >= 2) as repeat_customers,
           count(*) filter (where days > 7 and s.in_week) as week_customers,
           private.health_average_rfm_score(array_agg(s.recency_days) filter (where days > 7 and s.in_week),
                                            array_agg(s.frequency) filter (where days > 7 and s.in_week),
                                            array_agg(s.spend) filter (where days > 7 and s.in_week)) as week_average_rfm
    from scored s
  ) f;
end
$$;

-- Tickets opened in the window. Resolved means resolved before `as_of`; an unanswered ticket's response
-- time is the time it has waited so far.
create or replace function private.health_ticket_figures(as_of timestamptz, days integer)
returns table (
  tickets bigint, resolved bigint, rated bigint, average_rating numeric,
  response_score numeric, average_response_hours numeric
)
language plpgsql
stable
set search_path = ''
set work_mem = '64MB'
set plan_cache_mode = 'force_custom_plan'
as $$
begin
  return query
  with t as (
    select t.resolved_at < as_of as is_resolved,
           case when t.resolved_at < as_of then t.satisfaction_rating end as rating,
           extract(epoch from coalesce(case when t.first_response_at < as_of then t.first_response_at end, as_of)
                              - t.opened_at) / 3600 as response_hours
    from public.support_tickets t
    where t.opened_at >= as_of - make_interval(days => days) and t.opened_at < as_of
  )
  select count(*),
         count(*) filter (where is_resolved),
         count(rating),
         avg(rating),
         private.health_average_response_score(array_agg(response_hours)),
         avg(response_hours)
  from t;
end
$$;

-- The system dimension's source: this function's own answers in the 15 minutes before `as_of`, and the
-- database's connection usage now. No request logged means no failure seen.
create or replace function private.health_system_figures(as_of timestamptz)
returns table (requests bigint, failures bigint, success_rate numeric, p95_ms numeric, connection_usage numeric)
language sql
stable
set search_path = ''
as $$
  select count(*),
         count(*) filter (where r.status >= 500),
         coalesce(1 - (count(*) filter (where r.status >= 500))::numeric / nullif(count(*), 0), 1),
         coalesce(percentile_cont(0.95) within group (order by r.duration_ms)::numeric, 0),
         (select count(*) from pg_catalog.pg_stat_activity)::numeric / current_setting('max_connections')::numeric
  from private.function_requests r
  where r.function_name = 'business-health-analytics'
    and r.at >= as_of - interval '15 minutes' and r.at < as_of
$$;

revoke execute on function
  private.health_order_figures(timestamptz, integer), private.health_customer_figures(timestamptz, integer),
  private.health_ticket_figures(timestamptz, integer), private.health_system_figures(timestamptz)
from public, anon, authenticated;

grant execute on function
  private.health_order_figures(timestamptz, integer), private.health_customer_figures(timestamptz, integer),
  private.health_ticket_figures(timestamptz, integer), private.health_system_figures(timestamptz)
to service_role;

-- The products dimension's figures: active products (active, not deleted, created before `as_of`), the
-- share of them in stock, and the share with an outbound shipment (`stock_out` movement) in the window.
-- Stock is `products.current_stock`, the sum of the lots' available quantity kept by the stock
-- functions: it is read as it is now, also for a past `as_of`, because lots written outside the stock
-- functions leave no ledger to rewind.
create or replace function private.health_product_figures(as_of timestamptz, days integer)
returns table (products bigint, in_stock_share numeric, sold_share numeric)
language plpgsql
stable
set search_path = ''
as $$
begin
  return query
  with active as (
    select p.id, p.current_stock
    from public.products p
    where p.is_active and p.deleted_at is null and p.created_at < as_of
  ),
  sold as (
    select distinct m.product_id
    from public.stock_movements m
    where m.operation = 'stock_out'
      and m.created_at >= as_of - make_interval(days => days) and m.created_at < as_of
  )
  select count(*),
         (count(*) filter (where a.current_stock > 0))::numeric / nullif(count(*), 0),
         (count(*) filter (where s.product_id is not null))::numeric / nullif(count(*), 0)
  from active a
  left join sold s on s.product_id = a.id;
end
$$;

revoke execute on function private.health_product_figures(timestamptz, integer) from public, anon, authenticated;

grant execute on function private.health_product_figures(timestamptz, integer) to service_role;
