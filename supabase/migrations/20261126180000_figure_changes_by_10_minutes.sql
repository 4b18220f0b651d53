-- The health figure changes also kept by 10 minutes (issue 34, 10M orders): a report counts from the
-- 10-minute boundary next to its moment, so what it reads from the orders is minutes of them, not up to
-- half an hour. The fold adds to both; the table is filled here from what is kept, under the fold's lock
-- and without a lock on the orders: the orders' figure steps less those of the changes not yet folded (per
-- order, in one snapshot, so whatever commits meanwhile stays in the log for the next fold) and the
-- customers' kept states.

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
  revenue numeric not null default 0,
  previous_revenue numeric not null default 0,
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

-- Rescores `customers` from `first_changes` on (paired by position): keeps their new moments in
-- `private.customer_scores` and adds the difference between the moments now and then to the figure
-- changes (private.add_customer_state_changes). Their rows are taken in customer order first, so two
-- rescorings of the same customers follow each other and the second walks what the first committed.
create or replace function private.apply_customer_score_changes(customers uuid[], first_changes timestamptz[])
returns void
language plpgsql set search_path = '' set work_mem = '256MB' set plan_cache_mode = 'force_generic_plan' as $$
declare
  moments_at timestamptz[];
  states integer[];
  counts bigint[];
begin
  if coalesce(cardinality(customers), 0) = 0 then
    return;
  end if;
  insert into private.customer_scores (customer_id)
  select c.customer_id from unnest(customers) c(customer_id) order by c.customer_id
  on conflict (customer_id) do nothing;
  perform 1 from private.customer_scores s where s.customer_id = any(customers) order by s.customer_id for update;
  if cardinality(customers) > 1000 then
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
  end if;

  with moments as materialized (
    select * from private.customer_score_moments(customers, first_changes)
  ),
  -- What stays before the first change, then the walk's moments (a customer left with none has none).
  rescored as (
    update private.customer_scores s
    set changed_at = s.changed_at[1:n.kept] || n.changed_at, states = s.states[1:n.kept] || n.states
    from (select m.customer_id, max(m.kept) as kept,
                 coalesce(array_agg(m.at order by m.at) filter (where m.moment = 'now'), '{}') as changed_at,
                 coalesce(array_agg(m.state::smallint order by m.at) filter (where m.moment = 'now'), '{}') as states
          from moments m
          where m.moment in ('kept', 'now')
          group by m.customer_id) n
    where s.customer_id = n.customer_id
    returning 1
  ),
  -- Customers entering (+1) and leaving (−1) each state, by 10 minutes: now's moments minus then's.
  state_changes as (
    select date_bin('10 minutes', c.at, timestamptz '2000-01-01 00:00+00') as ten_minutes, c.state, sum(c.n) as n
    from moments m
    cross join lateral (values (m.at, m.state, case m.moment when 'now' then 1 else -1 end),
                               (m.at, m.previous, case m.moment when 'now' then -1 else 1 end)) c(at, state, n)
    where m.moment in ('now', 'then') and c.state <> 0
    group by 1, 2
    having sum(c.n) <> 0
  )
  select array_agg(c.ten_minutes), array_agg(c.state), array_agg(c.n) into moments_at, states, counts
  from state_changes c;
  perform private.add_customer_state_changes(moments_at, states, counts);
end
$$;

-- Adds customers entering (a positive count) and leaving (a negative one) RFM states at the 10 minutes
-- `moments_at` (paired by position with `states` and `counts`) to the figure changes, by 10 minutes and by
-- hour.
create or replace function private.add_customer_state_changes(moments_at timestamptz[], states integer[], counts bigint[])
returns void
language plpgsql set search_path = '' as $$
begin
  with added as materialized (
    select x.days, c.ten_minutes, sum(c.n * x.customers) as customers, sum(c.n * x.score_sum) as score_sum,
           sum(c.n * x.scores_1_mod_3) as scores_1_mod_3, sum(c.n * x.scores_2_mod_3) as scores_2_mod_3,
           sum(c.n * x.scores_of_3) as scores_of_3, sum(c.n * x.repeat_customers) as repeat_customers
    from unnest(moments_at, states, counts) c(ten_minutes, state, n)
    join (select * from private.health_rfm_state_figures()) x on x.state = c.state
    group by 1, 2
    having sum(c.n * x.customers) <> 0 or sum(c.n * x.score_sum) <> 0 or sum(c.n * x.scores_1_mod_3) <> 0
        or sum(c.n * x.scores_2_mod_3) <> 0 or sum(c.n * x.scores_of_3) <> 0 or sum(c.n * x.repeat_customers) <> 0
  ),
  by_10_minutes as (
    insert into private.health_figure_changes_by_10_minutes as f (
      days, ten_minutes, customers, score_sum, scores_1_mod_3, scores_2_mod_3, scores_of_3, repeat_customers)
    select a.days, a.ten_minutes, a.customers, a.score_sum, a.scores_1_mod_3, a.scores_2_mod_3, a.scores_of_3,
           a.repeat_customers
    from added a
    order by 1, 2
    on conflict (days, ten_minutes) do update set
      customers = f.customers + excluded.customers,
      score_sum = f.score_sum + excluded.score_sum,
      scores_1_mod_3 = f.scores_1_mod_3 + excluded.scores_1_mod_3,
      scores_2_mod_3 = f.scores_2_mod_3 + excluded.scores_2_mod_3,
      scores_of_3 = f.scores_of_3 + excluded.scores_of_3,
      repeat_customers = f.repeat_customers + excluded.repeat_customers
  )
  insert into private.health_figure_changes as f (
    days, hour, customers, score_sum, scores_1_mod_3, scores_2_mod_3, scores_of_3, repeat_customers)
  select a.days, date_bin('1 hour', a.ten_minutes, timestamptz '2000-01-01 00:00+00'), sum(a.customers),
         sum(a.score_sum), sum(a.scores_1_mod_3), sum(a.scores_2_mod_3), sum(a.scores_of_3), sum(a.repeat_customers)
  from added a
  group by 1, 2
  order by 1, 2
  on conflict (days, hour) do update set
    customers = f.customers + excluded.customers,
    score_sum = f.score_sum + excluded.score_sum,
    scores_1_mod_3 = f.scores_1_mod_3 + excluded.scores_1_mod_3,
    scores_2_mod_3 = f.scores_2_mod_3 + excluded.scores_2_mod_3,
    scores_of_3 = f.scores_of_3 + excluded.scores_of_3,
    repeat_customers = f.repeat_customers + excluded.repeat_customers;
end
$$;

revoke execute on function private.add_customer_state_changes(timestamptz[], integer[], bigint[])
from public, anon, authenticated;

-- Statement-level, over the transition tables, so a bulk write appends in one statement. Security definer
-- because order writers (administrators, the store's jobs) have no rights on `private`.
create or replace function private.log_order_changes()
returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                       promised_at, delivered_at, completed_at, cancelled_at, counted_until)
    select 1, n.id, n.customer_id, n.status, n.total_amount, n.ordered_at, n.order_date, n.promised_at,
           n.delivered_at, n.completed_at, n.cancelled_at, n.counted_until
    from new_rows n;
  elsif tg_op = 'UPDATE' then
    -- An update of columns the analytics do not read (a payment time, updated_at) appends nothing: the
    -- versions that did not change cancel out.
    insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                       promised_at, delivered_at, completed_at, cancelled_at, counted_until)
    select -1, c.*
    from (select o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
                 o.delivered_at, o.completed_at, o.cancelled_at, o.counted_until
          from old_rows o
          except all
          select n.id, n.customer_id, n.status, n.total_amount, n.ordered_at, n.order_date, n.promised_at,
                 n.delivered_at, n.completed_at, n.cancelled_at, n.counted_until
          from new_rows n) c
    union all
    select 1, c.*
    from (select n.id, n.customer_id, n.status, n.total_amount, n.ordered_at, n.order_date, n.promised_at,
                 n.delivered_at, n.completed_at, n.cancelled_at, n.counted_until
          from new_rows n
          except all
          select o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
                 o.delivered_at, o.completed_at, o.cancelled_at, o.counted_until
          from old_rows o) c;
  elsif tg_op = 'DELETE' then
    insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                       promised_at, delivered_at, completed_at, cancelled_at, counted_until)
    select -1, o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
           o.delivered_at, o.completed_at, o.cancelled_at, o.counted_until
    from old_rows o;
  else
    truncate private.order_changes, private.order_daily_revenue, private.health_figure_changes,
      private.health_figure_changes_by_10_minutes, private.customer_scores;
  end if;
  return null;
end
$$;

-- Everything the analytics keep of orders, rebuilt from the orders as they are: the log and the kept
-- figures emptied, every order appended once, and folded. For an operator who doubts them, and the tests
-- that hold the kept figures equal to a full recompute. Order writes wait while it runs.
create or replace function private.refold_all_orders()
returns bigint
language plpgsql security definer set search_path = '' as $$
begin
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('private.fold_order_changes'));
  lock table public.orders in share mode;
  truncate private.order_changes, private.order_daily_revenue, private.health_figure_changes,
    private.health_figure_changes_by_10_minutes, private.customer_scores;
  insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                     promised_at, delivered_at, completed_at, cancelled_at, counted_until)
  select 1, o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
         o.delivered_at, o.completed_at, o.cancelled_at, o.counted_until
  from public.orders o;
  return private.fold_order_changes(true);
end
$$;

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
-- whichever has fewer orders to read between it and `as_of`. Either gives the same figures. From the start,
-- the orders placed in [start, as_of) and those leaving a window then (placed 3 to 365 days before); from the
-- end, the same of [as_of, end), where nothing is placed yet when that is the rest of the current 10 minutes.
-- The orders placed a week before each part stand for the ones leaving a window, six ranges in all; the
-- orders placed before `as_of` are counted only as far as the choice needs, so a busy moment costs a
-- bounded count, not a read of all its orders. Generic plans: each count is a range of one index whatever
-- the moment, and planning them anew would cost more than they do.
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
begin
  if as_of = part_start then
    return part_start;
  end if;
  select count(*) filter (where o.ordered_at < as_of - interval '168 hours'),
         count(*) filter (where o.ordered_at >= as_of - interval '168 hours'),
         (select count(*) from public.orders l where l.ordered_at >= as_of and l.ordered_at < part_end)
    into week_earlier, week_later, placed_later
  from public.orders o
  where o.ordered_at >= part_start - interval '168 hours' and o.ordered_at < part_end - interval '168 hours';
  threshold := placed_later + 6 * (week_later - week_earlier);
  select count(*) into placed_earlier
  from (select from public.orders o where o.ordered_at >= part_start and o.ordered_at < as_of
        limit greatest(threshold, 0) + 1) x;
  return case when placed_earlier > threshold then part_end else part_start end;
end
$$;

-- The fill. Under the fold's lock, so nothing is folded meanwhile; order writers go on and append to the
-- log, which the next fold adds to both tables. Orders by the first hex digit of their key, 16 arrays in
-- one statement (one snapshot), each planned for its size as the fold plans a large batch: each order's
-- steps as it is, less those of its changes not yet folded, are its steps as folded. On the 1M-order store
-- 49 s, equal to a refold's (private.refold_all_orders, which would hold order writers for its 77 s).
do $$
begin
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('private.fold_order_changes'));
  perform set_config('plan_cache_mode', 'force_custom_plan', true);
  perform set_config('work_mem', '256MB', true);
  insert into private.health_figure_changes_by_10_minutes (
    days, ten_minutes, orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders,
    previous_revenue_orders)
  select s.days, date_bin('10 minutes', s.at, timestamptz '2000-01-01 00:00+00'), sum(s.orders), sum(s.completed),
         sum(s.cancelled), sum(s.due), sum(s.on_time), sum(s.revenue), sum(s.previous_revenue),
         sum(s.revenue_orders), sum(s.previous_revenue_orders)
  from generate_series(0, 15) k
  cross join lateral (
    select (to_hex(k) || '0000000-0000-0000-0000-000000000000')::uuid as lo,
           case when k < 15 then (to_hex(k + 1) || '0000000-0000-0000-0000-000000000000')::uuid end as hi
  ) b
  cross join lateral private.order_figure_steps(array(
    select v::private.order_changes
    from (select null::bigint as change_id, 1::smallint as sign, o.id as order_id, o.customer_id, o.status,
                 o.total_amount, o.ordered_at, o.order_date, o.promised_at, o.delivered_at, o.completed_at,
                 o.cancelled_at, o.counted_until, null::xid8 as transaction_id
          from public.orders o
          where o.id >= b.lo and (b.hi is null or o.id < b.hi)
          union all
          select c.change_id, (-c.sign)::smallint, c.order_id, c.customer_id, c.status, c.total_amount, c.ordered_at,
                 c.order_date, c.promised_at, c.delivered_at, c.completed_at, c.cancelled_at, c.counted_until,
                 c.transaction_id
          from private.order_changes c
          where c.order_id >= b.lo and (b.hi is null or c.order_id < b.hi)) v
  )) s
  group by 1, 2
  having sum(s.orders) <> 0 or sum(s.completed) <> 0 or sum(s.cancelled) <> 0 or sum(s.due) <> 0
      or sum(s.on_time) <> 0 or sum(s.revenue) <> 0 or sum(s.previous_revenue) <> 0 or sum(s.revenue_orders) <> 0
      or sum(s.previous_revenue_orders) <> 0;

  -- Each customer's kept moments: into the state it enters, out of the one it leaves.
  insert into private.health_figure_changes_by_10_minutes as f (
    days, ten_minutes, customers, score_sum, scores_1_mod_3, scores_2_mod_3, scores_of_3, repeat_customers)
  select x.days, c.ten_minutes, sum(c.n * x.customers), sum(c.n * x.score_sum), sum(c.n * x.scores_1_mod_3),
         sum(c.n * x.scores_2_mod_3), sum(c.n * x.scores_of_3), sum(c.n * x.repeat_customers)
  from (
    select date_bin('10 minutes', t.at, timestamptz '2000-01-01 00:00+00') as ten_minutes, t.state, sum(t.n) as n
    from private.customer_scores s
    cross join lateral unnest(s.changed_at, s.states) with ordinality e(at, state, i)
    cross join lateral (values (e.at, e.state::integer, 1),
                               (e.at, coalesce(s.states[e.i - 1], 0)::integer, -1)) t(at, state, n)
    where t.state <> 0
    group by 1, 2
  ) c
  join private.health_rfm_state_figures() x on x.state = c.state
  group by 1, 2
  on conflict (days, ten_minutes) do update set
    customers = f.customers + excluded.customers,
    score_sum = f.score_sum + excluded.score_sum,
    scores_1_mod_3 = f.scores_1_mod_3 + excluded.scores_1_mod_3,
    scores_2_mod_3 = f.scores_2_mod_3 + excluded.scores_2_mod_3,
    scores_of_3 = f.scores_of_3 + excluded.scores_of_3,
    repeat_customers = f.repeat_customers + excluded.repeat_customers;
end
$$;
