-- Issue 21: the figures behind business health's scores for the staff's screen, for administrators only
-- (health.business_figures); the window's order figures also return the counted orders behind its revenue
-- (a new output column, hence drop and create).

drop function private.health_window_order_figures(timestamptz, integer);

-- Orders in the window [as_of − days, as_of) and in the equal window before it, as of `as_of`: orders,
-- completed before `as_of`, cancelled before it, due (promised before it, not cancelled) and on time
-- among those, the counted revenue (not refunded, not cancelled before `as_of`) of both windows, and the
-- counted orders behind the window's.
create or replace function private.health_window_order_figures(as_of timestamptz, days integer)
returns table (
  orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint, revenue numeric, previous_revenue numeric,
  revenue_orders bigint
)
language plpgsql
stable
set search_path = ''
set plan_cache_mode = 'force_custom_plan'
as $$
declare
  span interval := make_interval(hours => 24 * days);
  boundary timestamptz := private.health_boundary(as_of);
  lo timestamptz := least(boundary, as_of);
  hi timestamptz := greatest(boundary, as_of);
begin
  return query
  with
  -- Every order with a step between the boundary and `as_of`, [lo, hi): ordered then, or one or two windows before, or
  -- completed, promised or cancelled then.
  stepping as (
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.status, o.total_amount
    from public.orders o where o.ordered_at >= lo and o.ordered_at < hi
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.status, o.total_amount
    from public.orders o where o.ordered_at >= lo - span and o.ordered_at < hi - span
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.status, o.total_amount
    from public.orders o where o.ordered_at >= lo - 2 * span and o.ordered_at < hi - 2 * span
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.status, o.total_amount
    from public.orders o where o.completed_at >= lo and o.completed_at < hi
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.status, o.total_amount
    from public.orders o where o.promised_at >= lo and o.promised_at < hi
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.status, o.total_amount
    from public.orders o where o.cancelled_at >= lo and o.cancelled_at < hi
  ),
  -- Their figures as of `as_of` (+1) and as of the boundary (−1).
  stepped as (
    select x.sign, o.ordered_at >= x.t - span and o.ordered_at < x.t as in_window,
           o.ordered_at >= x.t - 2 * span and o.ordered_at < x.t - span as in_previous,
           coalesce(o.cancelled_at < x.t, false) as is_cancelled, o.completed_at < x.t as is_completed,
           o.promised_at < x.t as is_promised, o.delivered_at <= o.promised_at as delivered_on_time,
           o.status, o.total_amount
    from stepping o
    cross join (values (as_of, 1), (boundary, -1)) x(t, sign)
  ),
  change as (
    select coalesce(sum(s.sign) filter (where s.in_window), 0) as orders,
           coalesce(sum(s.sign) filter (where s.in_window and s.is_completed), 0) as completed,
           coalesce(sum(s.sign) filter (where s.in_window and s.is_cancelled), 0) as cancelled,
           coalesce(sum(s.sign) filter (where s.in_window and s.is_promised and not s.is_cancelled), 0) as due,
           coalesce(sum(s.sign) filter (where s.in_window and s.is_promised and not s.is_cancelled and s.delivered_on_time), 0)
             as on_time,
           coalesce(sum(s.sign * s.total_amount)
                      filter (where s.in_window and s.status <> 'refunded' and not s.is_cancelled), 0) as revenue,
           coalesce(sum(s.sign * s.total_amount)
                      filter (where s.in_previous and s.status <> 'refunded' and not s.is_cancelled), 0) as previous_revenue,
           coalesce(sum(s.sign) filter (where s.in_window and s.status <> 'refunded' and not s.is_cancelled), 0)
             as revenue_orders,
           coalesce(sum(s.sign) filter (where s.in_previous and s.status <> 'refunded' and not s.is_cancelled), 0)
             as previous_revenue_orders
    from stepped s
  )
  -- Revenue is the sum of the counted orders' amounts, and 0 when there is none (as sum's coalesce gives).
  select f.orders + c.orders, f.completed + c.completed, f.cancelled + c.cancelled, f.due + c.due,
         f.on_time + c.on_time,
         case when f.revenue_orders + c.revenue_orders = 0 then 0 else f.revenue + c.revenue end,
         case when f.previous_revenue_orders + c.previous_revenue_orders = 0 then 0
              else f.previous_revenue + c.previous_revenue end,
         f.revenue_orders + c.revenue_orders
  from private.health_figures_before(days, boundary) f, change c;
end
$$;

-- The figures behind a report's scores, for the staff (the report itself carries scores only, CONTRACT
-- §3B): for the window of `days` days ending at `as_of` (`current`) and the one before it (`previous`),
-- each as it stood at its end, so each equals the orders list's summary of its window at that moment:
-- counted revenue and orders (not refunded, not cancelled by then), orders placed, completed and
-- cancelled by then, average order value, active customers (a counted order in the window: the RFM
-- population), new customers (created in the window), tickets opened in it and resolved by then.
create or replace function private.health_period_figures(as_of timestamptz, days integer)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
begin
  return (
    select jsonb_object_agg(p.name, jsonb_build_object(
             'from', private.api_timestamp(p.at - make_interval(hours => 24 * days)), 'before', private.api_timestamp(p.at),
             'revenue', o.revenue, 'counted_orders', o.revenue_orders, 'orders', o.orders,
             'completed', o.completed, 'cancelled', o.cancelled,
             'average_order_value', round(o.revenue / nullif(o.revenue_orders, 0), 2),
             'active_customers', c.customers,
             'new_customers', (select count(*) from public.customers u
                               where u.created_at >= p.at - make_interval(hours => 24 * days) and u.created_at < p.at),
             'tickets_opened', t.tickets, 'tickets_resolved', t.resolved))
    from (values ('current', as_of), ('previous', as_of - make_interval(hours => 24 * days))) p(name, at)
    cross join lateral private.health_window_order_figures(p.at, days) o
    cross join lateral private.health_window_customer_figures(p.at, days) c
    cross join lateral private.health_ticket_figures(p.at, days) t
  );
end
$$;

revoke execute on function private.health_window_order_figures(timestamptz, integer), private.health_period_figures(timestamptz, integer)
from public, anon, authenticated;

grant execute on function private.health_window_order_figures(timestamptz, integer), private.health_period_figures(timestamptz, integer)
to service_role;

-- The figures behind the scores (private.health_period_figures), for administrators and the service key
-- only: they are amounts, which the report, open to anyone, never carries.
create or replace function health.business_figures(period text)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  days integer := case period when '7d' then 7 when '30d' then 30 when '90d' then 90 end;
begin
  if not private.is_admin() then
    perform private.raise_api_error(403, 'INSUFFICIENT_PERMISSION', 'Administrator permission is required to see the figures');
  end if;
  if days is null then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'Invalid period', jsonb_build_object(
      'parameter', 'period', 'provided', period, 'expected', jsonb_build_array('7d', '30d', '90d')));
  end if;
  return jsonb_build_object('period', period, 'as_of', private.api_timestamp(now())) || private.health_period_figures(now(), days);
end
$$;

revoke execute on function health.business_figures(text) from public, anon;

grant execute on function health.business_figures(text) to authenticated, service_role;
