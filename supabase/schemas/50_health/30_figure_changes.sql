-- The order and customer figures of a health report, kept as they change (docs/business-health.md, "Order and
-- customer figures from kept changes"): each order and customer adds a step to every window [T − P, T), kept
-- summed by UTC hour and by 10 minutes, added by the fold alone. The figures are the columns of
-- private.health_figure_changes, listed there once and written out column by column elsewhere (plain columns
-- sum fastest); test/database/business-health-formulas.test.ts holds them to that list.

create table private.health_figure_changes (
  -- The rolling periods' days (private.health_window_days), written out: a call in the check would cost every
  -- row a fold adds (test/database/business-health-formulas.test.ts holds the two lists equal).
  days smallint not null constraint health_figure_changes_days check (days in (7, 30, 90)),
  hour timestamptz not null,
  -- Order figures of the window [T − days, T): orders in it, completed and cancelled before T, due (promised
  -- before T and not cancelled) and on time among those, counted revenue (not refunded, not cancelled
  -- before T) and the counted orders behind it, and the same two of the equal window before it.
  orders integer not null default 0,
  completed integer not null default 0,
  cancelled integer not null default 0,
  due integer not null default 0,
  on_time integer not null default 0,
  revenue numeric not null default 0
    constraint health_figure_changes_revenue_finite check (revenue > '-Infinity' and revenue < 'Infinity'),
  previous_revenue numeric not null default 0
    constraint health_figure_changes_previous_revenue_finite
      check (previous_revenue > '-Infinity' and previous_revenue < 'Infinity'),
  revenue_orders integer not null default 0,
  previous_revenue_orders integer not null default 0,
  -- The RFM population (customers with a counted order in the window), the sum of their scores R + F + M,
  -- how many of those scores leave 1 and 2 divided by 3, how many are 3, and the repeat customers (two
  -- orders or more in the year). From these the report adds the scores / 3 exactly as avg adds them: each
  -- to 16 decimals (.3333333333333333 or .6666666666666667), except 3 / 3, which carries 20.
  customers integer not null default 0,
  score_sum integer not null default 0,
  scores_1_mod_3 integer not null default 0,
  scores_2_mod_3 integer not null default 0,
  scores_of_3 integer not null default 0,
  repeat_customers integer not null default 0,
  primary key (days, hour)
);

alter table private.health_figure_changes enable row level security;

create policy "admins read health figure changes" on private.health_figure_changes
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.health_figure_changes from public, anon, authenticated, service_role;

-- The same changes by 10 minutes, kept beside the hours by the same folds: a report counts from the 10-minute
-- boundary next to its moment, the hours before that boundary's hour plus at most five of these, so what it
-- reads from the orders themselves is minutes of them, not up to half an hour (docs/performance.md).
create table private.health_figure_changes_by_10_minutes (
  days smallint not null constraint health_figure_changes_by_10_minutes_days check (days in (7, 30, 90)),
  ten_minutes timestamptz not null,
  orders integer not null default 0,
  completed integer not null default 0,
  cancelled integer not null default 0,
  due integer not null default 0,
  on_time integer not null default 0,
  revenue numeric not null default 0
    constraint health_figure_changes_by_10_minutes_revenue_finite
      check (revenue > '-Infinity' and revenue < 'Infinity'),
  previous_revenue numeric not null default 0
    constraint health_figure_changes_by_10_minutes_previous_revenue_finite
      check (previous_revenue > '-Infinity' and previous_revenue < 'Infinity'),
  revenue_orders integer not null default 0,
  previous_revenue_orders integer not null default 0,
  customers integer not null default 0,
  score_sum integer not null default 0,
  scores_1_mod_3 integer not null default 0,
  scores_2_mod_3 integer not null default 0,
  scores_of_3 integer not null default 0,
  repeat_customers integer not null default 0,
  primary key (days, ten_minutes)
);

alter table private.health_figure_changes_by_10_minutes enable row level security;

create policy "admins read health figure changes by 10 minutes" on private.health_figure_changes_by_10_minutes
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.health_figure_changes_by_10_minutes from public, anon, authenticated, service_role;

-- Each customer's RFM state over time: from changed_at[i] on the customer is in states[i], before changed_at[1]
-- in state 0; only the moments it changes, kept by the fold, found by a binary search. No foreign key to the
-- customer: one deleted with their orders before the fold still has states to take back out of the figure
-- changes, which the fold does when it walks their (now no) orders.
create table private.customer_scores (
  customer_id uuid primary key,
  changed_at timestamptz[] not null default '{}',
  states smallint[] not null default '{}'
);

alter table private.customer_scores enable row level security;

create policy "admins read customer scores" on private.customer_scores
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.customer_scores from public, anon, authenticated, service_role;

-- The RFM bands of seed 03, written once (private.health_average_rfm_score in 40_scoring.sql and the
-- customers' walk in 35_customer_scores.sql both read them here): R is 5 with a counted order in the last
-- 3 days, 4 in 7, 3 in 14, 2 in 30, else 1; F counts the counted orders of the last 365 days, M their spend,
-- each 1 below the first band and one more from each band on; a customer is scored while they have a
-- counted order in the last 90 days (the longest period). Counted: not refunded, not cancelled by then.
create or replace function private.rfm_bands(
  out recency_band_days integer[], out frequency_band_orders integer[], out spend_bands numeric[],
  out scored_days integer, out year_days integer
)
language sql immutable parallel safe set search_path = '' as $$
  select array[3, 7, 14, 30], array[2, 3, 6, 10], array[1000, 5000, 10000, 20000]::numeric[], 90, 365
$$;

revoke execute on function private.rfm_bands() from public, anon, authenticated;

grant execute on function private.rfm_bands() to service_role;

-- A customer's RFM state as one number: 0 when scored in no window, else 25 × R + 5 × (F − 1) + (M − 1) by the
-- bands above (business-health-rollups.test.ts holds every edge). A customer is in a window's population when
-- R ≥ 5 less the recency bands shorter than it (7 days: R ≥ 4, 30: R ≥ 2, 90: R ≥ 1). PL/pgSQL, as every
-- function the fold calls: PostgreSQL 17 replans a SQL function that is not inlined on every call.
create or replace function private.health_rfm_state_figures()
returns table (
  state integer, days smallint, customers integer, score_sum integer, scores_1_mod_3 integer,
  scores_2_mod_3 integer, scores_of_3 integer, repeat_customers integer
)
language plpgsql immutable parallel safe set search_path = '' as $$
begin
  return query
    select s.state, w.days, 1, s.score, (s.score % 3 = 1)::integer, (s.score % 3 = 2)::integer,
           (s.score = 3)::integer, (s.frequency > 1)::integer
    from (select g.state, g.state / 25 as recency, (g.state / 5) % 5 + 1 as frequency,
                 g.state / 25 + (g.state / 5) % 5 + 1 + g.state % 5 + 1 as score
          from generate_series(25, 149) g(state)) s
    join (select w.days, 5 - (select count(*) from unnest(b.recency_band_days) d where d < w.days) as lowest_recency
          from unnest(private.health_window_days()) w(days), private.rfm_bands() b) w
      on s.recency >= w.lowest_recency;
end
$$;

-- The order versions of a batch of the orders' change log (30_orders/40_order_change_log.sql) whose figure inputs
-- changed, +1 as they are, −1 as they were: an order's version out and in with the same inputs (a move from
-- paid to shipped) cancel out.
create or replace function private.order_figure_inputs(changes private.order_changes[])
returns table (
  sign integer, order_id uuid, ordered_at timestamptz, completed_at timestamptz, cancelled_at timestamptz,
  promised_at timestamptz, delivered_on_time boolean, counted_until timestamptz, total_amount numeric
)
language plpgsql stable set search_path = '' as $$
begin
  return query
  with versions as (
    select c.sign, c.order_id, c.ordered_at, c.completed_at, c.cancelled_at, c.promised_at,
           coalesce(c.delivered_at <= c.promised_at, false) as delivered_on_time,
           c.counted_until, c.total_amount
    from unnest(changes) c
  )
  select 1, c.*
  from (select v.order_id, v.ordered_at, v.completed_at, v.cancelled_at, v.promised_at, v.delivered_on_time,
               v.counted_until, v.total_amount
        from versions v where v.sign = 1
        except all
        select v.order_id, v.ordered_at, v.completed_at, v.cancelled_at, v.promised_at, v.delivered_on_time,
               v.counted_until, v.total_amount
        from versions v where v.sign = -1) c
  union all
  select -1, c.*
  from (select v.order_id, v.ordered_at, v.completed_at, v.cancelled_at, v.promised_at, v.delivered_on_time,
               v.counted_until, v.total_amount
        from versions v where v.sign = -1
        except all
        select v.order_id, v.ordered_at, v.completed_at, v.cancelled_at, v.promised_at, v.delivered_on_time,
               v.counted_until, v.total_amount
        from versions v where v.sign = 1) c;
end
$$;

-- The order figures' steps of a batch of the change log: each order's are its own, so this reads nothing
-- but the changes given. One row per moment of an order and window length, a column per figure (the
-- table's).
create or replace function private.order_figure_steps(changes private.order_changes[])
returns table (
  at timestamptz, days smallint, orders integer, completed integer, cancelled integer, due integer,
  on_time integer, revenue numeric, previous_revenue numeric, revenue_orders integer, previous_revenue_orders integer
)
language plpgsql stable set search_path = '' set work_mem = '256MB' as $$
begin
  return query
  with
  order_inputs as (select * from private.order_figure_inputs(changes)),
  -- Per window length (7, 30 and 90 days of 24 hours): the window's end for this order (ordered_at + the
  -- length), whether the order becomes due in it (promised before the end and the cancellation), and whether
  -- it counts in the next window's previous revenue.
  order_windows as materialized (
    select i.*, w.days, i.ordered_at + w.span as window_end, i.ordered_at + 2 * w.span as previous_end,
           i.counted_until > i.ordered_at as counted,
           i.promised_at is not null
             and greatest(i.ordered_at, i.promised_at) < least(i.ordered_at + w.span, i.cancelled_at) as due,
           i.counted_until > i.ordered_at + w.span as previous
    from order_inputs i
    cross join (select d, make_interval(hours => 24 * d) from unnest(private.health_window_days()) d) w(days, span)
  ),
  -- Each figure is 1 (or the amount) for T in an interval (start, end], so +sign at its start and −sign at
  -- its end.
  order_steps (at, days, orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders,
               previous_revenue_orders) as (
    -- ordered: in the window, and counted until the cancellation
    select o.ordered_at, o.days, o.sign, 0, 0, 0, 0, case when o.counted then o.sign * o.total_amount else 0 end,
           0, case when o.counted then o.sign else 0 end, 0
    from order_windows o
    union all
    -- completed
    select greatest(o.ordered_at, o.completed_at), o.days, 0, o.sign, 0, 0, 0, 0, 0, 0, 0
    from order_windows o
    where o.completed_at < o.window_end
    union all
    -- cancelled: no longer due nor counted
    select greatest(o.ordered_at, o.cancelled_at), o.days, 0, 0, o.sign,
           case when o.due then -o.sign else 0 end,
           case when o.due and o.delivered_on_time then -o.sign else 0 end,
           case when o.counted then -o.sign * o.total_amount else 0 end, 0,
           case when o.counted then -o.sign else 0 end, 0
    from order_windows o
    where o.cancelled_at < o.window_end
    union all
    -- promised: due
    select greatest(o.ordered_at, o.promised_at), o.days, 0, 0, 0, o.sign,
           case when o.delivered_on_time then o.sign else 0 end, 0, 0, 0, 0
    from order_windows o
    where o.due
    union all
    -- the window's length later: out of the window, into the one after it as its previous window
    select o.window_end, o.days, -o.sign, case when o.completed_at < o.window_end then -o.sign else 0 end,
           case when o.cancelled_at < o.window_end then -o.sign else 0 end,
           case when o.due and not coalesce(o.cancelled_at < o.window_end, false) then -o.sign else 0 end,
           case when o.due and o.delivered_on_time and not coalesce(o.cancelled_at < o.window_end, false)
                then -o.sign else 0 end,
           case when o.counted and not coalesce(o.cancelled_at < o.window_end, false)
                then -o.sign * o.total_amount else 0 end,
           case when o.previous then o.sign * o.total_amount else 0 end,
           case when o.counted and not coalesce(o.cancelled_at < o.window_end, false) then -o.sign else 0 end,
           case when o.previous then o.sign else 0 end
    from order_windows o
    union all
    -- out of that previous window (or cancelled)
    select least(o.previous_end, o.cancelled_at), o.days, 0, 0, 0, 0, 0, 0, -o.sign * o.total_amount, 0, -o.sign
    from order_windows o
    where o.previous
  )
  select s.at, s.days, s.orders::integer, s.completed::integer, s.cancelled::integer, s.due::integer,
         s.on_time::integer, s.revenue::numeric, s.previous_revenue::numeric, s.revenue_orders::integer,
         s.previous_revenue_orders::integer
  from order_steps s;
end
$$;

-- Adds the order figures' steps of a batch of the change log to the 10 minutes and the hours they fall in.
create or replace function private.apply_order_figure_changes(changes private.order_changes[])
returns void
-- Planned once per connection: planning each time would cost more than a small batch's changes.
language plpgsql set search_path = '' set work_mem = '256MB' set plan_cache_mode = 'force_generic_plan' as $$
begin
  -- A large batch gets a plan of its own, made knowing how many changes it holds.
  if cardinality(changes) > 1000 then
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
  end if;
  with added as materialized (
    select s.days, date_bin('10 minutes', s.at, timestamptz '2000-01-01 00:00+00') as ten_minutes,
           sum(s.orders) as orders, sum(s.completed) as completed, sum(s.cancelled) as cancelled, sum(s.due) as due,
           sum(s.on_time) as on_time, sum(s.revenue) as revenue, sum(s.previous_revenue) as previous_revenue,
           sum(s.revenue_orders) as revenue_orders, sum(s.previous_revenue_orders) as previous_revenue_orders
    from private.order_figure_steps(changes) s
    group by 1, 2
    having sum(s.orders) <> 0 or sum(s.completed) <> 0 or sum(s.cancelled) <> 0 or sum(s.due) <> 0
        or sum(s.on_time) <> 0 or sum(s.revenue) <> 0 or sum(s.previous_revenue) <> 0 or sum(s.revenue_orders) <> 0
        or sum(s.previous_revenue_orders) <> 0
  ),
  by_10_minutes as (
    insert into private.health_figure_changes_by_10_minutes as f (
      days, ten_minutes, orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders,
      previous_revenue_orders)
    select a.days, a.ten_minutes, a.orders, a.completed, a.cancelled, a.due, a.on_time, a.revenue,
           a.previous_revenue, a.revenue_orders, a.previous_revenue_orders
    from added a
    order by 1, 2
    on conflict (days, ten_minutes) do update set
      orders = f.orders + excluded.orders,
      completed = f.completed + excluded.completed,
      cancelled = f.cancelled + excluded.cancelled,
      due = f.due + excluded.due,
      on_time = f.on_time + excluded.on_time,
      revenue = f.revenue + excluded.revenue,
      previous_revenue = f.previous_revenue + excluded.previous_revenue,
      revenue_orders = f.revenue_orders + excluded.revenue_orders,
      previous_revenue_orders = f.previous_revenue_orders + excluded.previous_revenue_orders
  )
  insert into private.health_figure_changes as f (
    days, hour, orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders,
    previous_revenue_orders)
  select a.days, date_bin('1 hour', a.ten_minutes, timestamptz '2000-01-01 00:00+00'), sum(a.orders), sum(a.completed),
         sum(a.cancelled), sum(a.due), sum(a.on_time), sum(a.revenue), sum(a.previous_revenue),
         sum(a.revenue_orders), sum(a.previous_revenue_orders)
  from added a
  group by 1, 2
  order by 1, 2
  on conflict (days, hour) do update set
    orders = f.orders + excluded.orders,
    completed = f.completed + excluded.completed,
    cancelled = f.cancelled + excluded.cancelled,
    due = f.due + excluded.due,
    on_time = f.on_time + excluded.on_time,
    revenue = f.revenue + excluded.revenue,
    previous_revenue = f.previous_revenue + excluded.previous_revenue,
    revenue_orders = f.revenue_orders + excluded.revenue_orders,
    previous_revenue_orders = f.previous_revenue_orders + excluded.previous_revenue_orders;
end
$$;

-- The order figures kept by hour for the hours [first_at, before_at) made equal to the sums of their 10
-- minutes, which the folds add the same amounts to in the same transactions, so the difference holds whatever
-- a fold adds meanwhile (private.repair_kept_hours puts the 10 minutes right first). Returns the hours put right.
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

-- Checks the order figures kept by 10 minutes and hour for [first_at, before_at) against the orders and adds
-- any difference (the orders' steps less the log's pending changes less what is kept, one snapshot). Added,
-- not written over, so a fold meanwhile keeps its own; no lock, so checkouts and reports never wait. The
-- customers' part (the RFM population) is not checked. Returns the rows put right; a nightly store job.
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

