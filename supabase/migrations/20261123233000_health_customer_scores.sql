-- Each customer's RFM state kept as the moments it changes (private.customer_scores), replacing the
-- per-customer lock rows: a write walks a customer's orders as they are now and compares with the kept
-- states (no second walk of the orders as they were), and a report reads the customers of the last part of
-- an hour by a binary search in their kept states instead of a year of their orders. The kept changes are
-- rebuilt from the orders, with the customers' states.

drop table private.customer_score_revisions;

-- Each customer's RFM state (private.health_rfm_state_figures) as a function of time: from changed_at[i]
-- on (for T > changed_at[i]) the customer is in state states[i], before changed_at[1] in state 0; only the
-- moments the state changes. Kept with the figure changes, of which it is the per-customer part: a
-- report finds a customer's state at any moment with a binary search. Writers of one customer's orders
-- take its row before reading the customer's orders, so they follow each other and each reads what the
-- previous ones committed; every such write updates the row, so under REPEATABLE READ a writer that could
-- not see a concurrent one's orders gets a serialization failure instead of a wrong difference.
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

-- Adds the changes of a statement's order writes (`removed`: the rows as they were, `added`: as they are;
-- either may be null) to `private.health_figure_changes` under this transaction's writer slot. The order
-- figures' steps are each order's own. A customer's score steps depend on all their orders, so for each
-- customer whose counted orders changed it walks their orders as they are now from the first changed one
-- on, adds the difference between the state changes it finds and those kept in `private.customer_scores`,
-- and keeps the new ones.
create or replace function private.apply_health_figure_changes(removed public.orders[], added public.orders[])
returns void
language plpgsql
volatile
set search_path = ''
set work_mem = '256MB'
-- Planned once per connection: planning each time would cost more than a small write's changes.
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
    -- open writer of the same customers; the next statement reads the orders and states those writers
    -- committed.
    insert into private.customer_scores (customer_id)
    select c.customer_id from unnest(customers) c(customer_id) order by c.customer_id
    on conflict (customer_id) do nothing;
    perform 1 from private.customer_scores s where s.customer_id = any(customers) order by s.customer_id for update;
  end if;

  writer := private.health_writer_slot();

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
  -- its end: one row per moment of an order, a column per figure (the table's) and window length.
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
  -- RFM: the changed customers' counted orders as they are now, from the first changed order's time on
  -- (before it nothing changed) with the orders still counted then; amounts in cents, exact in float8.
  corrections as materialized (
    select c.customer_id, c.ordered_at
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
  firsts as (
    select c.customer_id, min(c.ordered_at) as first_change from corrections c group by 1
  ),
  counted as materialized (
    select o.customer_id, f.first_change, o.ordered_at, o.cancelled_at, (o.total_amount * 100)::float8 as cents
    from firsts f
    join public.orders o on o.customer_id = f.customer_id
    where o.status <> 'refunded' and (o.cancelled_at is null or o.cancelled_at > o.ordered_at)
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
    from firsts f
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
  rescored as (
    update private.customer_scores s
    set changed_at = n.changed_at, states = n.states
    from rescored_states n
    where s.customer_id = n.customer_id
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
  ),
  changes as (
    select v.days, c.hour, v.orders, v.completed, v.cancelled, v.due, v.on_time, v.revenue, v.previous_revenue,
           v.revenue_orders, v.previous_revenue_orders,
           0 as customers, 0 as score_sum, 0 as scores_1_mod_3, 0 as scores_2_mod_3, 0 as scores_of_3,
           0 as repeat_customers
    from order_changes c
    cross join lateral (values (7, c.orders_7, c.completed_7, c.cancelled_7, c.due_7, c.on_time_7, c.revenue_7,
                                 c.previous_revenue_7, c.revenue_orders_7, c.previous_revenue_orders_7),
                                (30, c.orders_30, c.completed_30, c.cancelled_30, c.due_30, c.on_time_30,
                                 c.revenue_30, c.previous_revenue_30, c.revenue_orders_30,
                                 c.previous_revenue_orders_30),
                                (90, c.orders_90, c.completed_90, c.cancelled_90, c.due_90, c.on_time_90,
                                 c.revenue_90, c.previous_revenue_90, c.revenue_orders_90,
                                 c.previous_revenue_orders_90)) v(days, orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders, previous_revenue_orders)
    union all
    select c.days, c.hour, 0, 0, 0, 0, 0, 0, 0, 0, 0, c.customers, c.score_sum, c.scores_1_mod_3, c.scores_2_mod_3, c.scores_of_3, c.repeat_customers
    from rfm_changes c
  )
  insert into private.health_figure_changes as f (
    days, hour, slot, orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders,
    previous_revenue_orders, customers, score_sum, scores_1_mod_3, scores_2_mod_3, scores_of_3,
    repeat_customers)
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
    truncate private.health_figure_changes, private.customer_scores;
  end if;
  return null;
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
  -- Every customer whose state may change in [hour_start, as_of): an order placed then, or 3, 7, 14, 30, 90
  -- or 365 days before, or cancelled then.
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
  -- Their states (private.health_rfm_state_figures) as of `as_of` (+1) and as of hour_start (−1), from the
  -- kept states: the state of the last change before each moment.
  states as (
    select x.sign, coalesce(c.states[case when cardinality(c.changed_at) = 0 then 0
                                          else width_bucket(x.t - interval '1 microsecond', c.changed_at) end], 0) as state
    from stepping s
    join private.customer_scores c on c.customer_id = s.customer_id
    cross join (values (as_of, 1), (hour_start, -1)) x(t, sign)
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

truncate private.health_figure_changes;

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
