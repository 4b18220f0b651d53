-- The order and customer figures of a health report, kept as they change (docs/business-health.md).
--
-- Every figure of a window [T − P, T) is a function of T, and each order (for the order figures) or each
-- customer (for RFM) contributes a step function of T: an order is in the window for T in
-- (ordered_at, ordered_at + P], completed in it once T > completed_at, and so on; a customer is scored
-- while they have a counted order in the window, with a score that changes as their orders age. The
-- steps of those functions are kept here, summed by UTC hour: `private.health_figure_changes` holds, for
-- each window length (7, 30, 90 days) and hour, how much each figure changes while T passes through that
-- hour. A figure as of an hour boundary H is the sum of the changes of the hours before H, or, because
-- every order's and customer's steps add up to zero (they start from nothing and end at nothing), minus the
-- sum of the hours from H on; the report reads whichever side has fewer hours, and what lies between T and
-- the boundary of T's hour it counts from, from the orders themselves (50_figures.sql). Derived data kept in the writing
-- transaction by statement-level triggers on `public.orders`, not cached answers: no figure depends on
-- when it is asked.
--
-- Writers never queue on each other's rows: each writing transaction takes a writer slot
-- (`private.order_writer_slot`, 20_customers_orders.sql) and adds its changes to rows of its own slot, so
-- the rows of an hour are one per slot that has written it, as many as writers ever ran at once, and the
-- report sums them. The order figures are added by each statement; the customers' scores, which depend on
-- all of a customer's orders, once per transaction as it commits (below), so that a writer waits only for
-- writers of the same customers, only while they commit, and takes those customers in one order.

create table private.health_figure_changes (
  days smallint not null constraint health_figure_changes_days check (days in (7, 30, 90)),
  hour timestamptz not null,
  slot smallint not null,
  -- Order figures of the window [T − days, T): orders in it, completed and cancelled before T, due (promised
  -- before T and not cancelled) and on time among those, counted revenue (not refunded, not cancelled
  -- before T) and the counted orders behind it, and the same two of the equal window before it.
  orders integer not null default 0,
  completed integer not null default 0,
  cancelled integer not null default 0,
  due integer not null default 0,
  on_time integer not null default 0,
  revenue numeric not null default 0,
  previous_revenue numeric not null default 0,
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
  primary key (days, hour, slot)
);

alter table private.health_figure_changes enable row level security;

create policy "admins read health figure changes" on private.health_figure_changes
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.health_figure_changes from public, anon, authenticated, service_role;

-- Each customer's RFM state (private.health_rfm_state_figures) as a function of time: from changed_at[i]
-- on (for T > changed_at[i]) the customer is in state states[i], before changed_at[1] in state 0; only the
-- moments the state changes. Kept with the figure changes, of which it is the per-customer part: a
-- report finds a customer's state at any moment with a binary search. Writers of one customer's orders
-- take its row as they commit, before reading the customer's orders, so they follow each other and each
-- reads what the previous ones committed; every such write updates the row, so under REPEATABLE READ a
-- writer that could not see a concurrent one's orders gets a serialization failure instead of a wrong
-- difference.
create table private.customer_scores (
  customer_id uuid primary key references public.customers (id) on delete cascade,
  changed_at timestamptz[] not null default '{}',
  states smallint[] not null default '{}'
);

alter table private.customer_scores enable row level security;

create policy "admins read customer scores" on private.customer_scores
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.customer_scores from public, anon, authenticated, service_role;

-- A customer's RFM state is one number: 0 when they have no counted order (not refunded, not cancelled
-- yet) in the last 90 days, so are scored in no window; else 25 × R + 5 × (F − 1) + (M − 1), with the bands
-- of private.health_average_rfm_score (40_scoring.sql): R = 5 with an order in the last 3 days, 4 in 7, 3 in
-- 14, 2 in 30, else 1; F from 2, 3, 6, 10 orders in the last 365 days; M from 1,000, 5,000, 10,000, 20,000 of
-- their spend in those days. The state is computed from those counts (spend in cents) where they are
-- counted, here and in 50_figures.sql; test/database/business-health-rollups.test.ts holds every band edge
-- against the formula. This is what a state adds to each window's customer figures: a customer is in the
-- 7-day window's population when R ≥ 4 (an order in the last 7 days), in the 30-day one when R ≥ 2, in the
-- 90-day one when R ≥ 1. PL/pgSQL for the reason given at add_health_figure_changes below.
create or replace function private.health_rfm_state_figures()
returns table (
  state integer, days smallint, customers integer, score_sum integer, scores_1_mod_3 integer,
  scores_2_mod_3 integer, scores_of_3 integer, repeat_customers integer
)
language plpgsql
immutable
parallel safe
set search_path = ''
as $$
begin
  return query
    select s.state, w.days, 1, s.score, (s.score % 3 = 1)::integer, (s.score % 3 = 2)::integer,
           (s.score = 3)::integer, (s.frequency > 1)::integer
    from (select g.state, g.state / 25 as recency, (g.state / 5) % 5 + 1 as frequency,
                 g.state / 25 + (g.state / 5) % 5 + 1 + g.state % 5 + 1 as score
          from generate_series(25, 149) g(state)) s
    join (values (7::smallint, 4), (30::smallint, 2), (90::smallint, 1)) w(days, lowest_recency)
      on s.recency >= w.lowest_recency;
end
$$;

-- Adds changes to `private.health_figure_changes`, summed by window length and hour, in the rows of this
-- transaction's writer slot (the changes' own `slot` is not read). Hours taken in order, though no other
-- open transaction writes the same rows. PL/pgSQL, as every function an order write calls: PostgreSQL 17
-- plans a SQL function that is not inlined again on every call (0.5 ms here), PL/pgSQL once per session.
create or replace function private.add_health_figure_changes(changes private.health_figure_changes[])
returns void
language plpgsql
volatile
set search_path = ''
as $$
begin
    insert into private.health_figure_changes as f (
      days, hour, slot, orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders,
      previous_revenue_orders, customers, score_sum, scores_1_mod_3, scores_2_mod_3, scores_of_3,
      repeat_customers)
    select c.days, c.hour, w.slot, sum(c.orders), sum(c.completed), sum(c.cancelled), sum(c.due), sum(c.on_time),
           sum(c.revenue), sum(c.previous_revenue), sum(c.revenue_orders), sum(c.previous_revenue_orders),
           sum(c.customers), sum(c.score_sum), sum(c.scores_1_mod_3), sum(c.scores_2_mod_3), sum(c.scores_of_3),
           sum(c.repeat_customers)
    from unnest(changes) c
    cross join (select private.order_writer_slot() as slot) w
    group by c.days, c.hour, w.slot
    having sum(c.orders) <> 0 or sum(c.completed) <> 0 or sum(c.cancelled) <> 0 or sum(c.due) <> 0 or
        sum(c.on_time) <> 0 or sum(c.revenue) <> 0 or sum(c.previous_revenue) <> 0 or sum(c.revenue_orders) <> 0 or
        sum(c.previous_revenue_orders) <> 0 or sum(c.customers) <> 0 or sum(c.score_sum) <> 0 or
        sum(c.scores_1_mod_3) <> 0 or sum(c.scores_2_mod_3) <> 0 or sum(c.scores_of_3) <> 0 or
        sum(c.repeat_customers) <> 0
    order by c.days, c.hour
    on conflict (days, hour, slot) do update set
      orders = f.orders + excluded.orders,
      completed = f.completed + excluded.completed,
      cancelled = f.cancelled + excluded.cancelled,
      due = f.due + excluded.due,
      on_time = f.on_time + excluded.on_time,
      revenue = f.revenue + excluded.revenue,
      previous_revenue = f.previous_revenue + excluded.previous_revenue,
      revenue_orders = f.revenue_orders + excluded.revenue_orders,
      previous_revenue_orders = f.previous_revenue_orders + excluded.previous_revenue_orders,
      customers = f.customers + excluded.customers,
      score_sum = f.score_sum + excluded.score_sum,
      scores_1_mod_3 = f.scores_1_mod_3 + excluded.scores_1_mod_3,
      scores_2_mod_3 = f.scores_2_mod_3 + excluded.scores_2_mod_3,
      scores_of_3 = f.scores_of_3 + excluded.scores_of_3,
      repeat_customers = f.repeat_customers + excluded.repeat_customers;
end
$$;

-- The order figures' changes of a statement's order writes (`removed`: the rows as they were, `added`: as
-- they are; either may be null): each order's steps are its own, so this reads nothing but the rows given.
create or replace function private.apply_order_figure_changes(removed public.orders[], added public.orders[])
returns void
language plpgsql
volatile
set search_path = ''
set work_mem = '256MB'
-- Planned once per connection: planning each time would cost more than a small write's changes.
set plan_cache_mode = 'force_generic_plan'
as $$
declare
  changes private.health_figure_changes[];
begin
  -- A large statement's changes get a plan of their own, made knowing how many rows it wrote.
  if coalesce(cardinality(added), 0) + coalesce(cardinality(removed), 0) > 1000 then
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
  end if;

  with
  -- Order figures: the rows whose inputs changed, +1 as they are, −1 as they were.
  order_inputs as (
    select 1 as sign, c.*
    from (select a.id, a.ordered_at, a.completed_at, a.cancelled_at, a.promised_at,
                 coalesce(a.delivered_at <= a.promised_at, false) as delivered_on_time,
                 a.status = 'refunded' as refunded, a.total_amount
          from unnest(added) a
          except all
          select r.id, r.ordered_at, r.completed_at, r.cancelled_at, r.promised_at,
                 coalesce(r.delivered_at <= r.promised_at, false), r.status = 'refunded', r.total_amount
          from unnest(removed) r) c
    union all
    select -1, c.*
    from (select r.id, r.ordered_at, r.completed_at, r.cancelled_at, r.promised_at,
                 coalesce(r.delivered_at <= r.promised_at, false) as delivered_on_time,
                 r.status = 'refunded' as refunded, r.total_amount
          from unnest(removed) r
          except all
          select a.id, a.ordered_at, a.completed_at, a.cancelled_at, a.promised_at,
                 coalesce(a.delivered_at <= a.promised_at, false), a.status = 'refunded', a.total_amount
          from unnest(added) a) c
  ),
  -- Per window length (7, 30 and 90 days of 24 hours): the window's end for this order (ordered_at + the
  -- length), whether the order becomes due in it (promised before the end and the cancellation), and whether
  -- it counts in the next window's previous revenue.
  order_windows as materialized (
    select i.*, w.days, i.ordered_at + w.span as window_end, i.ordered_at + 2 * w.span as previous_end,
           not i.refunded and (i.cancelled_at is null or i.cancelled_at > i.ordered_at) as counted,
           i.promised_at is not null
             and greatest(i.ordered_at, i.promised_at) < least(i.ordered_at + w.span, i.cancelled_at) as due,
           not i.refunded and (i.cancelled_at is null or i.cancelled_at > i.ordered_at + w.span) as previous
    from order_inputs i
    cross join (values (7::smallint, interval '168 hours'), (30::smallint, interval '720 hours'),
                       (90::smallint, interval '2160 hours')) w(days, span)
  ),
  -- Each figure is 1 (or the amount) for T in an interval (start, end], so +sign at its start and −sign at
  -- its end: one row per moment of an order and window length, a column per figure (the table's).
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
  select array_agg(row(c.days, c.hour, 0, c.orders, c.completed, c.cancelled, c.due, c.on_time, c.revenue,
                       c.previous_revenue, c.revenue_orders, c.previous_revenue_orders, 0, 0, 0, 0, 0, 0
                   )::private.health_figure_changes)
  into changes
  from (select s.days, date_bin('1 hour', s.at, timestamptz '2000-01-01 00:00+00') as hour, sum(s.orders) as orders,
               sum(s.completed) as completed, sum(s.cancelled) as cancelled, sum(s.due) as due,
               sum(s.on_time) as on_time, sum(s.revenue) as revenue, sum(s.previous_revenue) as previous_revenue,
               sum(s.revenue_orders) as revenue_orders, sum(s.previous_revenue_orders) as previous_revenue_orders
        from order_steps s
        group by 1, 2) c;

  perform private.add_health_figure_changes(changes);
end
$$;

-- The customers whose counted orders (not refunded, not cancelled at or before ordering) changed in what
-- RFM reads of them (time, amount, cancellation), each with the earliest moment that changed: before it,
-- their scores stay as they were.
create or replace function private.changed_customer_scores(removed public.orders[], added public.orders[])
returns table (customer_id uuid, first_change timestamptz)
language plpgsql
stable
set search_path = ''
as $$
begin
  return query
    select c.customer_id, min(c.ordered_at)
    from (
      (select a.id, a.customer_id, a.ordered_at, a.cancelled_at, a.total_amount from unnest(added) a
       where a.status <> 'refunded' and (a.cancelled_at is null or a.cancelled_at > a.ordered_at)
       except all
       select r.id, r.customer_id, r.ordered_at, r.cancelled_at, r.total_amount from unnest(removed) r
       where r.status <> 'refunded' and (r.cancelled_at is null or r.cancelled_at > r.ordered_at))
      union all
      (select r.id, r.customer_id, r.ordered_at, r.cancelled_at, r.total_amount from unnest(removed) r
       where r.status <> 'refunded' and (r.cancelled_at is null or r.cancelled_at > r.ordered_at)
       except all
       select a.id, a.customer_id, a.ordered_at, a.cancelled_at, a.total_amount from unnest(added) a
       where a.status <> 'refunded' and (a.cancelled_at is null or a.cancelled_at > a.ordered_at))
    ) c
    group by c.customer_id;
end
$$;

-- Rescores `customers` from `first_changes` on (paired by position): for each, it walks their counted
-- orders as they are now from that moment, adds the difference between the state changes it finds and
-- those kept in `private.customer_scores` to the figure changes, and keeps the new ones. Their rows are
-- taken in customer order (two rescorings of several customers cannot deadlock), waiting for any other
-- transaction rescoring the same customers; the walk's statement then reads what that one committed.
create or replace function private.apply_customer_score_changes(customers uuid[], first_changes timestamptz[])
returns void
language plpgsql
volatile
set search_path = ''
set work_mem = '256MB'
set plan_cache_mode = 'force_generic_plan'
as $$
declare
  changes private.health_figure_changes[];
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

  with
  -- The changed customers' counted orders as they are now, from the first changed order's time on (before
  -- it nothing changed) with the orders still counted then; amounts in cents, exact in float8. First each
  -- customer's newest 256 (through orders_customer_idx): they are all the walk needs when they are all
  -- there is, or when those placed before the first change include 10 counted for their whole year with
  -- 20,000 of spend between them. While any older order is in a window, so are those 10, newer, so
  -- frequency and spend are in their top bands and recency is theirs: every state is the one the older
  -- orders would give. So a change at a customer's newest orders (a checkout) reads a bounded number of
  -- them, however long their history; anyone else's are all read.
  recent as materialized (
    select f.customer_id, f.first_change, r.ordered_at, r.cancelled_at, r.cents,
           r.ordered_at < f.first_change and (r.cancelled_at is null or r.cancelled_at >= r.ordered_at + interval '8760 hours')
             as settled_before
    from unnest(customers, first_changes) f(customer_id, first_change)
    cross join lateral (
      select o.ordered_at, o.cancelled_at, (o.total_amount * 100)::float8 as cents
      from public.orders o
      where o.customer_id = f.customer_id
        and o.status <> 'refunded' and (o.cancelled_at is null or o.cancelled_at > o.ordered_at)
        and least(o.cancelled_at, o.ordered_at + interval '8760 hours') >= f.first_change
      order by o.ordered_at desc
      limit 256
    ) r
  ),
  bounded as (
    select r.customer_id
    from recent r
    group by r.customer_id
    having count(*) < 256
        or (count(*) filter (where r.settled_before) >= 10 and sum(r.cents) filter (where r.settled_before) >= 2000000)
  ),
  counted as materialized (
    select r.customer_id, r.first_change, r.ordered_at, r.cancelled_at, r.cents
    from recent r
    where r.customer_id in (select b.customer_id from bounded b)
    union all
    select o.customer_id, f.first_change, o.ordered_at, o.cancelled_at, (o.total_amount * 100)::float8 as cents
    from unnest(customers, first_changes) f(customer_id, first_change)
    join public.orders o on o.customer_id = f.customer_id
    where f.customer_id not in (select b.customer_id from bounded b)
      and o.status <> 'refunded' and (o.cancelled_at is null or o.cancelled_at > o.ordered_at)
      and least(o.cancelled_at, o.ordered_at + interval '8760 hours') >= f.first_change
  ),
  -- Each changed customer's counts just before their first changed order, where now and then still agree:
  -- their orders placed before it and not yet out of each count. The walk below starts from them.
  base as (
    select c.customer_id,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '72 hours') >= c.first_change) as b3,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '168 hours') >= c.first_change) as b7,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '336 hours') >= c.first_change) as b14,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '720 hours') >= c.first_change) as b30,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '2160 hours') >= c.first_change) as b90,
           count(*) filter (where c.ordered_at < c.first_change
                              and least(c.cancelled_at, c.ordered_at + interval '8760 hours') >= c.first_change) as b365,
           coalesce(sum(c.cents) filter (where c.ordered_at < c.first_change
                                           and least(c.cancelled_at, c.ordered_at + interval '8760 hours') >= c.first_change), 0)
             as bspend
    from counted c
    group by c.customer_id
  ),
  -- An order counts for T in (ordered_at, cancelled_at] (cancelled_at null: always), so among the last x
  -- days' orders for T in (ordered_at, least(cancelled_at, ordered_at + x)]: at ordered_at (kind 0) it enters
  -- every count (3, 7, 14, 30, 90 and 365 days, and the year's spend), then leaves each at its end (kinds 1
  -- to 6). The steps from the customer's first changed order on, generated customer by customer, so the walk
  -- below sorts each customer's steps on their own.
  counted_steps (customer_id, at, kind, cents) as (
    select c.customer_id, x.at, x.kind, c.cents
    from (select * from counted order by customer_id) c
    cross join generate_series(0, 6) k(kind)
    cross join lateral (select k.kind, case k.kind when 0 then c.ordered_at
                                      else least(c.cancelled_at, c.ordered_at + (array[interval '72 hours', interval '168 hours',
                                           interval '336 hours', interval '720 hours', interval '2160 hours',
                                           interval '8760 hours'])[k.kind]) end as at) x
    where x.at >= c.first_change
  ),
  -- The counts after each moment (all its steps), on top of the customer's base, and the state they give.
  walked as (
    select c.customer_id, c.at,
           case when c.n90 <= 0 then 0
                else 25 * (case when c.n3 > 0 then 5 when c.n7 > 0 then 4
                                when c.n14 > 0 then 3 when c.n30 > 0 then 2 else 1 end)
                     + 5 * (case when c.n365 >= 10 then 4 when c.n365 >= 6 then 3
                                 when c.n365 >= 3 then 2 when c.n365 >= 2 then 1 else 0 end)
                     + (case when c.nspend >= 2000000 then 4 when c.nspend >= 1000000 then 3
                             when c.nspend >= 500000 then 2 when c.nspend >= 100000 then 1 else 0 end) end as state
    from (
      select r.customer_id, r.at,
             b.b3 + r.n3 as n3, b.b7 + r.n7 as n7, b.b14 + r.n14 as n14, b.b30 + r.n30 as n30,
             b.b90 + r.n90 as n90, b.b365 + r.n365 as n365, b.bspend + r.nspend as nspend
      from (
        select s.customer_id, s.at,
               sum(case s.kind when 0 then 1 when 1 then -1 else 0 end) over w as n3,
               sum(case s.kind when 0 then 1 when 2 then -1 else 0 end) over w as n7,
               sum(case s.kind when 0 then 1 when 3 then -1 else 0 end) over w as n14,
               sum(case s.kind when 0 then 1 when 4 then -1 else 0 end) over w as n30,
               sum(case s.kind when 0 then 1 when 5 then -1 else 0 end) over w as n90,
               sum(case s.kind when 0 then 1 when 6 then -1 else 0 end) over w as n365,
               sum(case s.kind when 0 then s.cents when 6 then -s.cents else 0 end) over w as nspend
        from counted_steps s
        window w as (partition by s.customer_id order by s.at)
      ) r
      join base b on b.customer_id = r.customer_id
    ) c
  ),
  -- The customers' states as kept until now: how many moments before the first change stay as they are,
  -- and the state then.
  kept as (
    select f.customer_id, f.first_change, s.changed_at, s.states, p.kept,
           coalesce(s.states[p.kept], 0) as state_before
    from unnest(customers, first_changes) f(customer_id, first_change)
    join private.customer_scores s on s.customer_id = f.customer_id
    cross join lateral (select case when cardinality(s.changed_at) = 0 then 0
                                    else width_bucket(f.first_change - interval '1 microsecond', s.changed_at) end as kept) p
  ),
  -- The moments the state changes from the first change on, now (from the walk) and before the statement
  -- (as kept), each with the state it leaves.
  now_moments as materialized (
    select m.customer_id, m.at, m.state, m.previous
    from (
      select w.customer_id, w.at, w.state,
             coalesce(lag(w.state) over (partition by w.customer_id order by w.at), k.state_before) as previous
      from walked w
      join kept k on k.customer_id = w.customer_id
    ) m
    where m.state <> m.previous
  ),
  then_moments as (
    select k.customer_id, e.at, e.state,
           coalesce(lag(e.state) over (partition by k.customer_id order by e.i), k.state_before) as previous
    from kept k
    cross join lateral unnest(k.changed_at[k.kept + 1:], k.states[k.kept + 1:]) with ordinality e(at, state, i)
  ),
  -- The customers' states from now on: what stays before the first change, then the walk's moments (a
  -- customer left with none has none).
  rescored_states as (
    select x.customer_id, coalesce(array_agg(x.at order by x.at) filter (where x.at is not null), '{}') as changed_at,
           coalesce(array_agg(x.state order by x.at) filter (where x.at is not null), '{}') as states
    from (
      select k.customer_id, null::timestamptz as at, null::smallint as state from kept k
      union all
      select k.customer_id, e.at, e.state
      from kept k cross join lateral unnest(k.changed_at[1:k.kept], k.states[1:k.kept]) e(at, state)
      union all
      select m.customer_id, m.at, m.state::smallint from now_moments m
    ) x
    group by x.customer_id
  ),
  -- `= any(customers)` as well, so the generic plan finds the rows by key whatever it guesses of the join.
  rescored as (
    update private.customer_scores s
    set changed_at = n.changed_at, states = n.states
    from rescored_states n
    where s.customer_id = n.customer_id and s.customer_id = any(customers)
    returning 1
  ),
  -- Customers entering (+1) and leaving (−1) each state, by hour: now's moments minus then's.
  state_changes as (
    select date_bin('1 hour', c.at, timestamptz '2000-01-01 00:00+00') as hour, c.state, sum(c.n) as n
    from (
      select m.at, m.state, 1 as n from now_moments m
      union all
      select m.at, m.previous, -1 from now_moments m
      union all
      select m.at, m.state, -1 from then_moments m
      union all
      select m.at, m.previous, 1 from then_moments m
    ) c
    where c.state <> 0
    group by 1, 2
    having sum(c.n) <> 0
  ),
  state_figures as materialized (select * from private.health_rfm_state_figures()),
  rfm_changes as (
    select x.days, c.hour, sum(c.n * x.customers) as customers, sum(c.n * x.score_sum) as score_sum,
           sum(c.n * x.scores_1_mod_3) as scores_1_mod_3, sum(c.n * x.scores_2_mod_3) as scores_2_mod_3,
           sum(c.n * x.scores_of_3) as scores_of_3, sum(c.n * x.repeat_customers) as repeat_customers
    from state_changes c
    join state_figures x on x.state = c.state
    group by 1, 2
  )
  select array_agg(row(c.days, c.hour, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, c.customers, c.score_sum, c.scores_1_mod_3,
                       c.scores_2_mod_3, c.scores_of_3, c.repeat_customers)::private.health_figure_changes)
  into changes
  from rfm_changes c;

  perform private.add_health_figure_changes(changes);
end
$$;

-- Every change of a statement's order writes, at once: the order figures and the scores of the customers
-- they concern. What the triggers do over a transaction, for a caller that needs it now (a rebuild, the
-- tests' recompute).
create or replace function private.apply_health_figure_changes(removed public.orders[], added public.orders[])
returns void
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.apply_order_figure_changes(removed, added);
  perform private.apply_customer_score_changes(array_agg(c.customer_id order by c.customer_id),
                                               array_agg(c.first_change order by c.customer_id))
  from private.changed_customer_scores(removed, added) c;
end
$$;

-- The customers an open transaction's order writes have changed, kept until it commits; a transaction
-- sees and removes only its own rows. Unlogged: no row outlives its transaction, so a crash loses nothing.
create unlogged table private.pending_customer_scores (
  transaction_id xid8 not null default pg_catalog.pg_current_xact_id(),
  customer_id uuid not null,
  first_change timestamptz not null,
  primary key (transaction_id, customer_id)
);

-- One row per transaction with pending scores, whose deferred trigger rescores them as it commits.
create unlogged table private.pending_customer_score_transactions (
  transaction_id xid8 primary key default pg_catalog.pg_current_xact_id()
);

alter table private.pending_customer_scores enable row level security;

alter table private.pending_customer_score_transactions enable row level security;

create policy "admins read pending customer scores" on private.pending_customer_scores
  for select to authenticated
  using ((select private.is_admin()));

create policy "admins read pending customer score transactions" on private.pending_customer_score_transactions
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.pending_customer_scores, private.pending_customer_score_transactions
from public, anon, authenticated, service_role;

-- Keeps the customers of a statement's order writes for rescoring at commit.
create or replace function private.defer_customer_score_changes(removed public.orders[], added public.orders[])
returns void
language plpgsql
volatile
set search_path = ''
as $$
begin
  insert into private.pending_customer_scores as p (customer_id, first_change)
  select c.customer_id, c.first_change from private.changed_customer_scores(removed, added) c
  order by c.customer_id
  on conflict (transaction_id, customer_id) do update set first_change = least(p.first_change, excluded.first_change);
  if found then
    insert into private.pending_customer_score_transactions default values on conflict do nothing;
  end if;
end
$$;

-- Deferred to COMMIT: rescores every customer this transaction's order writes changed, each once, from
-- its earliest change, in one pass that takes them in customer order. (A transaction that must read its
-- own writes' scores before it commits can `set constraints` this trigger `immediate`.) Security definer for the same
-- reason as the statement triggers.
create or replace function private.rescore_pending_customers()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  customers uuid[];
  first_changes timestamptz[];
begin
  delete from private.pending_customer_score_transactions t where t.transaction_id = pg_catalog.pg_current_xact_id();
  with pending as (
    delete from private.pending_customer_scores p
    where p.transaction_id = pg_catalog.pg_current_xact_id()
    returning p.customer_id, p.first_change
  )
  select array_agg(c.customer_id order by c.customer_id), array_agg(c.first_change order by c.customer_id)
  into customers, first_changes
  from pending c;
  perform private.apply_customer_score_changes(customers, first_changes);
  return null;
end
$$;

create constraint trigger pending_customer_score_transactions_rescore
  after insert on private.pending_customer_score_transactions
  deferrable initially deferred
  for each row execute function private.rescore_pending_customers();

alter table private.pending_customer_score_transactions enable always trigger pending_customer_score_transactions_rescore;

-- Statement-level, over the transition tables: the order figures now, the customers' scores at commit.
-- Security definer because order writers (administrators) have no rights on `private`.
create or replace function private.orders_maintain_health_figures()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  removed public.orders[];
  added public.orders[];
begin
  if tg_op = 'TRUNCATE' then
    truncate private.health_figure_changes, private.customer_scores, private.pending_customer_scores,
      private.pending_customer_score_transactions;
    return null;
  end if;
  if tg_op in ('UPDATE', 'DELETE') then
    removed := (select array_agg(o::public.orders) from old_rows o);
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    added := (select array_agg(n::public.orders) from new_rows n);
  end if;
  perform private.apply_order_figure_changes(removed, added);
  perform private.defer_customer_score_changes(removed, added);
  return null;
end
$$;

revoke execute on function private.health_rfm_state_figures(),
  private.add_health_figure_changes(private.health_figure_changes[]),
  private.apply_order_figure_changes(public.orders[], public.orders[]),
  private.changed_customer_scores(public.orders[], public.orders[]),
  private.apply_customer_score_changes(uuid[], timestamptz[]),
  private.apply_health_figure_changes(public.orders[], public.orders[]),
  private.defer_customer_score_changes(public.orders[], public.orders[]), private.rescore_pending_customers(),
  private.orders_maintain_health_figures()
from public, anon, authenticated;

select private.keep_derived_data('public.orders', 'orders_health_figures', 'private.orders_maintain_health_figures');
