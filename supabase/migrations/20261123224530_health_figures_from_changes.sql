-- Business health from figure changes kept by hour (docs/business-health.md): the order and customer (RFM)
-- figures of a report are read from private.health_figure_changes, kept by statement triggers on
-- public.orders, instead of from the orders of the window at request time. Replaces the per-customer order
-- history (private.customer_order_history), which only the old RFM pass read.

drop trigger if exists orders_history_insert on public.orders;
drop trigger if exists orders_history_update on public.orders;
drop trigger if exists orders_history_delete on public.orders;
drop trigger if exists orders_history_truncate on public.orders;
drop function private.orders_maintain_history();
drop function private.apply_order_history_changes(uuid[], date[], integer[], numeric[]);
drop function private.order_history_merge(date[], integer[], numeric[], date[], integer[], numeric[]);
drop table private.customer_order_history;

-- The orders completed or promised in the last part of an hour a report reads from the orders themselves.
create index orders_completed_at_idx on public.orders (completed_at) where completed_at is not null;

create index orders_promised_at_idx on public.orders (promised_at) where promised_at is not null;

-- supabase/schemas/50_health/30_figure_changes.sql

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

-- One row per customer whose score changes are kept: writers of one customer's orders take its row before
-- reading the customer's orders, so they follow each other and each reads what the previous ones
-- committed. Every such write updates the row, so under REPEATABLE READ a writer that could not see a
-- concurrent one's orders gets a serialization failure instead of a wrong difference.
create table private.customer_score_revisions (
  customer_id uuid primary key references public.customers (id) on delete cascade,
  revision bigint not null default 1
);

alter table private.customer_score_revisions enable row level security;

create policy "admins read customer score revisions" on private.customer_score_revisions
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.customer_score_revisions from public, anon, authenticated, service_role;

-- A writer slot for this transaction: the first of 64 transaction-level advisory locks no other open
-- transaction holds (a transaction keeps the slots it took until it ends). Two open transactions never hold
-- the same slot, so never write the same rows of `health_figure_changes`.
create or replace function private.health_writer_slot()
returns smallint
language plpgsql
volatile
set search_path = ''
as $$
declare
  candidate smallint;
begin
  for candidate in 1..64 loop
    if pg_catalog.pg_try_advisory_xact_lock(pg_catalog.hashtext('private.health_figure_changes'), candidate) then
      return candidate;
    end if;
  end loop;
  -- 64 writers at once: wait for the first slot rather than fail.
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('private.health_figure_changes'), 1);
  return 1;
end
$$;

-- A customer's RFM state is one number: 0 when they have no counted order (not refunded, not cancelled
-- yet) in the last 90 days, so are scored in no window; else 25 × R + 5 × (F − 1) + (M − 1), with the bands
-- of private.health_average_rfm_score (40_scoring.sql): R = 5 with an order in the last 3 days, 4 in 7, 3 in
-- 14, 2 in 30, else 1; F from 2, 3, 6, 10 orders in the last 365 days; M from 1,000, 5,000, 10,000, 20,000 of
-- their spend in those days. The state is computed from those counts (spend in cents) where they are
-- counted, here and in 50_figures.sql; test/database/business-health-rollups.test.ts holds every band edge
-- against the formula. This is what a state adds to each window's customer figures: a customer is in the
-- 7-day window's population when R ≥ 4 (an order in the last 7 days), in the 30-day one when R ≥ 2, in the
-- 90-day one when R ≥ 1.
create or replace function private.health_rfm_state_figures()
returns table (
  state integer, days smallint, customers integer, score_sum integer, scores_1_mod_3 integer,
  scores_2_mod_3 integer, scores_of_3 integer, repeat_customers integer
)
language sql
immutable
parallel safe
set search_path = ''
as $$
  select s.state, w.days, 1, s.score, (s.score % 3 = 1)::integer, (s.score % 3 = 2)::integer, (s.score = 3)::integer,
         (s.frequency > 1)::integer
  from (select g.state, g.state / 25 as recency, (g.state / 5) % 5 + 1 as frequency,
               g.state / 25 + (g.state / 5) % 5 + 1 + g.state % 5 + 1 as score
        from generate_series(25, 149) g(state)) s
  join (values (7::smallint, 4), (30::smallint, 2), (90::smallint, 1)) w(days, lowest_recency)
    on s.recency >= w.lowest_recency
$$;

-- Adds the changes of a statement's order writes (`removed`: the rows as they were, `added`: as they are;
-- either may be null) to `private.health_figure_changes` under this transaction's writer slot. The order
-- figures' steps are each order's own. A customer's score steps depend on all their orders, so for each
-- customer whose counted orders changed it walks their orders as they are now and as they were before the
-- statement (now, minus what it added, plus what it removed) in one pass, and adds the difference.
create or replace function private.apply_health_figure_changes(removed public.orders[], added public.orders[])
returns void
language plpgsql
volatile
set search_path = ''
set work_mem = '256MB'
-- Planned once per connection: a plan for every statement would cost more than a small write's changes.
set plan_cache_mode = 'force_generic_plan'
as $$
declare
  customers uuid[];
  writer smallint;
begin
  -- The customers whose counted orders (not refunded, not cancelled at or before ordering) changed in what
  -- RFM reads of them: time, amount, cancellation.
  select array_agg(distinct c.customer_id order by c.customer_id) into customers
  from (
    (select -1 as sign, a.id, a.customer_id, a.ordered_at, a.cancelled_at, a.total_amount from unnest(added) a
     where a.status <> 'refunded' and (a.cancelled_at is null or a.cancelled_at > a.ordered_at)
     except all
     select -1, r.id, r.customer_id, r.ordered_at, r.cancelled_at, r.total_amount from unnest(removed) r
     where r.status <> 'refunded' and (r.cancelled_at is null or r.cancelled_at > r.ordered_at))
    union all
    (select 1, r.id, r.customer_id, r.ordered_at, r.cancelled_at, r.total_amount from unnest(removed) r
     where r.status <> 'refunded' and (r.cancelled_at is null or r.cancelled_at > r.ordered_at)
     except all
     select 1, a.id, a.customer_id, a.ordered_at, a.cancelled_at, a.total_amount from unnest(added) a
     where a.status <> 'refunded' and (a.cancelled_at is null or a.cancelled_at > a.ordered_at))
  ) c;

  if customers is not null then
    -- Take their rows in customer order (two writers of several customers cannot deadlock), waiting for any
    -- open writer of the same customers; the next statement reads the orders those writers committed.
    insert into private.customer_score_revisions as r (customer_id)
    select c.customer_id from unnest(customers) c(customer_id) order by c.customer_id
    on conflict (customer_id) do update set revision = r.revision + 1;
  end if;

  writer := private.health_writer_slot();

  insert into private.health_figure_changes as f (
    days, hour, slot, orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders,
    previous_revenue_orders, customers, score_sum, scores_1_mod_3, scores_2_mod_3, scores_of_3,
    repeat_customers)
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
  -- Per window length: its end (ordered_at + days), whether the order becomes due in it (promised before the
  -- end and the cancellation) and whether it counts in the next window's previous revenue.
  order_windows as materialized (
    select i.*,
           not i.refunded and (i.cancelled_at is null or i.cancelled_at > i.ordered_at) as counted,
           i.ordered_at + interval '168 hours' as end_7,
           i.promised_at is not null
             and greatest(i.ordered_at, i.promised_at) < least(i.ordered_at + interval '168 hours', i.cancelled_at)
             as due_7,
           not i.refunded and (i.cancelled_at is null or i.cancelled_at > i.ordered_at + interval '168 hours')
             as previous_7,
           i.ordered_at + interval '720 hours' as end_30,
           i.promised_at is not null
             and greatest(i.ordered_at, i.promised_at) < least(i.ordered_at + interval '720 hours', i.cancelled_at)
             as due_30,
           not i.refunded and (i.cancelled_at is null or i.cancelled_at > i.ordered_at + interval '720 hours')
             as previous_30,
           i.ordered_at + interval '2160 hours' as end_90,
           i.promised_at is not null
             and greatest(i.ordered_at, i.promised_at) < least(i.ordered_at + interval '2160 hours', i.cancelled_at)
             as due_90,
           not i.refunded and (i.cancelled_at is null or i.cancelled_at > i.ordered_at + interval '2160 hours')
             as previous_90
    from order_inputs i
  ),
  -- Each figure is 1 (or the amount) for T in an interval (start, end], so +sign at its start and −sign at
  -- its end: one row per moment of an order, a column per figure and window length
  -- (orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders, previous_revenue_orders; for 7, 30 and 90 days).
  order_steps (
    at, orders_7, completed_7, cancelled_7, due_7, on_time_7, revenue_7, previous_revenue_7, revenue_orders_7,
    previous_revenue_orders_7, orders_30, completed_30, cancelled_30, due_30, on_time_30, revenue_30,
    previous_revenue_30, revenue_orders_30, previous_revenue_orders_30, orders_90, completed_90, cancelled_90,
    due_90, on_time_90, revenue_90, previous_revenue_90, revenue_orders_90, previous_revenue_orders_90
  ) as (
    -- ordered: in the window, and counted until the cancellation
    select o.ordered_at, o.sign, 0, 0, 0, 0, case when o.counted then o.sign * o.total_amount else 0 end, 0,
           case when o.counted then o.sign else 0 end, 0, o.sign, 0, 0, 0, 0,
           case when o.counted then o.sign * o.total_amount else 0 end, 0,
           case when o.counted then o.sign else 0 end, 0, o.sign, 0, 0, 0, 0,
           case when o.counted then o.sign * o.total_amount else 0 end, 0,
           case when o.counted then o.sign else 0 end, 0
    from order_windows o
    union all
    -- completed
    select greatest(o.ordered_at, o.completed_at), 0,
           case when o.completed_at < o.end_7 then o.sign else 0 end, 0, 0, 0, 0, 0, 0, 0, 0,
           case when o.completed_at < o.end_30 then o.sign else 0 end, 0, 0, 0, 0, 0, 0, 0, 0,
           case when o.completed_at < o.end_90 then o.sign else 0 end, 0, 0, 0, 0, 0, 0, 0
    from order_windows o
    where o.completed_at < o.end_90
    union all
    -- cancelled: no longer due nor counted
    select greatest(o.ordered_at, o.cancelled_at), 0, 0,
           case when o.cancelled_at < o.end_7 then o.sign else 0 end,
           case when o.due_7 and o.cancelled_at < o.end_7 then -o.sign else 0 end,
           case when o.due_7 and o.delivered_on_time and o.cancelled_at < o.end_7 then -o.sign else 0 end,
           case when o.counted and o.cancelled_at < o.end_7 then -o.sign * o.total_amount else 0 end, 0,
           case when o.counted and o.cancelled_at < o.end_7 then -o.sign else 0 end, 0, 0, 0,
           case when o.cancelled_at < o.end_30 then o.sign else 0 end,
           case when o.due_30 and o.cancelled_at < o.end_30 then -o.sign else 0 end,
           case when o.due_30 and o.delivered_on_time and o.cancelled_at < o.end_30 then -o.sign else 0 end,
           case when o.counted and o.cancelled_at < o.end_30 then -o.sign * o.total_amount else 0 end, 0,
           case when o.counted and o.cancelled_at < o.end_30 then -o.sign else 0 end, 0, 0, 0,
           case when o.cancelled_at < o.end_90 then o.sign else 0 end,
           case when o.due_90 and o.cancelled_at < o.end_90 then -o.sign else 0 end,
           case when o.due_90 and o.delivered_on_time and o.cancelled_at < o.end_90 then -o.sign else 0 end,
           case when o.counted and o.cancelled_at < o.end_90 then -o.sign * o.total_amount else 0 end, 0,
           case when o.counted and o.cancelled_at < o.end_90 then -o.sign else 0 end, 0
    from order_windows o
    where o.cancelled_at < o.end_90
    union all
    -- promised: due
    select greatest(o.ordered_at, o.promised_at), 0, 0, 0, case when o.due_7 then o.sign else 0 end,
           case when o.due_7 and o.delivered_on_time then o.sign else 0 end, 0, 0, 0, 0, 0, 0, 0,
           case when o.due_30 then o.sign else 0 end,
           case when o.due_30 and o.delivered_on_time then o.sign else 0 end, 0, 0, 0, 0, 0, 0, 0,
           case when o.due_90 then o.sign else 0 end,
           case when o.due_90 and o.delivered_on_time then o.sign else 0 end, 0, 0, 0, 0
    from order_windows o
    where o.due_90
    union all
    -- 7 days later: out of the 7-day window, into the one after it as its previous window
    select o.end_7, -o.sign, case when o.completed_at < o.end_7 then -o.sign else 0 end,
           case when o.cancelled_at < o.end_7 then -o.sign else 0 end,
           case when o.due_7 and not coalesce(o.cancelled_at < o.end_7, false) then -o.sign else 0 end,
           case when o.due_7 and o.delivered_on_time and not coalesce(o.cancelled_at < o.end_7, false) then -o.sign else 0 end,
           case when o.counted and not coalesce(o.cancelled_at < o.end_7, false) then -o.sign * o.total_amount else 0 end,
           case when o.previous_7 then o.sign * o.total_amount else 0 end,
           case when o.counted and not coalesce(o.cancelled_at < o.end_7, false) then -o.sign else 0 end,
           case when o.previous_7 then o.sign else 0 end, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    from order_windows o
    union all
    -- 30 days later: out of the 30-day window, into the one after it as its previous window
    select o.end_30, 0, 0, 0, 0, 0, 0, 0, 0, 0, -o.sign,
           case when o.completed_at < o.end_30 then -o.sign else 0 end,
           case when o.cancelled_at < o.end_30 then -o.sign else 0 end,
           case when o.due_30 and not coalesce(o.cancelled_at < o.end_30, false) then -o.sign else 0 end,
           case when o.due_30 and o.delivered_on_time and not coalesce(o.cancelled_at < o.end_30, false) then -o.sign else 0 end,
           case when o.counted and not coalesce(o.cancelled_at < o.end_30, false) then -o.sign * o.total_amount else 0 end,
           case when o.previous_30 then o.sign * o.total_amount else 0 end,
           case when o.counted and not coalesce(o.cancelled_at < o.end_30, false) then -o.sign else 0 end,
           case when o.previous_30 then o.sign else 0 end, 0, 0, 0, 0, 0, 0, 0, 0, 0
    from order_windows o
    union all
    -- 90 days later: out of the 90-day window, into the one after it as its previous window
    select o.end_90, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -o.sign,
           case when o.completed_at < o.end_90 then -o.sign else 0 end,
           case when o.cancelled_at < o.end_90 then -o.sign else 0 end,
           case when o.due_90 and not coalesce(o.cancelled_at < o.end_90, false) then -o.sign else 0 end,
           case when o.due_90 and o.delivered_on_time and not coalesce(o.cancelled_at < o.end_90, false) then -o.sign else 0 end,
           case when o.counted and not coalesce(o.cancelled_at < o.end_90, false) then -o.sign * o.total_amount else 0 end,
           case when o.previous_90 then o.sign * o.total_amount else 0 end,
           case when o.counted and not coalesce(o.cancelled_at < o.end_90, false) then -o.sign else 0 end,
           case when o.previous_90 then o.sign else 0 end
    from order_windows o
    union all
    -- out of that previous window (or cancelled)
    select least(o.ordered_at + interval '336 hours', o.cancelled_at), 0, 0, 0, 0, 0, 0,
           -o.sign * o.total_amount, 0, -o.sign, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    from order_windows o
    where o.previous_7
    union all
    -- out of that previous window (or cancelled)
    select least(o.ordered_at + interval '1440 hours', o.cancelled_at), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
           0, 0, -o.sign * o.total_amount, 0, -o.sign, 0, 0, 0, 0, 0, 0, 0, 0, 0
    from order_windows o
    where o.previous_30
    union all
    -- out of that previous window (or cancelled)
    select least(o.ordered_at + interval '4320 hours', o.cancelled_at), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
           0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -o.sign * o.total_amount, 0, -o.sign
    from order_windows o
    where o.previous_90
  ),
  order_changes as (
    select date_bin('1 hour', s.at, timestamptz '2000-01-01 00:00+00') as hour,
           sum(s.orders_7) as orders_7, sum(s.completed_7) as completed_7, sum(s.cancelled_7) as cancelled_7,
           sum(s.due_7) as due_7, sum(s.on_time_7) as on_time_7, sum(s.revenue_7) as revenue_7,
           sum(s.previous_revenue_7) as previous_revenue_7, sum(s.revenue_orders_7) as revenue_orders_7,
           sum(s.previous_revenue_orders_7) as previous_revenue_orders_7, sum(s.orders_30) as orders_30,
           sum(s.completed_30) as completed_30, sum(s.cancelled_30) as cancelled_30, sum(s.due_30) as due_30,
           sum(s.on_time_30) as on_time_30, sum(s.revenue_30) as revenue_30,
           sum(s.previous_revenue_30) as previous_revenue_30, sum(s.revenue_orders_30) as revenue_orders_30,
           sum(s.previous_revenue_orders_30) as previous_revenue_orders_30, sum(s.orders_90) as orders_90,
           sum(s.completed_90) as completed_90, sum(s.cancelled_90) as cancelled_90, sum(s.due_90) as due_90,
           sum(s.on_time_90) as on_time_90, sum(s.revenue_90) as revenue_90,
           sum(s.previous_revenue_90) as previous_revenue_90, sum(s.revenue_orders_90) as revenue_orders_90,
           sum(s.previous_revenue_orders_90) as previous_revenue_orders_90
    from order_steps s
    group by 1
  ),
  -- RFM: the changed customers' counted orders as they are now (now_weight 1) and as they were (then_weight:
  -- now, minus the rows the statement added, plus those it removed), from the first changed order's time
  -- (before it nothing differs) with the orders still counted then; amounts in cents, exact in float8.
  corrections as materialized (
    select c.customer_id, c.ordered_at, c.cancelled_at, c.total_amount, c.sign
    from (
      (select -1 as sign, a.id, a.customer_id, a.ordered_at, a.cancelled_at, a.total_amount from unnest(added) a
       where a.status <> 'refunded' and (a.cancelled_at is null or a.cancelled_at > a.ordered_at)
       except all
       select -1, r.id, r.customer_id, r.ordered_at, r.cancelled_at, r.total_amount from unnest(removed) r
       where r.status <> 'refunded' and (r.cancelled_at is null or r.cancelled_at > r.ordered_at))
      union all
      (select 1, r.id, r.customer_id, r.ordered_at, r.cancelled_at, r.total_amount from unnest(removed) r
       where r.status <> 'refunded' and (r.cancelled_at is null or r.cancelled_at > r.ordered_at)
       except all
       select 1, a.id, a.customer_id, a.ordered_at, a.cancelled_at, a.total_amount from unnest(added) a
       where a.status <> 'refunded' and (a.cancelled_at is null or a.cancelled_at > a.ordered_at))
    ) c
  ),
  counted as materialized (
    select o.customer_id, f.first_change, o.ordered_at, o.cancelled_at, (o.total_amount * 100)::float8 as cents,
           1 as now_weight, 1 as then_weight
    from (select c.customer_id, min(c.ordered_at) as first_change from corrections c group by 1) f
    join public.orders o on o.customer_id = f.customer_id
    where o.status <> 'refunded' and (o.cancelled_at is null or o.cancelled_at > o.ordered_at)
      and least(o.cancelled_at, o.ordered_at + interval '8760 hours') >= f.first_change
    union all
    select c.customer_id, min(c.ordered_at) over (partition by c.customer_id), c.ordered_at, c.cancelled_at,
           (c.total_amount * 100)::float8, 0, c.sign
    from corrections c
  ),
  -- An order counts for T in (ordered_at, cancelled_at] (cancelled_at null: always), so among the last x
  -- days' orders for T in (ordered_at, least(cancelled_at, ordered_at + x)]: at ordered_at (kind 0) it enters
  -- every count (3, 7, 14, 30, 90 and 365 days, and the year's spend), then leaves each at its end (kinds 1
  -- to 6). Generated customer by customer, so the walk below sorts each customer's steps on their own.
  counted_steps (customer_id, first_change, at, kind, now_weight, then_weight, cents) as (
    select c.customer_id, c.first_change,
           case k.kind when 0 then c.ordered_at
                else least(c.cancelled_at, c.ordered_at + (array[interval '72 hours', interval '168 hours',
                     interval '336 hours', interval '720 hours', interval '2160 hours', interval '8760 hours'])[k.kind]) end,
           k.kind, c.now_weight, c.then_weight, c.cents
    from (select * from counted order by customer_id) c
    cross join generate_series(0, 6) k(kind)
  ),
  -- The counts after each step, now (n…) and before the statement (t…). The state before a step is the
  -- state after it minus the step, so steps at the same moment add up one at a time.
  running as (
    select s.first_change, s.at, s.kind, s.now_weight as nw, s.then_weight as tw, s.cents,
           sum(case s.kind when 0 then s.now_weight when 1 then -s.now_weight else 0 end) over w as n3,
           sum(case s.kind when 0 then s.now_weight when 2 then -s.now_weight else 0 end) over w as n7,
           sum(case s.kind when 0 then s.now_weight when 3 then -s.now_weight else 0 end) over w as n14,
           sum(case s.kind when 0 then s.now_weight when 4 then -s.now_weight else 0 end) over w as n30,
           sum(case s.kind when 0 then s.now_weight when 5 then -s.now_weight else 0 end) over w as n90,
           sum(case s.kind when 0 then s.now_weight when 6 then -s.now_weight else 0 end) over w as n365,
           sum(case s.kind when 0 then s.now_weight * s.cents when 6 then -s.now_weight * s.cents else 0 end)
             over w as nspend,
           sum(case s.kind when 0 then s.then_weight when 1 then -s.then_weight else 0 end) over w as t3,
           sum(case s.kind when 0 then s.then_weight when 2 then -s.then_weight else 0 end) over w as t7,
           sum(case s.kind when 0 then s.then_weight when 3 then -s.then_weight else 0 end) over w as t14,
           sum(case s.kind when 0 then s.then_weight when 4 then -s.then_weight else 0 end) over w as t30,
           sum(case s.kind when 0 then s.then_weight when 5 then -s.then_weight else 0 end) over w as t90,
           sum(case s.kind when 0 then s.then_weight when 6 then -s.then_weight else 0 end) over w as t365,
           sum(case s.kind when 0 then s.then_weight * s.cents when 6 then -s.then_weight * s.cents else 0 end)
             over w as tspend
    from counted_steps s
    window w as (partition by s.customer_id order by s.at rows unbounded preceding)
  ),
  -- The customer's state (private.health_rfm_state_figures) after and before each step, now and then, from
  -- the first changed order on; only the steps where now and then differ matter.
  states as materialized (
    select x.*
    from (
      select r.at,
             case when r.n90 <= 0 then 0
                  else 25 * (case when r.n3 > 0 then 5 when r.n7 > 0 then 4
                                  when r.n14 > 0 then 3 when r.n30 > 0 then 2 else 1 end)
                       + 5 * (case when r.n365 >= 10 then 4 when r.n365 >= 6 then 3
                                   when r.n365 >= 3 then 2 when r.n365 >= 2 then 1 else 0 end)
                       + (case when r.nspend >= 2000000 then 4 when r.nspend >= 1000000 then 3
                               when r.nspend >= 500000 then 2 when r.nspend >= 100000 then 1 else 0 end) end as now_after,
             case when (r.n90 - case r.kind when 0 then r.nw when 5 then -r.nw else 0 end) <= 0 then 0
                  else 25 * (case when (r.n3 - case r.kind when 0 then r.nw when 1 then -r.nw else 0 end) > 0 then 5 when (r.n7 - case r.kind when 0 then r.nw when 2 then -r.nw else 0 end) > 0 then 4
                                  when (r.n14 - case r.kind when 0 then r.nw when 3 then -r.nw else 0 end) > 0 then 3 when (r.n30 - case r.kind when 0 then r.nw when 4 then -r.nw else 0 end) > 0 then 2 else 1 end)
                       + 5 * (case when (r.n365 - case r.kind when 0 then r.nw when 6 then -r.nw else 0 end) >= 10 then 4 when (r.n365 - case r.kind when 0 then r.nw when 6 then -r.nw else 0 end) >= 6 then 3
                                   when (r.n365 - case r.kind when 0 then r.nw when 6 then -r.nw else 0 end) >= 3 then 2 when (r.n365 - case r.kind when 0 then r.nw when 6 then -r.nw else 0 end) >= 2 then 1 else 0 end)
                       + (case when (r.nspend - case r.kind when 0 then r.nw * r.cents when 6 then -r.nw * r.cents else 0 end) >= 2000000 then 4 when (r.nspend - case r.kind when 0 then r.nw * r.cents when 6 then -r.nw * r.cents else 0 end) >= 1000000 then 3
                               when (r.nspend - case r.kind when 0 then r.nw * r.cents when 6 then -r.nw * r.cents else 0 end) >= 500000 then 2 when (r.nspend - case r.kind when 0 then r.nw * r.cents when 6 then -r.nw * r.cents else 0 end) >= 100000 then 1 else 0 end) end as now_before,
             case when r.t90 <= 0 then 0
                  else 25 * (case when r.t3 > 0 then 5 when r.t7 > 0 then 4
                                  when r.t14 > 0 then 3 when r.t30 > 0 then 2 else 1 end)
                       + 5 * (case when r.t365 >= 10 then 4 when r.t365 >= 6 then 3
                                   when r.t365 >= 3 then 2 when r.t365 >= 2 then 1 else 0 end)
                       + (case when r.tspend >= 2000000 then 4 when r.tspend >= 1000000 then 3
                               when r.tspend >= 500000 then 2 when r.tspend >= 100000 then 1 else 0 end) end as then_after,
             case when (r.t90 - case r.kind when 0 then r.tw when 5 then -r.tw else 0 end) <= 0 then 0
                  else 25 * (case when (r.t3 - case r.kind when 0 then r.tw when 1 then -r.tw else 0 end) > 0 then 5 when (r.t7 - case r.kind when 0 then r.tw when 2 then -r.tw else 0 end) > 0 then 4
                                  when (r.t14 - case r.kind when 0 then r.tw when 3 then -r.tw else 0 end) > 0 then 3 when (r.t30 - case r.kind when 0 then r.tw when 4 then -r.tw else 0 end) > 0 then 2 else 1 end)
                       + 5 * (case when (r.t365 - case r.kind when 0 then r.tw when 6 then -r.tw else 0 end) >= 10 then 4 when (r.t365 - case r.kind when 0 then r.tw when 6 then -r.tw else 0 end) >= 6 then 3
                                   when (r.t365 - case r.kind when 0 then r.tw when 6 then -r.tw else 0 end) >= 3 then 2 when (r.t365 - case r.kind when 0 then r.tw when 6 then -r.tw else 0 end) >= 2 then 1 else 0 end)
                       + (case when (r.tspend - case r.kind when 0 then r.tw * r.cents when 6 then -r.tw * r.cents else 0 end) >= 2000000 then 4 when (r.tspend - case r.kind when 0 then r.tw * r.cents when 6 then -r.tw * r.cents else 0 end) >= 1000000 then 3
                               when (r.tspend - case r.kind when 0 then r.tw * r.cents when 6 then -r.tw * r.cents else 0 end) >= 500000 then 2 when (r.tspend - case r.kind when 0 then r.tw * r.cents when 6 then -r.tw * r.cents else 0 end) >= 100000 then 1 else 0 end) end as then_before
      from running r
      where r.at >= r.first_change
    ) x
    where (x.now_after, x.now_before) is distinct from (x.then_after, x.then_before)
  ),
  -- Customers entering (+1) and leaving (−1) each state, by hour: now's steps minus then's.
  state_changes as (
    select date_bin('1 hour', c.at, timestamptz '2000-01-01 00:00+00') as hour, c.state, sum(c.n) as n
    from (
      select s.at, s.now_after as state, 1 as n from states s where s.now_before <> s.now_after
      union all
      select s.at, s.now_before, -1 from states s where s.now_before <> s.now_after
      union all
      select s.at, s.then_after, -1 from states s where s.then_before <> s.then_after
      union all
      select s.at, s.then_before, 1 from states s where s.then_before <> s.then_after
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
  ),
  changes as (
    select v.days, c.hour, v.orders, v.completed, v.cancelled, v.due, v.on_time, v.revenue, v.previous_revenue,
           v.revenue_orders, v.previous_revenue_orders,
           0 as customers, 0 as score_sum, 0 as scores_1_mod_3, 0 as scores_2_mod_3, 0 as scores_of_3,
           0 as repeat_customers
    from order_changes c
    cross join lateral (values (7, c.orders_7, c.completed_7, c.cancelled_7, c.due_7, c.on_time_7, c.revenue_7, c.previous_revenue_7, c.revenue_orders_7, c.previous_revenue_orders_7),
                                (30, c.orders_30, c.completed_30, c.cancelled_30, c.due_30, c.on_time_30, c.revenue_30, c.previous_revenue_30, c.revenue_orders_30, c.previous_revenue_orders_30),
                                (90, c.orders_90, c.completed_90, c.cancelled_90, c.due_90, c.on_time_90, c.revenue_90, c.previous_revenue_90, c.revenue_orders_90, c.previous_revenue_orders_90)) v(days, orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders, previous_revenue_orders)
    union all
    select c.days, c.hour, 0, 0, 0, 0, 0, 0, 0, 0, 0, c.customers, c.score_sum, c.scores_1_mod_3, c.scores_2_mod_3, c.scores_of_3, c.repeat_customers
    from rfm_changes c
  )
  select c.days, c.hour, writer, sum(c.orders), sum(c.completed), sum(c.cancelled), sum(c.due), sum(c.on_time), sum(c.revenue),
         sum(c.previous_revenue), sum(c.revenue_orders), sum(c.previous_revenue_orders), sum(c.customers),
         sum(c.score_sum), sum(c.scores_1_mod_3), sum(c.scores_2_mod_3), sum(c.scores_of_3),
         sum(c.repeat_customers)
  from changes c
  group by c.days, c.hour
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

-- Statement-level, over the transition tables. Security definer because order writers (administrators)
-- have no rights on `private`.
create or replace function private.orders_maintain_health_figures()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    perform private.apply_health_figure_changes(null, (select array_agg(n::public.orders) from new_rows n));
  elsif tg_op = 'UPDATE' then
    perform private.apply_health_figure_changes((select array_agg(o::public.orders) from old_rows o),
                                                (select array_agg(n::public.orders) from new_rows n));
  elsif tg_op = 'DELETE' then
    perform private.apply_health_figure_changes((select array_agg(o::public.orders) from old_rows o), null);
  else
    truncate private.health_figure_changes, private.customer_score_revisions;
  end if;
  return null;
end
$$;

revoke execute on function private.health_writer_slot(), private.health_rfm_state_figures(),
  private.apply_health_figure_changes(public.orders[], public.orders[]), private.orders_maintain_health_figures()
from public, anon, authenticated;

-- supabase/schemas/50_health/50_figures.sql: the order and customer figures from the kept changes; windows of
-- 24-hour days in every figure.

-- The order and customer figures of the window of `days` days ending at the hour boundary `at`: the
-- changes of the hours before it or, because every order's and customer's changes add up to zero, minus
-- those from it on; whichever side has fewer hours.
create or replace function private.health_figures_before(days integer, at timestamptz)
returns table (
  orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint, revenue numeric,
  previous_revenue numeric, revenue_orders bigint, previous_revenue_orders bigint, customers bigint,
  score_sum bigint, scores_1_mod_3 bigint, scores_2_mod_3 bigint, scores_of_3 bigint, repeat_customers bigint
)
language plpgsql
stable
set search_path = ''
as $$
declare
  first_hour timestamptz;
  last_hour timestamptz;
begin
  select min(c.hour), max(c.hour) into first_hour, last_hour
  from private.health_figure_changes c where c.days = health_figures_before.days;
  if first_hour is null or at <= first_hour or at > last_hour then
    return query select 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::numeric, 0::numeric, 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint;
  elsif at - first_hour <= last_hour - at then
    return query
    select coalesce(sum(c.orders), 0)::bigint,
           coalesce(sum(c.completed), 0)::bigint,
           coalesce(sum(c.cancelled), 0)::bigint,
           coalesce(sum(c.due), 0)::bigint,
           coalesce(sum(c.on_time), 0)::bigint,
           coalesce(sum(c.revenue), 0)::numeric,
           coalesce(sum(c.previous_revenue), 0)::numeric,
           coalesce(sum(c.revenue_orders), 0)::bigint,
           coalesce(sum(c.previous_revenue_orders), 0)::bigint,
           coalesce(sum(c.customers), 0)::bigint,
           coalesce(sum(c.score_sum), 0)::bigint,
           coalesce(sum(c.scores_1_mod_3), 0)::bigint,
           coalesce(sum(c.scores_2_mod_3), 0)::bigint,
           coalesce(sum(c.scores_of_3), 0)::bigint,
           coalesce(sum(c.repeat_customers), 0)::bigint
    from private.health_figure_changes c
    where c.days = health_figures_before.days and c.hour < at;
  else
    return query
    select coalesce(-sum(c.orders), 0)::bigint,
           coalesce(-sum(c.completed), 0)::bigint,
           coalesce(-sum(c.cancelled), 0)::bigint,
           coalesce(-sum(c.due), 0)::bigint,
           coalesce(-sum(c.on_time), 0)::bigint,
           coalesce(-sum(c.revenue), 0)::numeric,
           coalesce(-sum(c.previous_revenue), 0)::numeric,
           coalesce(-sum(c.revenue_orders), 0)::bigint,
           coalesce(-sum(c.previous_revenue_orders), 0)::bigint,
           coalesce(-sum(c.customers), 0)::bigint,
           coalesce(-sum(c.score_sum), 0)::bigint,
           coalesce(-sum(c.scores_1_mod_3), 0)::bigint,
           coalesce(-sum(c.scores_2_mod_3), 0)::bigint,
           coalesce(-sum(c.scores_of_3), 0)::bigint,
           coalesce(-sum(c.repeat_customers), 0)::bigint
    from private.health_figure_changes c
    where c.days = health_figures_before.days and c.hour >= at;
  end if;
end
$$;

-- Orders in the window [as_of − days, as_of) and in the equal window before it, as of `as_of`: orders,
-- completed before `as_of`, cancelled before it, due (promised before it, not cancelled) and on time
-- among those, and the counted revenue (not refunded, not cancelled before `as_of`) of both windows.
create or replace function private.health_window_order_figures(as_of timestamptz, days integer)
returns table (
  orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint, revenue numeric, previous_revenue numeric
)
language plpgsql
stable
set search_path = ''
set plan_cache_mode = 'force_custom_plan'
as $$
declare
  span interval := make_interval(hours => 24 * days);
  hour_start timestamptz := date_bin('1 hour', as_of, timestamptz '2000-01-01 00:00+00');
begin
  return query
  with
  -- Every order with a step in [hour_start, as_of): ordered then, or one or two windows before, or
  -- completed, promised or cancelled then.
  stepping as (
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.status, o.total_amount
    from public.orders o where o.ordered_at >= hour_start and o.ordered_at < as_of
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.status, o.total_amount
    from public.orders o where o.ordered_at >= hour_start - span and o.ordered_at < as_of - span
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.status, o.total_amount
    from public.orders o where o.ordered_at >= hour_start - 2 * span and o.ordered_at < as_of - 2 * span
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.status, o.total_amount
    from public.orders o where o.completed_at >= hour_start and o.completed_at < as_of
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.status, o.total_amount
    from public.orders o where o.promised_at >= hour_start and o.promised_at < as_of
    union
    select o.id, o.ordered_at, o.completed_at, o.cancelled_at, o.promised_at, o.delivered_at, o.status, o.total_amount
    from public.orders o where o.cancelled_at >= hour_start and o.cancelled_at < as_of
  ),
  -- Their figures as of `as_of` (+1) and as of hour_start (−1).
  stepped as (
    select x.sign, o.ordered_at >= x.t - span and o.ordered_at < x.t as in_window,
           o.ordered_at >= x.t - 2 * span and o.ordered_at < x.t - span as in_previous,
           coalesce(o.cancelled_at < x.t, false) as is_cancelled, o.completed_at < x.t as is_completed,
           o.promised_at < x.t as is_promised, o.delivered_at <= o.promised_at as delivered_on_time,
           o.status, o.total_amount
    from stepping o
    cross join (values (as_of, 1), (hour_start, -1)) x(t, sign)
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
              else f.previous_revenue + c.previous_revenue end
  from private.health_figures_before(days, hour_start) f, change c;
end
$$;

-- RFM of the customers with a counted order (not refunded, not cancelled before `as_of`) in the window:
-- how many, their average score (R + F + M) / 3 (private.health_average_rfm_score), and how many have
-- two orders or more in the 365 days before `as_of`. The average is the one `avg` computes over the
-- customers' scores, each (R + F + M) / 3 as numeric, to the last digit.
create or replace function private.health_window_customer_figures(as_of timestamptz, days integer)
returns table (customers bigint, average_rfm numeric, repeat_customers bigint)
language plpgsql
stable
set search_path = ''
set plan_cache_mode = 'force_custom_plan'
as $$
declare
  hour_start timestamptz := date_bin('1 hour', as_of, timestamptz '2000-01-01 00:00+00');
begin
  return query
  with
  -- Every customer with a step in [hour_start, as_of): an order placed then, or 3, 7, 14, 30, 90 or 365
  -- days before, or cancelled then.
  stepping as (
      select o.customer_id from public.orders o
      where o.ordered_at >= hour_start and o.ordered_at < as_of
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= hour_start - interval '72 hours' and o.ordered_at < as_of - interval '72 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= hour_start - interval '168 hours' and o.ordered_at < as_of - interval '168 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= hour_start - interval '336 hours' and o.ordered_at < as_of - interval '336 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= hour_start - interval '720 hours' and o.ordered_at < as_of - interval '720 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= hour_start - interval '2160 hours' and o.ordered_at < as_of - interval '2160 hours'
      union
      select o.customer_id from public.orders o
      where o.ordered_at >= hour_start - interval '8760 hours' and o.ordered_at < as_of - interval '8760 hours'
      union
      select o.customer_id from public.orders o where o.cancelled_at >= hour_start and o.cancelled_at < as_of
  ),
  -- Their counts as of `as_of` (a…) and as of hour_start (h…), as in private.apply_health_figure_changes.
  counts as (
    select count(*) filter (where o.ordered_at < as_of and as_of <= least(o.cancelled_at, o.ordered_at + interval '72 hours')) as a3,
             count(*) filter (where o.ordered_at < as_of and as_of <= least(o.cancelled_at, o.ordered_at + interval '168 hours')) as a7,
             count(*) filter (where o.ordered_at < as_of and as_of <= least(o.cancelled_at, o.ordered_at + interval '336 hours')) as a14,
             count(*) filter (where o.ordered_at < as_of and as_of <= least(o.cancelled_at, o.ordered_at + interval '720 hours')) as a30,
             count(*) filter (where o.ordered_at < as_of and as_of <= least(o.cancelled_at, o.ordered_at + interval '2160 hours')) as a90,
             count(*) filter (where o.ordered_at < as_of and as_of <= least(o.cancelled_at, o.ordered_at + interval '8760 hours')) as a365,
             coalesce(sum((o.total_amount * 100)::float8) filter (where o.ordered_at < as_of and as_of <= least(o.cancelled_at, o.ordered_at + interval '8760 hours')), 0) as aspend,
             count(*) filter (where o.ordered_at < hour_start and hour_start <= least(o.cancelled_at, o.ordered_at + interval '72 hours')) as h3,
             count(*) filter (where o.ordered_at < hour_start and hour_start <= least(o.cancelled_at, o.ordered_at + interval '168 hours')) as h7,
             count(*) filter (where o.ordered_at < hour_start and hour_start <= least(o.cancelled_at, o.ordered_at + interval '336 hours')) as h14,
             count(*) filter (where o.ordered_at < hour_start and hour_start <= least(o.cancelled_at, o.ordered_at + interval '720 hours')) as h30,
             count(*) filter (where o.ordered_at < hour_start and hour_start <= least(o.cancelled_at, o.ordered_at + interval '2160 hours')) as h90,
             count(*) filter (where o.ordered_at < hour_start and hour_start <= least(o.cancelled_at, o.ordered_at + interval '8760 hours')) as h365,
             coalesce(sum((o.total_amount * 100)::float8) filter (where o.ordered_at < hour_start and hour_start <= least(o.cancelled_at, o.ordered_at + interval '8760 hours')), 0) as hspend
    from stepping s
    join public.orders o on o.customer_id = s.customer_id
    where o.ordered_at >= hour_start - interval '8760 hours' and o.ordered_at < as_of
      and o.status <> 'refunded' and (o.cancelled_at is null or o.cancelled_at > o.ordered_at)
    group by s.customer_id
  ),
  -- Their states (private.health_rfm_state_figures) as of `as_of` (+1) and as of hour_start (−1).
  states as (
    select 1 as sign, case when c.a90 <= 0 then 0
                else 25 * (case when c.a3 > 0 then 5 when c.a7 > 0 then 4 when c.a14 > 0 then 3
                                when c.a30 > 0 then 2 else 1 end)
                     + 5 * (case when c.a365 >= 10 then 4 when c.a365 >= 6 then 3 when c.a365 >= 3 then 2
                                 when c.a365 >= 2 then 1 else 0 end)
                     + (case when c.aspend >= 2000000 then 4 when c.aspend >= 1000000 then 3
                             when c.aspend >= 500000 then 2 when c.aspend >= 100000 then 1 else 0 end) end as state
    from counts c
    union all
    select -1, case when c.h90 <= 0 then 0
                else 25 * (case when c.h3 > 0 then 5 when c.h7 > 0 then 4 when c.h14 > 0 then 3
                                when c.h30 > 0 then 2 else 1 end)
                     + 5 * (case when c.h365 >= 10 then 4 when c.h365 >= 6 then 3 when c.h365 >= 3 then 2
                                 when c.h365 >= 2 then 1 else 0 end)
                     + (case when c.hspend >= 2000000 then 4 when c.hspend >= 1000000 then 3
                             when c.hspend >= 500000 then 2 when c.hspend >= 100000 then 1 else 0 end) end
    from counts c
  ),
  change as (
    select coalesce(sum(s.sign * x.customers), 0) as customers, coalesce(sum(s.sign * x.score_sum), 0) as score_sum, coalesce(sum(s.sign * x.scores_1_mod_3), 0) as scores_1_mod_3, coalesce(sum(s.sign * x.scores_2_mod_3), 0) as scores_2_mod_3, coalesce(sum(s.sign * x.scores_of_3), 0) as scores_of_3, coalesce(sum(s.sign * x.repeat_customers), 0) as repeat_customers
    from states s
    join private.health_rfm_state_figures() x on x.state = s.state and x.days = health_window_customer_figures.days
  ),
  totals as (
    select f.customers + c.customers as customers, f.score_sum + c.score_sum as score_sum, f.scores_1_mod_3 + c.scores_1_mod_3 as scores_1_mod_3, f.scores_2_mod_3 + c.scores_2_mod_3 as scores_2_mod_3, f.scores_of_3 + c.scores_of_3 as scores_of_3, f.repeat_customers + c.repeat_customers as repeat_customers
    from private.health_figures_before(days, hour_start) f, change c
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
-- trend's current week).
create or replace function private.health_order_figures(as_of timestamptz, days integer)
returns table (
  orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint,
  revenue numeric, previous_revenue numeric, week_orders bigint, week_completed bigint
)
language sql
stable
set search_path = ''
as $$
  select p.orders, p.completed, p.cancelled, p.due, p.on_time, p.revenue, p.previous_revenue,
         case when days > 7 then w.orders else p.orders end, case when days > 7 then w.completed else p.completed end
  from private.health_window_order_figures(as_of, days) p
  left join lateral (select * from private.health_window_order_figures(as_of, 7) where days > 7) w on true
$$;

-- The period's customer figures and, for a period longer than a week, its last 7 days' (`week_*`).
create or replace function private.health_customer_figures(as_of timestamptz, days integer)
returns table (
  customers bigint, average_rfm numeric, repeat_customers bigint, week_customers bigint, week_average_rfm numeric
)
language sql
stable
set search_path = ''
as $$
  select p.customers, p.average_rfm, p.repeat_customers,
         case when days > 7 then w.customers else p.customers end,
         case when days > 7 then w.average_rfm else p.average_rfm end
  from private.health_window_customer_figures(as_of, days) p
  left join lateral (select * from private.health_window_customer_figures(as_of, 7) where days > 7) w on true
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
    where t.opened_at >= as_of - make_interval(hours => 24 * days) and t.opened_at < as_of
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
      and m.created_at >= as_of - make_interval(hours => 24 * days) and m.created_at < as_of
  )
  select count(*),
         (count(*) filter (where a.current_stock > 0))::numeric / nullif(count(*), 0),
         (count(*) filter (where s.product_id is not null))::numeric / nullif(count(*), 0)
  from active a
  left join sold s on s.product_id = a.id;
end
$$;

revoke execute on function
  private.health_figures_before(integer, timestamptz), private.health_window_order_figures(timestamptz, integer),
  private.health_window_customer_figures(timestamptz, integer)
from public, anon, authenticated;

grant execute on function
  private.health_figures_before(integer, timestamptz), private.health_window_order_figures(timestamptz, integer),
  private.health_window_customer_figures(timestamptz, integer)
to service_role;

-- supabase/schemas/50_health/60_report.sql: the trend's previous week is 168 hours before.

create or replace function private.health_report(
  period text,
  include_system boolean,
  include_trends boolean,
  include_insights boolean,
  as_of timestamptz
)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  days integer := case period when '7d' then 7 when '30d' then 30 when '90d' then 90 end;
  stage text := 'parameters';
  o record;
  c record;
  t record;
  p record;
  sys_requests bigint;
  sys_failures bigint;
  sys_success numeric;
  sys_p95 numeric;
  sys_connections numeric;
  metrics jsonb;
  customer_quality numeric;
  operational_efficiency numeric;
  support_effectiveness numeric;
  overall numeric;
  result jsonb;
  field text;
  value numeric;
begin
  if days is null then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'Invalid period', jsonb_build_object(
      'parameter', 'period', 'provided', period, 'expected', jsonb_build_array('7d', '30d', '90d')));
  end if;

  stage := 'orders';
  select * into o from private.health_order_figures(as_of, days);
  stage := 'customers';
  select * into c from private.health_customer_figures(as_of, days);
  stage := 'tickets';
  select * into t from private.health_ticket_figures(as_of, days);
  stage := 'products';
  select * into p from private.health_product_figures(as_of, days);
  if include_system then
    stage := 'system';
    select f.requests, f.failures, f.success_rate, f.p95_ms, f.connection_usage
      into sys_requests, sys_failures, sys_success, sys_p95, sys_connections
    from private.health_system_figures(as_of) f;
  end if;

  stage := 'scores';
  customer_quality := coalesce(c.average_rfm / 5 * 100, 0);
  operational_efficiency := coalesce(o.completed::numeric / nullif(o.orders, 0) * 100, 0);
  support_effectiveness := case when t.tickets = 0 then 0
    else (t.resolved::numeric / t.tickets * 0.7 + t.response_score * 0.3) * 100 end;
  overall := (customer_quality + operational_efficiency + support_effectiveness) / 3;

  metrics := jsonb_build_object(
    'revenue', private.health_revenue_score(o.revenue, o.previous_revenue),
    'satisfaction', private.health_satisfaction_score(t.average_rating, t.resolved::numeric / nullif(t.tickets, 0)),
    'fulfillment', private.health_fulfillment_score(
      o.completed::numeric / nullif(o.orders, 0), o.on_time::numeric / nullif(o.due, 0)),
    'support', support_effectiveness / 10,
    'products', private.health_products_score(p.in_stock_share, p.sold_share),
    'marketing', 0,
    'system', case when include_system then private.health_system_score(sys_success, sys_p95, sys_connections) end
  );

  -- A score outside its scale means a formula or its data went wrong: refuse to answer with it.
  stage := 'validation';
  for field, value in select j.key, (j.value #>> '{}')::numeric from jsonb_each(metrics) j loop
    if value is not null and not (value between 0 and 10) then
      perform private.raise_api_error(500, 'CALCULATION_ERROR', 'Health calculation failed',
        jsonb_build_object('stage', 'validation', 'reason', format('metrics.%s is %s, outside 0-10', field, value)));
    end if;
  end loop;
  if not (overall between 0 and 100) then
    perform private.raise_api_error(500, 'CALCULATION_ERROR', 'Health calculation failed',
      jsonb_build_object('stage', 'validation', 'reason', format('overallScore is %s, outside 0-100', overall)));
  end if;

  result := jsonb_build_object(
    'metrics', (select jsonb_object_agg(j.key, case when j.value = 'null'::jsonb then j.value
                                                   else to_jsonb(round((j.value #>> '{}')::numeric, 2)) end)
                from jsonb_each(metrics) j),
    'scoreDetails', jsonb_build_object(
      'customerQuality', round(customer_quality, 2),
      'operationalEfficiency', round(operational_efficiency, 2),
      'supportEffectiveness', round(support_effectiveness, 2),
      'overallScore', round(overall, 2),
      'rating', private.health_rating(overall)
    )
  );

  -- The trend's current week comes with the period's figures (the same pass, the customers and orders
  -- of its last 7 days); the previous week is a report as of 7 days earlier.
  if include_trends then
    stage := 'trends';
    result := result || jsonb_build_object('trends', private.health_trend(
      private.health_percent_change(
        coalesce(c.week_average_rfm / 5 * 100, 0),
        coalesce((select f.average_rfm / 5 * 100 from private.health_customer_figures(as_of - interval '168 hours', 7) f), 0)),
      private.health_percent_change(
        coalesce(o.week_completed::numeric / nullif(o.week_orders, 0) * 100, 0),
        coalesce((select f.completed::numeric / nullif(f.orders, 0) * 100
                  from private.health_order_figures(as_of - interval '168 hours', 7) f), 0))));
  end if;

  if include_insights then
    stage := 'insights';
    result := result || jsonb_build_object('insights',
      -- Every figure the rules read, by the names of the figure functions' columns.
      private.health_insights(to_jsonb(o) || to_jsonb(c) || to_jsonb(t) || to_jsonb(p) || jsonb_build_object(
        'days', days, 'include_system', include_system, 'revenue_score', (metrics ->> 'revenue')::numeric,
        'customer_quality', customer_quality, 'overall', overall,
        'system_requests', sys_requests, 'system_failures', sys_failures, 'system_p95_ms', sys_p95)));
  end if;

  return result;
exception
  when data_exception then
    perform private.raise_api_error(500, 'CALCULATION_ERROR', 'Health calculation failed',
      jsonb_build_object('stage', stage, 'reason', sqlerrm));
end
$$;

-- The changes of the orders already there, customer by customer (a sixteenth of them at a time), then the
-- triggers that keep them from now on.
do $$
declare
  part text;
begin
  foreach part in array string_to_array('0 1 2 3 4 5 6 7 8 9 a b c d e f', ' ') loop
    perform private.apply_health_figure_changes(null, (select array_agg(o) from public.orders o
                                                      where left(o.customer_id::text, 1) = part));
  end loop;
end
$$;

select private.keep_derived_data('public.orders', 'orders_health_figures', 'private.orders_maintain_health_figures');
