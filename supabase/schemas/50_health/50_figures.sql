-- The figures a health report scores, each as of `as_of`, any past moment; windows are whole 24-hour days,
-- [as_of − 24 h × days, as_of). Order and customer figures are the kept ones as of a 10-minute boundary near
-- `as_of` (30_figure_changes.sql, 35_customer_scores.sql) plus what changed between, read from the few orders
-- with a step then: a report reads a number of hours, not of orders. The figure queries are planned for each
-- call (plan_cache_mode): a generic plan is blind to how many orders the last hour holds.

-- The order and customer figures of the window of `days` days ending at the 10-minute boundary `at`: the
-- changes of the hours before its hour or, because every order's and customer's changes add up to zero,
-- minus those from that hour on, whichever side has fewer hours; and the changes of that hour's 10 minutes
-- before `at`.
create or replace function private.health_figures_before(days integer, at timestamptz)
returns table (
  orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint, revenue numeric,
  previous_revenue numeric, revenue_orders bigint, previous_revenue_orders bigint, customers bigint,
  score_sum bigint, scores_1_mod_3 bigint, scores_2_mod_3 bigint, scores_of_3 bigint, repeat_customers bigint
)
language plpgsql stable set search_path = '' as $$
declare
  at_hour timestamptz := date_bin('1 hour', at, timestamptz '2000-01-01 00:00+00');
  first_hour timestamptz;
  last_hour timestamptz;
  -- 1: the hours in [from_hour, to_hour), before at_hour; −1: minus those from it on; 0: none (nothing
  -- before it, or everything).
  side integer;
  from_hour timestamptz;
  to_hour timestamptz;
begin
  select min(c.hour), max(c.hour) into first_hour, last_hour
  from private.health_figure_changes c where c.days = health_figures_before.days;
  side := case when first_hour is null or at_hour <= first_hour or at_hour > last_hour then 0
               when at_hour - first_hour <= last_hour - at_hour then 1 else -1 end;
  from_hour := case side when 1 then '-infinity' else at_hour end;
  to_hour := case side when -1 then 'infinity' else at_hour end;
  return query
  with h as (
    select coalesce(sum(c.orders), 0) as orders,
           coalesce(sum(c.completed), 0) as completed,
           coalesce(sum(c.cancelled), 0) as cancelled,
           coalesce(sum(c.due), 0) as due,
           coalesce(sum(c.on_time), 0) as on_time,
           coalesce(sum(c.revenue), 0) as revenue,
           coalesce(sum(c.previous_revenue), 0) as previous_revenue,
           coalesce(sum(c.revenue_orders), 0) as revenue_orders,
           coalesce(sum(c.previous_revenue_orders), 0) as previous_revenue_orders,
           coalesce(sum(c.customers), 0) as customers,
           coalesce(sum(c.score_sum), 0) as score_sum,
           coalesce(sum(c.scores_1_mod_3), 0) as scores_1_mod_3,
           coalesce(sum(c.scores_2_mod_3), 0) as scores_2_mod_3,
           coalesce(sum(c.scores_of_3), 0) as scores_of_3,
           coalesce(sum(c.repeat_customers), 0) as repeat_customers
    from private.health_figure_changes c
    where c.days = health_figures_before.days and c.hour >= from_hour and c.hour < to_hour
  ),
  m as (
    select coalesce(sum(f.orders), 0) as orders,
           coalesce(sum(f.completed), 0) as completed,
           coalesce(sum(f.cancelled), 0) as cancelled,
           coalesce(sum(f.due), 0) as due,
           coalesce(sum(f.on_time), 0) as on_time,
           coalesce(sum(f.revenue), 0) as revenue,
           coalesce(sum(f.previous_revenue), 0) as previous_revenue,
           coalesce(sum(f.revenue_orders), 0) as revenue_orders,
           coalesce(sum(f.previous_revenue_orders), 0) as previous_revenue_orders,
           coalesce(sum(f.customers), 0) as customers,
           coalesce(sum(f.score_sum), 0) as score_sum,
           coalesce(sum(f.scores_1_mod_3), 0) as scores_1_mod_3,
           coalesce(sum(f.scores_2_mod_3), 0) as scores_2_mod_3,
           coalesce(sum(f.scores_of_3), 0) as scores_of_3,
           coalesce(sum(f.repeat_customers), 0) as repeat_customers
    from private.health_figure_changes_by_10_minutes f
    where f.days = health_figures_before.days and f.ten_minutes >= at_hour and f.ten_minutes < at
  )
  select (side * h.orders + m.orders)::bigint,
         (side * h.completed + m.completed)::bigint,
         (side * h.cancelled + m.cancelled)::bigint,
         (side * h.due + m.due)::bigint,
         (side * h.on_time + m.on_time)::bigint,
         (side * h.revenue + m.revenue)::numeric,
         (side * h.previous_revenue + m.previous_revenue)::numeric,
         (side * h.revenue_orders + m.revenue_orders)::bigint,
         (side * h.previous_revenue_orders + m.previous_revenue_orders)::bigint,
         (side * h.customers + m.customers)::bigint,
         (side * h.score_sum + m.score_sum)::bigint,
         (side * h.scores_1_mod_3 + m.scores_1_mod_3)::bigint,
         (side * h.scores_2_mod_3 + m.scores_2_mod_3)::bigint,
         (side * h.scores_of_3 + m.scores_of_3)::bigint,
         (side * h.repeat_customers + m.repeat_customers)::bigint
  from h, m;
end
$$;

-- The 10-minute boundary a report as of `as_of` counts from: the start or the end of `as_of`'s 10 minutes,
-- whichever has fewer orders to read between it and `as_of` (either gives the same figures). The orders placed
-- a week before each part stand for those leaving a window, and counting stops once the choice is made, so a
-- busy moment costs a bounded count. Generic plans: each count is one index range, whatever the moment.
create or replace function private.health_boundary(as_of timestamptz)
returns timestamptz
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_generic_plan' as $$
declare
  part_start timestamptz := date_bin('10 minutes', as_of, timestamptz '2000-01-01 00:00+00');
  part_end timestamptz := part_start + interval '10 minutes';
  placed_later bigint;
  week_earlier bigint;
  week_later bigint;
  threshold bigint;
  placed_earlier bigint;
  week interval := private.health_week();
begin
  if as_of = part_start then
    return part_start;
  end if;
  select count(*) filter (where o.ordered_at < as_of - week),
         count(*) filter (where o.ordered_at >= as_of - week),
         (select count(*) from public.orders l where l.ordered_at >= as_of and l.ordered_at < part_end)
    into week_earlier, week_later, placed_later
  from public.orders o
  where o.ordered_at >= part_start - week and o.ordered_at < part_end - week;
  threshold := placed_later + 6 * (week_later - week_earlier);
  select count(*) into placed_earlier
  from (select from public.orders o where o.ordered_at >= part_start and o.ordered_at < as_of
        limit greatest(threshold, 0) + 1) x;
  return case when placed_earlier > threshold then part_end else part_start end;
end
$$;

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

-- RFM of the customers with a counted order (not refunded, not cancelled before `as_of`) in the window:
-- how many, their average score (R + F + M) / 3 (private.health_average_rfm_score), and how many have
-- two orders or more in the 365 days before `as_of`. The average is the one `avg` computes over the
-- customers' scores, each (R + F + M) / 3 as numeric, to the last digit.
create or replace function private.health_window_customer_figures(as_of timestamptz, days integer)
returns table (customers bigint, average_rfm numeric, repeat_customers bigint)
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
declare
  boundary timestamptz := private.health_boundary(as_of);
  lo timestamptz := least(boundary, as_of);
  hi timestamptz := greatest(boundary, as_of);
begin
  return query
  with
  -- Every customer whose state may change between the boundary and `as_of`, [lo, hi): an order placed then, or
  -- as many days before as a window of private.rfm_bands spans (its recency bands, 3, 7, 14 and 30 days, the
  -- scored 90 and the year's 365), or cancelled then. The windows are written out, each its own range of the
  -- orders' index: read from rfm_bands() through a join, the planner knew no range's bounds and read fifty
  -- times the orders a 7-day report needs (test/database/business-health-formulas.test.ts holds them to it).
  stepping as (
      select o.customer_id from public.orders o
      where o.ordered_at >= lo and o.ordered_at < hi
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= lo - interval '72 hours' and o.ordered_at < hi - interval '72 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= lo - interval '168 hours' and o.ordered_at < hi - interval '168 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= lo - interval '336 hours' and o.ordered_at < hi - interval '336 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= lo - interval '720 hours' and o.ordered_at < hi - interval '720 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= lo - interval '2160 hours' and o.ordered_at < hi - interval '2160 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= lo - interval '8760 hours' and o.ordered_at < hi - interval '8760 hours'
      union
      select o.customer_id from public.orders o where o.cancelled_at >= lo and o.cancelled_at < hi
  ),
  -- Their states (private.health_rfm_state_figures) as of `as_of` (+1) and as of the boundary (−1), from the
  -- kept states: the state of the last change before each moment.
  states as (
    select x.sign, coalesce(c.states[case when cardinality(c.changed_at) = 0 then 0
                                          else width_bucket(x.t - interval '1 microsecond', c.changed_at) end], 0) as state
    from stepping s
    join private.customer_scores c on c.customer_id = s.customer_id
    cross join (values (as_of, 1), (boundary, -1)) x(t, sign)
  ),
  change as (
    select coalesce(sum(s.sign * x.customers), 0) as customers,
           coalesce(sum(s.sign * x.score_sum), 0) as score_sum,
           coalesce(sum(s.sign * x.scores_1_mod_3), 0) as scores_1_mod_3,
           coalesce(sum(s.sign * x.scores_2_mod_3), 0) as scores_2_mod_3,
           coalesce(sum(s.sign * x.scores_of_3), 0) as scores_of_3,
           coalesce(sum(s.sign * x.repeat_customers), 0) as repeat_customers
    from states s
    join private.health_rfm_state_figures() x on x.state = s.state and x.days = health_window_customer_figures.days
  ),
  totals as (
    select f.customers + c.customers as customers,
           f.score_sum + c.score_sum as score_sum,
           f.scores_1_mod_3 + c.scores_1_mod_3 as scores_1_mod_3,
           f.scores_2_mod_3 + c.scores_2_mod_3 as scores_2_mod_3,
           f.scores_of_3 + c.scores_of_3 as scores_of_3,
           f.repeat_customers + c.repeat_customers as repeat_customers
    from private.health_figures_before(days, boundary) f, change c
  )
  -- avg's own arithmetic: the sum of the customers' scores / 3, each to 16 decimals (3 / 3 to 20), divided
  -- by their number
  select t.customers,
         round(((t.score_sum - t.scores_1_mod_3 - 2 * t.scores_2_mod_3) / 3)::numeric
               + t.scores_1_mod_3 * 0.3333333333333333 + t.scores_2_mod_3 * 0.6666666666666667,
               case when t.scores_of_3 > 0 then 20 else 16 end) / nullif(t.customers, 0),
         t.repeat_customers
  from totals t;
end
$$;

-- The period's order figures and, for a period longer than a week, its last 7 days' (`week_*`, the
-- trend's current week). PL/pgSQL, so a week's report reads its window once: in a SQL function the
-- week's lateral read ran whatever its condition on `days`.
create or replace function private.health_order_figures(as_of timestamptz, days integer)
returns table (
  orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint,
  revenue numeric, previous_revenue numeric, week_orders bigint, week_completed bigint
)
language plpgsql stable set search_path = '' as $$
declare
  p record;
  w record;
begin
  select * into p from private.health_window_order_figures(as_of, days);
  if days > private.health_week_days() then
    select * into w from private.health_window_order_figures(as_of, private.health_week_days());
  else
    w := p;
  end if;
  return query select p.orders, p.completed, p.cancelled, p.due, p.on_time, p.revenue, p.previous_revenue, w.orders,
                      w.completed;
end
$$;

-- The period's customer figures and, for a period longer than a week, its last 7 days' (`week_*`).
create or replace function private.health_customer_figures(as_of timestamptz, days integer)
returns table (
  customers bigint, average_rfm numeric, repeat_customers bigint, week_customers bigint, week_average_rfm numeric
)
language plpgsql stable set search_path = '' as $$
declare
  p record;
  w record;
begin
  select * into p from private.health_window_customer_figures(as_of, days);
  if days > private.health_week_days() then
    select * into w from private.health_window_customer_figures(as_of, private.health_week_days());
  else
    w := p;
  end if;
  return query select p.customers, p.average_rfm, p.repeat_customers, w.customers, w.average_rfm;
end
$$;

-- The shipped orders of known cost placed in [first_at, before_at) (30_orders/20_order_goods.sql), as they
-- stand now: how many, what they came to, what their goods cost, the margin.
create or replace function private.health_goods_figures(first_at timestamptz, before_at timestamptz)
returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_build_object('orders', count(*), 'revenue', coalesce(sum(s.total_amount), 0),
                            'cost', coalesce(sum(s.goods_cost), 0),
                            'margin', coalesce(sum(s.total_amount), 0) - coalesce(sum(s.goods_cost), 0))
  from private.shipped_order_costs s
  where s.ordered_at >= first_at and s.ordered_at < before_at
$$;

revoke execute on function private.health_goods_figures(timestamptz, timestamptz) from public, anon, authenticated;

grant execute on function private.health_goods_figures(timestamptz, timestamptz) to service_role;

-- The figures behind a report's scores, for the staff (the report carries scores only, CONTRACT §3B): the
-- window of `days` days ending at `as_of` and the one before, each as it stood at its end, so each equals the
-- orders list's summary of that window then. Every order placed is exactly one of counted, cancelled by then
-- and refunded; active customers have a counted order in the window (the RFM population), new ones were
-- created in it; tickets opened in it and resolved by then.
create or replace function private.health_period_figures(as_of timestamptz, days integer)
returns jsonb
language plpgsql stable set search_path = '' as $$
begin
  return (
    select jsonb_object_agg(p.name, jsonb_build_object(
             'from', private.api_timestamp(p.at - make_interval(hours => 24 * days)), 'before', private.api_timestamp(p.at),
             'revenue', o.revenue, 'counted_orders', o.revenue_orders, 'orders', o.orders,
             'completed', o.completed, 'cancelled', o.cancelled, 'refunded', o.orders - o.revenue_orders - o.cancelled,
             'average_order_value', private.average_order_value(o.revenue, o.revenue_orders),
             'active_customers', c.customers,
             'new_customers', (select count(*) from public.customers u
                               where u.created_at >= p.at - make_interval(hours => 24 * days) and u.created_at < p.at),
             'tickets_opened', t.tickets, 'tickets_resolved', t.resolved,
             'goods', private.health_goods_figures(p.at - make_interval(hours => 24 * days), p.at),
             'marketing', private.marketing_window_figures(m.first_day, m.last_day)))
    from (values ('current', as_of), ('previous', as_of - make_interval(hours => 24 * days))) p(name, at)
    cross join lateral private.health_window_order_figures(p.at, days) o
    cross join lateral private.health_window_customer_figures(p.at, days) c
    cross join lateral private.health_ticket_figures(p.at, days) t
    -- Its campaigns, over the store days the window ends on (45_marketing.sql).
    cross join lateral private.marketing_days(p.at, days) m
  );
end
$$;

-- Tickets opened in [first_at, before_at). Resolved means resolved before `as_of`; an unanswered ticket's response
-- time is the time it has waited so far. The response times are summed as intervals, exact and native,
-- and scored once (private.health_average_response_score), not ticket by ticket in numeric, which was
-- three quarters of a 90-day report's ticket figures.
create or replace function private.health_span_ticket_figures(first_at timestamptz, before_at timestamptz, as_of timestamptz)
returns table (
  tickets bigint, resolved bigint, rated bigint, average_rating numeric,
  response_score numeric, average_response_hours numeric
)
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
declare
  bounds record := private.health_response_bounds();
begin
  return query
  with t as (
    select t.resolved_at < as_of as is_resolved, t.satisfaction_rating,
           least(t.first_response_at, as_of) - t.opened_at as response_time
    from public.support_tickets t
    where t.opened_at >= first_at and t.opened_at < before_at
  )
  select count(*),
         count(*) filter (where t.is_resolved),
         count(t.satisfaction_rating) filter (where t.is_resolved),
         avg(t.satisfaction_rating) filter (where t.is_resolved),
         private.health_average_response_score(count(*), sum(least(greatest(t.response_time, bounds.best), bounds.worst))),
         extract(epoch from sum(t.response_time)) / 3600 / nullif(count(*), 0)
  from t;
end
$$;

-- The window of `days` days ending at `as_of`.
create or replace function private.health_ticket_figures(as_of timestamptz, days integer)
returns table (
  tickets bigint, resolved bigint, rated bigint, average_rating numeric,
  response_score numeric, average_response_hours numeric
)
language sql stable set search_path = '' as $$
  select * from private.health_span_ticket_figures(as_of - make_interval(hours => 24 * days), as_of, as_of)
$$;

-- The system dimension's source: this function's own answers in the 15 minutes before `as_of`, and the
-- database's connection usage now. No request logged means no failure seen.
create or replace function private.health_system_figures(as_of timestamptz)
returns table (requests bigint, failures bigint, success_rate numeric, p95_ms numeric, connection_usage numeric)
language sql stable set search_path = '' as $$
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
  private.health_boundary(timestamptz), private.health_figures_before(integer, timestamptz),
  private.health_window_order_figures(timestamptz, integer),
  private.health_window_customer_figures(timestamptz, integer),
  private.health_order_figures(timestamptz, integer), private.health_customer_figures(timestamptz, integer),
  private.health_period_figures(timestamptz, integer), private.health_ticket_figures(timestamptz, integer),
  private.health_span_ticket_figures(timestamptz, timestamptz, timestamptz), private.health_system_figures(timestamptz)
from public, anon, authenticated;

grant execute on function
  private.health_boundary(timestamptz), private.health_figures_before(integer, timestamptz),
  private.health_window_order_figures(timestamptz, integer),
  private.health_window_customer_figures(timestamptz, integer),
  private.health_order_figures(timestamptz, integer), private.health_customer_figures(timestamptz, integer),
  private.health_period_figures(timestamptz, integer), private.health_ticket_figures(timestamptz, integer),
  private.health_span_ticket_figures(timestamptz, timestamptz, timestamptz), private.health_system_figures(timestamptz)
to service_role;

-- The products dimension's figures: active products (active, not deleted, created before `as_of`), the
-- share of them in stock (some free to sell: available_stock, on hand less what open orders hold), and the
-- share that sold in [first_at, before_at): an order's line shipped (a `sale` movement) or a stock-out booked.
-- Stock is read as it is now, also for a past `as_of`, because lots written outside the stock functions
-- leave no ledger to rewind.
create or replace function private.health_span_product_figures(first_at timestamptz, before_at timestamptz, as_of timestamptz)
returns table (products bigint, in_stock_share numeric, sold_share numeric)
language plpgsql stable set search_path = '' as $$
begin
  return query
  with active as (
    select p.id, p.available_stock
    from public.products p
    where p.is_active and p.deleted_at is null and p.created_at < as_of
  ),
  sold as (
    select distinct m.product_id
    from public.stock_movements m
    where m.operation in ('stock_out', 'sale')
      and m.created_at >= first_at and m.created_at < before_at
  )
  select count(*),
         (count(*) filter (where a.available_stock > 0))::numeric / nullif(count(*), 0),
         (count(*) filter (where s.product_id is not null))::numeric / nullif(count(*), 0)
  from active a
  left join sold s on s.product_id = a.id;
end
$$;

-- The window of `days` days ending at `as_of`.
create or replace function private.health_product_figures(as_of timestamptz, days integer)
returns table (products bigint, in_stock_share numeric, sold_share numeric)
language sql stable set search_path = '' as $$
  select * from private.health_span_product_figures(as_of - make_interval(hours => 24 * days), as_of, as_of)
$$;

revoke execute on function private.health_product_figures(timestamptz, integer),
  private.health_span_product_figures(timestamptz, timestamptz, timestamptz) from public, anon, authenticated;

grant execute on function private.health_product_figures(timestamptz, integer),
  private.health_span_product_figures(timestamptz, timestamptz, timestamptz) to service_role;
