-- An order's figures at a moment in one definition, private.order_figures_at: business health's windows and
-- the store's days read it (the orders list, from the functions, too), where each wrote the rule out itself.
-- The reports' answers are unchanged.

-- An order's place in the figures at a moment (docs/business-health.md), the one definition that business
-- health's windows, the store's days and the orders list read: counted (its revenue counts: neither refunded
-- nor cancelled by then), completed by then, cancelled by then, refunded (neither counted nor cancelled by
-- then: every order placed is exactly one of counted, cancelled and refunded), due (promised by then and not
-- cancelled) and on time among those. No `set search_path`, so that PostgreSQL inlines it into the query that
-- reads it, as if its columns were written out there (scripts/lib/advisors.mjs); it names nothing to resolve.
create or replace function private.order_figures_at(
  moment timestamptz, counted_until timestamptz, completed_at timestamptz, cancelled_at timestamptz,
  promised_at timestamptz, delivered_at timestamptz
)
returns table (counted boolean, completed boolean, cancelled boolean, refunded boolean, due boolean, on_time boolean)
language sql immutable parallel safe as $$
  select f.counted, f.completed, f.cancelled, not f.counted and not f.cancelled, f.due,
         f.due and coalesce(delivered_at <= promised_at, false)
  from (select counted_until >= moment as counted, coalesce(completed_at < moment, false) as completed,
               coalesce(cancelled_at < moment, false) as cancelled,
               coalesce(promised_at < moment, false) and not coalesce(cancelled_at < moment, false) as due) f
$$;

revoke execute on function private.order_figures_at(timestamptz, timestamptz, timestamptz, timestamptz, timestamptz,
  timestamptz) from public, anon;

grant execute on function private.order_figures_at(timestamptz, timestamptz, timestamptz, timestamptz, timestamptz,
  timestamptz) to authenticated, service_role;

-- Orders in the window [as_of − days, as_of) and in the equal window before it, as of `as_of`: orders,
-- completed before `as_of`, cancelled before it, due (promised before it, not cancelled) and on time
-- among those, the counted revenue (not refunded, not cancelled before `as_of`) of both windows, and the
-- counted orders behind the window's.
create or replace function private.health_window_order_figures(as_of timestamptz, days integer)
returns table (
  orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint, revenue numeric, previous_revenue numeric,
  revenue_orders bigint
)
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
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
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.counted_until, o.total_amount
    from public.orders o where o.ordered_at >= lo and o.ordered_at < hi
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.counted_until, o.total_amount
    from public.orders o where o.ordered_at >= lo - span and o.ordered_at < hi - span
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.counted_until, o.total_amount
    from public.orders o where o.ordered_at >= lo - 2 * span and o.ordered_at < hi - 2 * span
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.counted_until, o.total_amount
    from public.orders o where o.completed_at >= lo and o.completed_at < hi
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.counted_until, o.total_amount
    from public.orders o where o.promised_at >= lo and o.promised_at < hi
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.counted_until, o.total_amount
    from public.orders o where o.cancelled_at >= lo and o.cancelled_at < hi
  ),
  -- Their figures as of `as_of` (+1) and as of the boundary (−1) (private.order_figures_at).
  stepped as (
    select x.sign, o.ordered_at >= x.t - span and o.ordered_at < x.t as in_window,
           o.ordered_at >= x.t - 2 * span and o.ordered_at < x.t - span as in_previous,
           k.cancelled, k.completed, k.due, k.on_time, k.counted, o.total_amount
    from stepping o
    cross join (values (as_of, 1), (boundary, -1)) x(t, sign)
    cross join lateral private.order_figures_at(x.t, o.counted_until, o.completed_at, o.cancelled_at, o.promised_at,
                                                o.delivered_at) k
  ),
  change as (
    select coalesce(sum(s.sign) filter (where s.in_window), 0) as orders,
           coalesce(sum(s.sign) filter (where s.in_window and s.completed), 0) as completed,
           coalesce(sum(s.sign) filter (where s.in_window and s.cancelled), 0) as cancelled,
           coalesce(sum(s.sign) filter (where s.in_window and s.due), 0) as due,
           coalesce(sum(s.sign) filter (where s.in_window and s.on_time), 0) as on_time,
           coalesce(sum(s.sign * s.total_amount) filter (where s.in_window and s.counted), 0) as revenue,
           coalesce(sum(s.sign * s.total_amount) filter (where s.in_previous and s.counted), 0) as previous_revenue,
           coalesce(sum(s.sign) filter (where s.in_window and s.counted), 0) as revenue_orders,
           coalesce(sum(s.sign) filter (where s.in_previous and s.counted), 0) as previous_revenue_orders
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

-- The store's today so far and yesterday (store days, private.store_day), for administrators and the
-- service key: each day's orders as the figures route and the orders list count a window, as of now (a
-- cancellation or refund since the day ended takes the order out of its day's revenue, as it does out of
-- attribution's daily revenue and the orders list's day). Read from the orders themselves over the ordered_at index: a day is a few
-- thousand orders at most, where the kept figures are binned for 7-, 30- and 90-day windows.
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
                 'completed', f.completed, 'cancelled', f.cancelled, 'refunded', f.refunded))
        from (values ('today', today, private.store_day_start(today), as_of),
                     ('yesterday', today - 1, private.store_day_start(today - 1), private.store_day_start(today)))
             d(name, day, first, until)
        cross join lateral (
          select coalesce(sum(o.total_amount) filter (where k.counted), 0) as revenue,
                 count(*) filter (where k.counted) as counted_orders,
                 count(*) as orders,
                 count(*) filter (where k.completed) as completed,
                 count(*) filter (where k.cancelled) as cancelled,
                 count(*) filter (where k.refunded) as refunded
          from public.orders o
          cross join lateral private.order_figures_at(as_of, o.counted_until, o.completed_at, o.cancelled_at,
                                                      o.promised_at, o.delivered_at) k
          where o.ordered_at >= d.first and o.ordered_at < d.until) f);
end
$$;
