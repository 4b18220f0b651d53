-- Business health 2.0's custom periods (docs/business-health.md, "Custom periods"): up to 366 store days
-- compared with another stretch. Days are counted as of now, as the store's other days are; customers are
-- scored as of the period's end, as the seeds score them at a report's moment (today's recency says nothing of
-- last year). From kept figures only, each day's orders and each customer's counted orders (below), so a year
-- costs about what a week does.

-- Each customer's counted orders (not refunded, not cancelled: private.counts_as_revenue), as they count now:
-- the moments they were placed, in order, and the running total of their amounts (the n-th is the first n
-- orders' sum). So a customer's RFM as of any moment is three binary searches: how many were placed before it,
-- before the year before it and before a period's start. Kept by the fold of the orders' change log
-- (60_order_changes_fold.sql), customer by customer from the batch's net.
create table private.customer_counted_orders (
  customer_id uuid primary key,
  placed_at timestamptz[] not null,
  running_spend numeric[] not null,
  constraint customer_counted_orders_aligned check (cardinality(placed_at) = cardinality(running_spend)),
  constraint customer_counted_orders_spend_finite
    check (not running_spend operator(pg_catalog.&&) '{NaN,Infinity,-Infinity}'::numeric[])
);

alter table private.customer_counted_orders enable row level security;

create policy "admins read customer counted orders" on private.customer_counted_orders
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.customer_counted_orders from public, anon, authenticated, service_role;

grant select on private.customer_counted_orders to authenticated, service_role;

-- One batch of the log into the kept counted orders: for each customer whose counted orders the batch changes
-- (net: a status move takes an order away and adds it back the same), their kept orders plus the batch's net,
-- in order, with running totals. The common batch only adds orders placed after a customer's kept ones: those
-- are appended, their running totals on from the kept one; any other change (an order taken away, or placed
-- earlier) merges the customer's kept orders with the batch's. Reads no order.
create or replace function private.apply_counted_order_changes(changes private.order_changes[])
returns void
language plpgsql set search_path = '' as $$
begin
  with net as (
    select c.customer_id, c.ordered_at, c.total_amount as amount, sum(c.sign) as n
    from unnest(changes) c
    where private.counts_as_revenue(c.counted_until)
    group by c.customer_id, c.ordered_at, c.total_amount
    having sum(c.sign) <> 0
  ),
  touched as (
    select n.customer_id, k.placed_at, k.running_spend,
           bool_and(n.n > 0) and coalesce(min(n.ordered_at) >= k.placed_at[cardinality(k.placed_at)], true) as appends
    from net n
    left join private.customer_counted_orders k on k.customer_id = n.customer_id
    group by n.customer_id, k.placed_at, k.running_spend
  ),
  merged as (
    -- What each customer has after the batch that adds to their kept orders, or, for the others, all of it.
    select u.customer_id, u.ordered_at, u.amount, sum(u.n) as n
    from (select t.customer_id, e.placed_at as ordered_at, e.spend - coalesce(t.running_spend[e.i - 1], 0) as amount,
                 1 as n
          from touched t
          cross join lateral unnest(t.placed_at, t.running_spend) with ordinality e(placed_at, spend, i)
          where not t.appends
          union all
          select n.customer_id, n.ordered_at, n.amount, n.n from net n) u
    group by u.customer_id, u.ordered_at, u.amount
  ),
  each_order as (
    select m.customer_id, m.ordered_at, m.amount,
           sum(m.amount) over (partition by m.customer_id order by m.ordered_at, m.amount rows unbounded preceding)
             as running
    from merged m
    cross join generate_series(1, m.n)
  ),
  arrays as (
    select t.customer_id,
           case when t.appends then coalesce(t.placed_at, '{}') end
             || array_agg(e.ordered_at order by e.ordered_at, e.running) filter (where e.ordered_at is not null)
             as placed_at,
           case when t.appends then coalesce(t.running_spend, '{}') end
             || array_agg(coalesce(t.running_spend[cardinality(t.running_spend)], 0) * t.appends::integer + e.running
                          order by e.ordered_at, e.running) filter (where e.ordered_at is not null)
             as running_spend
    from touched t
    left join each_order e on e.customer_id = t.customer_id
    group by t.customer_id, t.appends, t.placed_at, t.running_spend
  ),
  emptied as (
    delete from private.customer_counted_orders k
    using arrays a
    where k.customer_id = a.customer_id and coalesce(cardinality(a.placed_at), 0) = 0
  )
  insert into private.customer_counted_orders as k (customer_id, placed_at, running_spend)
  select a.customer_id, a.placed_at, a.running_spend
  from arrays a
  where cardinality(a.placed_at) > 0
  order by a.customer_id
  on conflict (customer_id) do update set placed_at = excluded.placed_at, running_spend = excluded.running_spend;
end
$$;

revoke execute on function private.apply_counted_order_changes(private.order_changes[])
from public, anon, authenticated, service_role;

-- A stretch of store days a request names, checked: both days given (`first_name`, `last_name`), the last on or
-- after the first, 366 days at most, to today at most. A 400 INVALID_PARAMETER names what is wrong.
create or replace function private.health_check_days(first_day date, last_day date, first_name text, last_name text)
returns void
language plpgsql stable set search_path = '' as $$
begin
  if first_day is null or last_day is null then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'A custom period needs its first and last day',
      jsonb_build_object('parameter', case when first_day is null then first_name else last_name end, 'provided', null,
                         'expected', jsonb_build_array('a store day, YYYY-MM-DD')));
  end if;
  if last_day < first_day or last_day > private.store_today() or last_day - first_day + 1 > 366 then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'Invalid custom period', jsonb_build_object(
      'parameter', last_name, 'provided', last_day,
      'expected', jsonb_build_array(format('a store day from %s to %s: 366 days at most, today at most',
                                           first_day, least(private.store_today(), first_day + 365)))));
  end if;
end
$$;

revoke execute on function private.health_check_days(date, date, text, text) from public, anon, authenticated;

grant execute on function private.health_check_days(date, date, text, text) to service_role;

-- The custom period a request names, checked, and the period it is compared with: `from` to `to` against
-- `previous` (as many days just before; the default), `last_year` (as many days from the same date a year
-- before, 29 February's a year on being 28 February: 2025-02-28..03-01 against 2024-02-28..02-29) or `custom`
-- (compare_from to compare_to, checked alike).
create or replace function private.health_custom_days(
  from_day date, to_day date, compare text, compare_from date, compare_to date,
  out first_day date, out last_day date, out compare_first date, out compare_last date
)
language plpgsql stable set search_path = '' as $$
begin
  perform private.health_check_days(from_day, to_day, 'from', 'to');
  if coalesce(compare, 'previous') <> all (enum_range(null::public.health_comparison)::text[]) then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'Invalid comparison', jsonb_build_object(
      'parameter', 'compare', 'provided', compare, 'expected', to_jsonb(enum_range(null::public.health_comparison))));
  end if;
  if compare = 'custom' then
    perform private.health_check_days(compare_from, compare_to, 'compare_from', 'compare_to');
  end if;
  first_day := from_day;
  last_day := to_day;
  compare_first := case coalesce(compare, 'previous')
    when 'previous' then from_day - (to_day - from_day + 1)
    when 'last_year' then (from_day - interval '1 year')::date
    else compare_from end;
  compare_last := case coalesce(compare, 'previous')
    when 'previous' then from_day - 1
    when 'last_year' then (from_day - interval '1 year')::date + (to_day - from_day)
    else compare_to end;
end
$$;

revoke execute on function private.health_custom_days(date, date, text, date, date) from public, anon, authenticated;

grant execute on function private.health_custom_days(date, date, text, date, date) to service_role;

-- The instants of the store days [first_day, last_day]: from the first one's midnight to the next midnight
-- after the last one, or to `as_of` while that day is still going.
create or replace function private.health_days_span(first_day date, last_day date, as_of timestamptz,
                                                    out first_at timestamptz, out before_at timestamptz)
language sql stable set search_path = '' as $$
  select private.store_day_start(first_day), least(private.store_day_start(last_day + 1), as_of)
$$;

revoke execute on function private.health_days_span(date, date, timestamptz) from public, anon, authenticated;

grant execute on function private.health_days_span(date, date, timestamptz) to service_role;

-- The order figures of the store days [first_day, last_day] as they are now, from the kept days: placed,
-- completed, cancelled, refunded, counted and their revenue, and due (promised a delivery before `as_of`, not
-- cancelled) with those delivered by their promise: the kept days count every promise, so the few promised
-- for later are taken back, found through the promised_at index.
create or replace function private.health_days_order_figures(first_day date, last_day date, as_of timestamptz)
returns table (orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint, revenue numeric,
               revenue_orders bigint, refunded bigint)
-- Planned for each call, on its days and moment: the generic plan scanned the orders.
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
begin
  return query
  select k.orders, k.completed, k.cancelled, k.promised - l.promised, k.on_time - l.on_time, k.revenue, k.counted_orders,
         k.refunded
  from (select coalesce(sum(f.orders), 0)::bigint as orders, coalesce(sum(f.completed), 0)::bigint as completed,
               coalesce(sum(f.cancelled), 0)::bigint as cancelled, coalesce(sum(f.promised), 0)::bigint as promised,
               coalesce(sum(f.on_time), 0)::bigint as on_time, coalesce(sum(f.revenue), 0) as revenue,
               coalesce(sum(f.counted_orders), 0)::bigint as counted_orders, coalesce(sum(f.refunded), 0)::bigint as refunded
        from private.order_day_figures f
        where f.order_date between first_day and last_day) k,
       (select count(*) as promised, count(*) filter (where o.delivered_at <= o.promised_at) as on_time
        from public.orders o
        where o.promised_at >= as_of and o.cancelled_at is null and o.order_date between first_day and last_day) l;
end
$$;

revoke execute on function private.health_days_order_figures(date, date, timestamptz) from public, anon, authenticated;

grant execute on function private.health_days_order_figures(date, date, timestamptz) to service_role;

-- RFM of the customers with a counted order placed in [first_at, before_at), each scored as of before_at by the
-- seeds' bands (private.rfm_bands): how many, their average score (R + F + M) / 3 and how many have two orders
-- or more in the year, from their orders as they count now (private.customer_counted_orders). Scores are
-- summed as integers and divided once: a quarter of the time of a numeric average per customer.
create or replace function private.health_span_customer_figures(first_at timestamptz, before_at timestamptz)
returns table (customers bigint, average_rfm numeric, repeat_customers bigint)
language sql stable set search_path = '' as $$
  with bands as (
    select array(select -d::numeric from unnest(r.recency_band_days) d order by 1) as negated_recency,
           r.frequency_band_orders::bigint[] as frequency, r.spend_bands as spend, r.year_days
    from private.rfm_bands() r
  ),
  placed as (
    select k.placed_at, k.running_spend,
           width_bucket(before_at - interval '1 microsecond', k.placed_at) as before_end,
           width_bucket(first_at - interval '1 microsecond', k.placed_at) as before_start,
           width_bucket(before_at - make_interval(hours => 24 * b.year_days) - interval '1 microsecond', k.placed_at)
             as before_year
    from private.customer_counted_orders k, bands b
  ),
  scored as (
    select 1 + width_bucket(-(extract(epoch from before_at - p.placed_at[p.before_end]) / 86400), b.negated_recency)
           + 1 + width_bucket((p.before_end - p.before_year)::bigint, b.frequency)
           + 1 + width_bucket(p.running_spend[p.before_end] - coalesce(p.running_spend[p.before_year], 0), b.spend) as score,
           p.before_end - p.before_year >= b.frequency[1] as repeat
    from placed p, bands b
    where p.before_end > p.before_start
  )
  select count(*), sum(s.score)::numeric / 3 / nullif(count(*), 0), count(*) filter (where s.repeat)
  from scored s
$$;

revoke execute on function private.health_span_customer_figures(timestamptz, timestamptz) from public, anon, authenticated;

grant execute on function private.health_span_customer_figures(timestamptz, timestamptz) to service_role;

-- A custom period's order figures and its comparison's: the period's (as private.health_order_figures names
-- them, previous_revenue being the comparison's revenue) and the comparison's placed and completed orders, the
-- trend's operational efficiency.
create or replace function private.health_custom_order_figures(
  first_day date, last_day date, compare_first date, compare_last date, as_of timestamptz
)
returns table (
  orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint, revenue numeric, previous_revenue numeric,
  previous_orders bigint, previous_completed bigint
)
language sql stable set search_path = '' as $$
  select w.orders, w.completed, w.cancelled, w.due, w.on_time, w.revenue, c.revenue, c.orders, c.completed
  from private.health_days_order_figures(first_day, last_day, as_of) w,
       private.health_days_order_figures(compare_first, compare_last, as_of) c
$$;

revoke execute on function private.health_custom_order_figures(date, date, date, date, timestamptz)
from public, anon, authenticated;

grant execute on function private.health_custom_order_figures(date, date, date, date, timestamptz) to service_role;

-- A custom period's customer figures, and its comparison's average RFM score (the trend's customer quality).
create or replace function private.health_custom_customer_figures(
  first_at timestamptz, before_at timestamptz, compare_first_at timestamptz, compare_before_at timestamptz
)
returns table (customers bigint, average_rfm numeric, repeat_customers bigint, previous_average_rfm numeric)
language sql stable set search_path = '' as $$
  select w.customers, w.average_rfm, w.repeat_customers, c.average_rfm
  from private.health_span_customer_figures(first_at, before_at) w,
       private.health_span_customer_figures(compare_first_at, compare_before_at) c
$$;

revoke execute on function private.health_custom_customer_figures(timestamptz, timestamptz, timestamptz, timestamptz)
from public, anon, authenticated;

grant execute on function private.health_custom_customer_figures(timestamptz, timestamptz, timestamptz, timestamptz)
to service_role;

-- The figures of a custom period and of the period it is compared with, for the staff (the figures route), as
-- private.health_period_figures gives a rolling window's, each window's orders as they are now: so each equals
-- the orders list's summary of its days (no as_of). Customers are scored as of each window's end.
create or replace function private.health_days_period_figures(
  first_day date, last_day date, compare_first date, compare_last date, as_of timestamptz
)
returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_object_agg(w.name, jsonb_build_object(
           'from', private.api_timestamp(s.first_at), 'before', private.api_timestamp(s.before_at),
           'first_day', w.first_day, 'last_day', w.last_day,
           'revenue', o.revenue, 'counted_orders', o.revenue_orders, 'orders', o.orders,
           'completed', o.completed, 'cancelled', o.cancelled, 'refunded', o.refunded,
           'average_order_value', private.average_order_value(o.revenue, o.revenue_orders),
           'active_customers', c.customers,
           'new_customers', (select count(*) from public.customers u where u.created_at >= s.first_at and u.created_at < s.before_at),
           'tickets_opened', t.tickets, 'tickets_resolved', t.resolved,
           'goods', private.health_goods_figures(s.first_at, s.before_at),
           'marketing', private.marketing_window_figures(w.first_day, w.last_day)))
  from (values ('current', first_day, last_day), ('previous', compare_first, compare_last)) w(name, first_day, last_day)
  cross join lateral private.health_days_span(w.first_day, w.last_day, as_of) s
  cross join lateral private.health_days_order_figures(w.first_day, w.last_day, as_of) o
  cross join lateral private.health_span_customer_figures(s.first_at, s.before_at) c
  cross join lateral private.health_span_ticket_figures(s.first_at, s.before_at, as_of) t
$$;

revoke execute on function private.health_days_period_figures(date, date, date, date, timestamptz)
from public, anon, authenticated;

grant execute on function private.health_days_period_figures(date, date, date, date, timestamptz) to service_role;
