-- The figures behind business health, each gathered by one set-based query over a window that ends at
-- `as_of` (exclusive). Timestamps, not current statuses, decide what had happened by then, so a report as
-- of a past moment, the previous week of the trend included, sees the store as it stood at that moment.
-- Raw sums stay inside the database: the report turns them into scores and percentages.

-- An order counts (revenue, RFM) unless refunded or cancelled by `as_of`. Refunds carry no timestamp, so
-- a refunded order counts in no report.
create or replace function private.health_order_figures(as_of timestamptz, days integer)
returns table (
  orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint,
  revenue numeric, previous_revenue numeric
)
language plpgsql
stable
set search_path = ''
set work_mem = '64MB'
as $$
begin
  return query
  select
    count(*) filter (where o.ordered_at >= as_of - make_interval(days => days)),
    count(*) filter (where o.ordered_at >= as_of - make_interval(days => days) and o.completed_at < as_of),
    count(*) filter (where o.ordered_at >= as_of - make_interval(days => days) and o.cancelled_at < as_of),
    count(*) filter (where o.ordered_at >= as_of - make_interval(days => days)
                       and o.promised_at < as_of and not coalesce(o.cancelled_at < as_of, false)),
    count(*) filter (where o.ordered_at >= as_of - make_interval(days => days)
                       and o.promised_at < as_of and not coalesce(o.cancelled_at < as_of, false)
                       and o.delivered_at <= o.promised_at),
    coalesce(sum(o.total_amount) filter (where o.ordered_at >= as_of - make_interval(days => days)
                       and o.status <> 'refunded' and not coalesce(o.cancelled_at < as_of, false)), 0),
    coalesce(sum(o.total_amount) filter (where o.ordered_at < as_of - make_interval(days => days)
                       and o.status <> 'refunded' and not coalesce(o.cancelled_at < as_of, false)), 0)
  from public.orders o
  where o.ordered_at >= as_of - make_interval(days => 2 * days)
    and o.ordered_at < as_of;
end
$$;

-- RFM of the customers with a counted order in the window: recency from their last order before
-- `as_of`, frequency and spend over the 365 days before it.
create or replace function private.health_customer_figures(as_of timestamptz, days integer)
returns table (customers bigint, average_rfm numeric, repeat_customers bigint)
language plpgsql
stable
set search_path = ''
set work_mem = '64MB'
as $$
begin
  return query
  with active as (
    select distinct o.customer_id
    from public.orders o
    where o.ordered_at >= as_of - make_interval(days => days) and o.ordered_at < as_of
      and o.status <> 'refunded' and not coalesce(o.cancelled_at < as_of, false)
  ),
  history as (
    select o.customer_id,
           extract(epoch from as_of - max(o.ordered_at)) / 86400 as recency_days,
           count(*) as frequency,
           sum(o.total_amount) as spend
    from active a
    join public.orders o on o.customer_id = a.customer_id
    where o.ordered_at >= as_of - interval '365 days' and o.ordered_at < as_of
      and o.status <> 'refunded' and not coalesce(o.cancelled_at < as_of, false)
    group by o.customer_id
  )
  select count(*),
         avg(private.health_rfm_score(recency_days, frequency, spend)),
         count(*) filter (where frequency >= 2)
  from history;
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
         avg(private.health_response_score(response_hours)),
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

do $$
declare
  f text;
begin
  foreach f in array array[
    'private.health_order_figures(timestamptz, integer)', 'private.health_customer_figures(timestamptz, integer)',
    'private.health_ticket_figures(timestamptz, integer)', 'private.health_system_figures(timestamptz)'
  ] loop
    execute format('revoke execute on function %s from public, anon, authenticated', f);
    execute format('grant execute on function %s to service_role', f);
  end loop;
end
$$;
