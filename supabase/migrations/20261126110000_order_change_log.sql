-- Order writes append to a change log and a fold keeps the analytics (issue 34): the triggers on
-- orders that kept the daily revenue and the health figures in the writing transaction, their writer
-- slots and the customers' rescoring at COMMIT give way to private.order_changes, its four literal
-- triggers and private.fold_order_changes (supabase/schemas/25_order_changes.sql). What is kept is the
-- same, one row per day or hour instead of one per writer slot.

drop trigger orders_daily_revenue_insert on public.orders;
drop trigger orders_daily_revenue_update on public.orders;
drop trigger orders_daily_revenue_delete on public.orders;
drop trigger orders_daily_revenue_truncate on public.orders;
drop trigger orders_health_figures_insert on public.orders;
drop trigger orders_health_figures_update on public.orders;
drop trigger orders_health_figures_delete on public.orders;
drop trigger orders_health_figures_truncate on public.orders;

drop function private.orders_maintain_daily_revenue();
drop function private.apply_daily_revenue_changes(date[], numeric[]);
drop function private.orders_maintain_health_figures();
drop function private.apply_health_figure_changes(public.orders[], public.orders[]);
drop function private.defer_customer_score_changes(public.orders[], public.orders[]);
drop table private.pending_customer_score_transactions, private.pending_customer_scores;
drop function private.rescore_pending_customers();
drop function private.apply_order_figure_changes(public.orders[], public.orders[]);
drop function private.changed_customer_scores(public.orders[], public.orders[]);
drop function private.add_health_figure_changes(private.health_figure_changes[]);
drop function private.order_writer_slot();

-- A customer deleted with their orders before the fold still has states for the fold to take back out.
alter table private.customer_scores drop constraint customer_scores_customer_id_fkey;

-- One row per day and per hour: the writer slots' rows summed.
create temporary table folded_daily_revenue on commit drop as
select order_date, sum(revenue) as revenue from private.order_daily_revenue group by order_date;
truncate private.order_daily_revenue;
alter table private.order_daily_revenue drop constraint order_daily_revenue_pkey;
alter table private.order_daily_revenue drop column slot;
alter table private.order_daily_revenue add primary key (order_date);
insert into private.order_daily_revenue (order_date, revenue)
select order_date, revenue from folded_daily_revenue where revenue <> 0 order by order_date;

create temporary table folded_figure_changes on commit drop as
select days, hour, sum(orders) as orders, sum(completed) as completed, sum(cancelled) as cancelled, sum(due) as due,
       sum(on_time) as on_time, sum(revenue) as revenue, sum(previous_revenue) as previous_revenue,
       sum(revenue_orders) as revenue_orders, sum(previous_revenue_orders) as previous_revenue_orders,
       sum(customers) as customers, sum(score_sum) as score_sum, sum(scores_1_mod_3) as scores_1_mod_3,
       sum(scores_2_mod_3) as scores_2_mod_3, sum(scores_of_3) as scores_of_3, sum(repeat_customers) as repeat_customers
from private.health_figure_changes
group by days, hour;
truncate private.health_figure_changes;
alter table private.health_figure_changes drop constraint health_figure_changes_pkey;
alter table private.health_figure_changes drop column slot;
alter table private.health_figure_changes add primary key (days, hour);
insert into private.health_figure_changes (days, hour, orders, completed, cancelled, due, on_time, revenue,
  previous_revenue, revenue_orders, previous_revenue_orders, customers, score_sum, scores_1_mod_3, scores_2_mod_3,
  scores_of_3, repeat_customers)
select days, hour, orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders,
       previous_revenue_orders, customers, score_sum, scores_1_mod_3, scores_2_mod_3, scores_of_3, repeat_customers
from folded_figure_changes
order by days, hour;

-- One row per order version that entered (+1) or left (−1) what the analytics read: an insert appends the
-- order, a delete takes it out, an update that changes one of these columns takes the old version out and
-- puts the new one in. Only the columns the analytics read, and one index, on the key (its right edge), so
-- appending costs about what an insert into a table of one index does. The fold deletes what it folds, so a row appended by a transaction that commits later is
-- folded by a later fold, never skipped.
create table private.order_changes (
  change_id bigint generated always as identity primary key,
  sign smallint not null constraint order_changes_sign check (sign in (-1, 1)),
  order_id uuid not null,
  customer_id uuid not null,
  status text not null,
  total_amount numeric(12, 2) not null,
  ordered_at timestamptz not null,
  order_date date not null,
  promised_at timestamptz,
  delivered_at timestamptz,
  completed_at timestamptz,
  cancelled_at timestamptz
) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);

alter table private.order_changes enable row level security;

-- Attribution reads the log's revenue beside the kept days, as the caller, who is an administrator there.
create policy "admins read order changes" on private.order_changes
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.order_changes from public, anon, authenticated, service_role;

grant select on private.order_changes to authenticated, service_role;

-- Statement-level, over the transition tables, so a bulk write appends in one statement. Security definer
-- because order writers (administrators, the store's jobs) have no rights on `private`.
create or replace function private.log_order_changes()
returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                       promised_at, delivered_at, completed_at, cancelled_at)
    select 1, n.id, n.customer_id, n.status, n.total_amount, n.ordered_at, n.order_date, n.promised_at,
           n.delivered_at, n.completed_at, n.cancelled_at
    from new_rows n;
  elsif tg_op = 'UPDATE' then
    -- An update of columns the analytics do not read (a payment time, updated_at) appends nothing: the
    -- versions that did not change cancel out.
    insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                       promised_at, delivered_at, completed_at, cancelled_at)
    select -1, c.*
    from (select o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
                 o.delivered_at, o.completed_at, o.cancelled_at
          from old_rows o
          except all
          select n.id, n.customer_id, n.status, n.total_amount, n.ordered_at, n.order_date, n.promised_at,
                 n.delivered_at, n.completed_at, n.cancelled_at
          from new_rows n) c
    union all
    select 1, c.*
    from (select n.id, n.customer_id, n.status, n.total_amount, n.ordered_at, n.order_date, n.promised_at,
                 n.delivered_at, n.completed_at, n.cancelled_at
          from new_rows n
          except all
          select o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
                 o.delivered_at, o.completed_at, o.cancelled_at
          from old_rows o) c;
  elsif tg_op = 'DELETE' then
    insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                       promised_at, delivered_at, completed_at, cancelled_at)
    select -1, o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
           o.delivered_at, o.completed_at, o.cancelled_at
    from old_rows o;
  else
    truncate private.order_changes, private.order_daily_revenue, private.health_figure_changes,
      private.customer_scores;
  end if;
  return null;
end
$$;

revoke execute on function private.log_order_changes() from public, anon, authenticated;

-- The only triggers the analytics have on orders. `enable always`: a logical replica (or any writer in
-- session_replication_role = replica) appends its changes too.
create trigger orders_log_insert
  after insert on public.orders
  referencing new table as new_rows
  for each statement execute function private.log_order_changes();

create trigger orders_log_update
  after update on public.orders
  referencing old table as old_rows new table as new_rows
  for each statement execute function private.log_order_changes();

create trigger orders_log_delete
  after delete on public.orders
  referencing old table as old_rows
  for each statement execute function private.log_order_changes();

create trigger orders_log_truncate
  after truncate on public.orders
  for each statement execute function private.log_order_changes();

alter table public.orders enable always trigger orders_log_insert;

alter table public.orders enable always trigger orders_log_update;

alter table public.orders enable always trigger orders_log_delete;

alter table public.orders enable always trigger orders_log_truncate;

-- Folds the log into the kept figures, `batch_size` changes at a time, and returns how many it folded.
-- One folder at a time, by a transaction-level advisory lock: with `wait` (a report, which must fold
-- everything before it reads) the caller queues for it; without (the periodic folds) it returns 0 at once
-- when another folder holds it. Idempotent: a change is deleted as it is folded, in the same transaction,
-- so it is folded once, whatever the crash or the concurrency. Each batch:
--   * adds its revenue to the days it changed;
--   * adds its orders' figure steps to the hours they fall in (private.apply_order_figure_changes);
--   * rescores, from their earliest changed order on, the customers whose counted orders changed
--     (private.apply_customer_score_changes): a customer's state depends on all their orders, so it is
--     walked from the orders as they are, and the difference to what was kept is what changes.
create or replace function private.fold_order_changes(wait boolean default false, batch_size integer default 50000)
returns bigint
language plpgsql security definer set search_path = '' as $$
declare
  changes private.order_changes[];
  folded bigint := 0;
begin
  if not exists (select 1 from private.order_changes) then
    return 0;
  end if;
  if wait then
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('private.fold_order_changes'));
  elsif not pg_catalog.pg_try_advisory_xact_lock(pg_catalog.hashtext('private.fold_order_changes')) then
    return 0;
  end if;
  loop
    with taken as (
      delete from private.order_changes c
      where c.change_id = any (array(select t.change_id from private.order_changes t order by t.change_id
                                     limit batch_size))
      returning c.*
    )
    select array_agg(t::private.order_changes) into changes from taken t;
    exit when changes is null;

    insert into private.order_daily_revenue as r (order_date, revenue)
    select c.order_date, sum(c.sign * c.total_amount)
    from unnest(changes) c
    where private.is_revenue_status(c.status)
    group by c.order_date
    having sum(c.sign * c.total_amount) <> 0
    order by c.order_date
    on conflict (order_date) do update set revenue = r.revenue + excluded.revenue;

    perform private.apply_order_figure_changes(changes);
    perform private.apply_customer_score_changes(array_agg(c.customer_id order by c.customer_id),
                                                 array_agg(c.first_change order by c.customer_id))
    from private.changed_customer_scores(changes) c;
    folded := folded + cardinality(changes);
  end loop;
  return folded;
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
    private.customer_scores;
  insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                     promised_at, delivered_at, completed_at, cancelled_at)
  select 1, o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
         o.delivered_at, o.completed_at, o.cancelled_at
  from public.orders o;
  return private.fold_order_changes(true);
end
$$;

revoke execute on function private.fold_order_changes(boolean, integer), private.refold_all_orders()
  from public, anon, authenticated;

-- The periodic fold, where the platform has pg_cron (every 5 seconds; pg_cron 1.5 or later). Where it has
-- not, reports fold before they read and the local stack folds on a timer (scripts/lib/stack.mjs).
do $$
begin
  if exists (select 1 from pg_available_extensions where name = 'pg_cron') then
    create extension if not exists pg_cron with schema pg_catalog;
    perform cron.schedule('fold-order-changes', '5 seconds', 'select private.fold_order_changes()');
  end if;
exception when others then
  raise notice 'pg_cron is not usable here (%): reports and the local stack fold order changes themselves', sqlerrm;
end
$$;

-- Each day's revenue as it is now: the kept days plus the changes not yet folded, read in one snapshot. Security invoker: the same administrators-only policies apply.
create or replace view private.order_daily_revenue_now with (security_invoker = true) as
select r.order_date, sum(r.revenue) as revenue
from (
  select d.order_date, d.revenue from private.order_daily_revenue d
  union all
  select c.order_date, c.sign * c.total_amount from private.order_changes c where private.is_revenue_status(c.status)
) r
group by r.order_date;

revoke all on private.order_daily_revenue_now from public, anon, authenticated, service_role;

grant select on private.order_daily_revenue_now to authenticated, service_role;

-- Adds the order figures' steps of a batch of the orders' change log (25_order_changes.sql) to the hours
-- they fall in: each order's steps are its own, so this reads nothing but the changes given.
create or replace function private.apply_order_figure_changes(changes private.order_changes[])
returns void
-- Planned once per connection: planning each time would cost more than a small batch's changes.
language plpgsql set search_path = '' set work_mem = '256MB' set plan_cache_mode = 'force_generic_plan' as $$
begin
  -- A large batch gets a plan of its own, made knowing how many changes it holds.
  if cardinality(changes) > 1000 then
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
  end if;

  with
  -- The versions whose inputs changed, +1 as they are, −1 as they were: an order's version out and in with
  -- the same inputs (a move from paid to shipped) cancel out.
  versions as (
    select c.sign, c.order_id, c.ordered_at, c.completed_at, c.cancelled_at, c.promised_at,
           coalesce(c.delivered_at <= c.promised_at, false) as delivered_on_time,
           c.status = 'refunded' as refunded, c.total_amount
    from unnest(changes) c
  ),
  order_inputs as (
    select 1 as sign, c.*
    from (select v.order_id, v.ordered_at, v.completed_at, v.cancelled_at, v.promised_at, v.delivered_on_time,
                 v.refunded, v.total_amount
          from versions v where v.sign = 1
          except all
          select v.order_id, v.ordered_at, v.completed_at, v.cancelled_at, v.promised_at, v.delivered_on_time,
                 v.refunded, v.total_amount
          from versions v where v.sign = -1) c
    union all
    select -1, c.*
    from (select v.order_id, v.ordered_at, v.completed_at, v.cancelled_at, v.promised_at, v.delivered_on_time,
                 v.refunded, v.total_amount
          from versions v where v.sign = -1
          except all
          select v.order_id, v.ordered_at, v.completed_at, v.cancelled_at, v.promised_at, v.delivered_on_time,
                 v.refunded, v.total_amount
          from versions v where v.sign = 1) c
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
  insert into private.health_figure_changes as f (
    days, hour, orders, completed, cancelled, due, on_time, revenue, previous_revenue, revenue_orders,
    previous_revenue_orders)
  select s.days, date_bin('1 hour', s.at, timestamptz '2000-01-01 00:00+00'), sum(s.orders), sum(s.completed),
         sum(s.cancelled), sum(s.due), sum(s.on_time), sum(s.revenue), sum(s.previous_revenue),
         sum(s.revenue_orders), sum(s.previous_revenue_orders)
  from order_steps s
  group by 1, 2
  having sum(s.orders) <> 0 or sum(s.completed) <> 0 or sum(s.cancelled) <> 0 or sum(s.due) <> 0
      or sum(s.on_time) <> 0 or sum(s.revenue) <> 0 or sum(s.previous_revenue) <> 0 or sum(s.revenue_orders) <> 0
      or sum(s.previous_revenue_orders) <> 0
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

-- The customers whose counted orders (not refunded, not cancelled at or before ordering) changed in what
-- RFM reads of them (time, amount, cancellation), each with the earliest moment that changed: before it,
-- their scores stay as they were. An order's version out and in with the same inputs cancel out.
create or replace function private.changed_customer_scores(changes private.order_changes[])
returns table (customer_id uuid, first_change timestamptz)
language plpgsql stable set search_path = '' as $$
begin
  return query
    select c.customer_id, min(c.ordered_at)
    from (
      select v.order_id, v.customer_id, v.ordered_at, v.cancelled_at, v.total_amount
      from unnest(changes) v
      where v.status <> 'refunded' and (v.cancelled_at is null or v.cancelled_at > v.ordered_at)
      group by v.order_id, v.customer_id, v.ordered_at, v.cancelled_at, v.total_amount
      having sum(v.sign) <> 0
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
language plpgsql set search_path = '' set work_mem = '256MB' set plan_cache_mode = 'force_generic_plan' as $$
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
  -- The states from the first change on, now.
  walked as materialized (
    select w.customer_id, w.at, w.state from private.customer_state_walk(customers, first_changes) w
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
  insert into private.health_figure_changes as f (
    days, hour, customers, score_sum, scores_1_mod_3, scores_2_mod_3, scores_of_3, repeat_customers)
  select c.days, c.hour, c.customers, c.score_sum, c.scores_1_mod_3, c.scores_2_mod_3, c.scores_of_3,
         c.repeat_customers
  from rfm_changes c
  where c.customers <> 0 or c.score_sum <> 0 or c.scores_1_mod_3 <> 0 or c.scores_2_mod_3 <> 0
     or c.scores_of_3 <> 0 or c.repeat_customers <> 0
  order by c.days, c.hour
  on conflict (days, hour) do update set
    customers = f.customers + excluded.customers,
    score_sum = f.score_sum + excluded.score_sum,
    scores_1_mod_3 = f.scores_1_mod_3 + excluded.scores_1_mod_3,
    scores_2_mod_3 = f.scores_2_mod_3 + excluded.scores_2_mod_3,
    scores_of_3 = f.scores_of_3 + excluded.scores_of_3,
    repeat_customers = f.repeat_customers + excluded.repeat_customers;
end
$$;

revoke execute on function private.apply_order_figure_changes(private.order_changes[]),
  private.changed_customer_scores(private.order_changes[])
from public, anon, authenticated;

-- Every attribution answer (the function, the three views, a campaign's metrics) comes from these rows:
-- the stored shares of each day of the range and, when an amount is asked for, the day's amount split
-- by the same largest-remainder rule in cents. A day's amount is the order amount given, or its revenue:
-- the kept daily revenue with the changes not yet folded (private.order_daily_revenue_now) for callers
-- who see every order, summed from the orders their RLS shows them for anyone else. With recompute, the
-- shares come from private.campaign_attribution_shares instead of the stored table: the computation the
-- tests compare every answer with.
--
-- The split: each campaign gets the whole cents of its share, and the day's missing cents go one each to
-- the campaigns that rank first by one integer key, the remainder (largest first) then the tie-break
-- order; a campaign gets one when fewer campaigns of its day rank before it than there are cents
-- missing. For every campaign of the days asked the ranks come from sorting each day by the key; with
-- of_campaign (a campaign's metrics: only its rows, on the days it counts on) by counting, for each of
-- its days, the day's campaigns whose key is larger, which reads the day's integers from the primary key
-- and sorts nothing. The key and the rule are the same in both; ranking a campaign's days by sorting them
-- too made its metrics 8 → 24 ms with 1,000 campaigns a day, and counting for every campaign is quadratic.
create or replace function private.campaign_attribution_rows(
  from_date date, to_date date, order_amount numeric, revenue_as_amount boolean, of_campaign uuid default null,
  recompute boolean default false
)
returns table (
  attribution_date date,
  total_active_campaigns integer,
  campaign_id uuid,
  attribution_layer public.attribution_layer,
  raw_weight numeric,
  normalized_weight numeric(5, 4),
  attribution_strength text,
  answer_rank integer,
  day_amount numeric(14, 2),
  attributed_amount numeric(14, 2)
)
-- Planned for each call: the branches not taken are left out of the plan, and one day and a whole
-- history want different plans.
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
#variable_conflict use_column
declare
  stored_revenue boolean := revenue_as_amount and private.sees_all_orders();
begin
  return query
  with fresh as materialized (
    select * from private.campaign_attribution_shares(from_date, to_date)
  ),
  -- The rows returned.
  wanted as materialized (
    select d.attribution_date, d.campaign_id, d.total_active_campaigns, d.units, d.precedence_rank, d.answer_rank,
           d.attribution_layer, d.raw_weight, d.normalized_weight, d.attribution_strength
    from private.campaign_attribution_days d
    where not recompute
      and d.attribution_date between from_date and to_date
      and (of_campaign is null or d.campaign_id = of_campaign)
    union all
    select f.attribution_date, f.campaign_id, f.total_active_campaigns, f.units, f.precedence_rank, f.answer_rank,
           f.attribution_layer, f.raw_weight, f.normalized_weight, f.attribution_strength
    from fresh f
    where recompute and (of_campaign is null or f.campaign_id = of_campaign)
  ),
  kept_revenue as materialized (
    select r.order_date, r.revenue
    from private.order_daily_revenue_now r
    where stored_revenue and r.order_date between from_date and to_date
  ),
  amounts as materialized (
    select t.attribution_date, t.amount, round(t.amount * 100)::bigint as cents
    from (select w.attribution_date,
                 case when not revenue_as_amount then order_amount
                      when stored_revenue then coalesce(k.revenue, 0)
                      else coalesce((select sum(o.total_amount) from public.orders o
                                     where o.order_date = w.attribution_date
                                       and private.is_revenue_status(o.status)), 0)
                 end as amount
          from (select distinct w.attribution_date from wanted w) w
          left join kept_revenue k on k.order_date = w.attribution_date) t
  ),
  ranked_by_sorting as (
    select w.attribution_date, w.campaign_id, m.cents * w.units / 10000 as whole_cents,
           m.cents - sum(m.cents * w.units / 10000) over (partition by w.attribution_date) as missing_cents,
           row_number() over (partition by w.attribution_date
                              order by (m.cents * w.units % 10000) * 2147483648 + (2147483647 - w.precedence_rank) desc)
             - 1 as ranked_before
    from wanted w
    join amounts m using (attribution_date)
    where of_campaign is null
  ),
  ranked_by_counting as (
    select w.attribution_date, w.campaign_id, m.cents * w.units / 10000 as whole_cents, c.missing_cents, c.ranked_before
    from wanted w
    join amounts m using (attribution_date)
    cross join lateral (
      select m.cents - sum(m.cents * o.units / 10000) as missing_cents,
             count(*) filter (
               where (m.cents * o.units % 10000) * 2147483648 + (2147483647 - o.precedence_rank)
                   > (m.cents * w.units % 10000) * 2147483648 + (2147483647 - w.precedence_rank)) as ranked_before
      from (select d.units, d.precedence_rank from private.campaign_attribution_days d
            where not recompute and d.attribution_date = w.attribution_date
            union all
            select f.units, f.precedence_rank from fresh f
            where recompute and f.attribution_date = w.attribution_date) o
    ) c
    where of_campaign is not null
  ),
  ranked as materialized (
    select * from ranked_by_sorting
    union all
    select * from ranked_by_counting
  )
  select w.attribution_date, w.total_active_campaigns, w.campaign_id, w.attribution_layer, w.raw_weight,
         w.normalized_weight, w.attribution_strength, w.answer_rank, m.amount,
         ((r.whole_cents + case when r.ranked_before < r.missing_cents then 1 else 0 end) / 100.0)::numeric(14, 2)
  from wanted w
  join ranked r using (attribution_date, campaign_id)
  join amounts m using (attribution_date);
end
$$;

-- Every stored day computed again from the instants it comes from: each order's order_date (a table
-- rewrite: the generated column's stored values follow the zone only when recomputed), the daily revenue,
-- the campaigns' stretches of activity and the attribution days built on them. The health figures are kept
-- by the hour and customers' scores by the instant: no day in them to rebuild.
create or replace function private.rebuild_store_days()
returns void
language plpgsql set search_path = '' as $$
declare
  campaign_ids uuid[];
begin
  lock table public.orders, public.campaigns, public.campaign_status_history in share row exclusive mode;
  -- Changes logged under the old days are folded under them first; with orders locked none follow.
  perform private.fold_order_changes(true);
  alter table public.orders alter column order_date set expression as (private.store_day(ordered_at));

  truncate private.order_daily_revenue;
  insert into private.order_daily_revenue (order_date, revenue)
  select o.order_date, sum(o.total_amount)
  from public.orders o
  where private.is_revenue_status(o.status)
  group by o.order_date
  having sum(o.total_amount) <> 0
  order by o.order_date;

  -- Emptied first, so each table is written once, not left half dead rows.
  truncate private.campaign_active_spans, private.campaign_attribution_days;
  campaign_ids := array(select c.id from public.campaigns c order by c.id);
  perform private.refresh_campaign_active_spans(campaign_ids);
  perform private.recompute_campaign_attribution_days(private.campaign_days_to_recompute(campaign_ids, false));
end
$$;

create or replace function health.business_health(
  period text,
  include_system boolean,
  include_trends boolean,
  include_insights boolean,
  language text default 'zh-TW'
)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  banned_until text;
begin
  -- A signed token whose account is gone or banned no longer speaks for anyone.
  if auth.role() = 'authenticated' then
    select to_jsonb(u) ->> 'banned_until' into banned_until from auth.users u where u.id = (select auth.uid());
    if not found or banned_until::timestamptz > private.now() then
      perform private.raise_api_error(403, 'PERMISSION_DENIED', 'This account may not view business health');
    end if;
  elsif coalesce(auth.role(), '') not in ('anon', 'service_role') then
    perform private.raise_api_error(403, 'PERMISSION_DENIED', 'This role may not view business health');
  end if;
  perform private.fold_order_changes(true);
  return private.health_report(period, include_system, include_trends, include_insights, private.now(), language);
end
$$;

-- The figures behind the scores (private.health_period_figures), for administrators and the service key
-- only: they are amounts, which the report, open to anyone, never carries. Folded first, as the report is.
create or replace function health.business_figures(period text)
returns jsonb
language plpgsql security definer set search_path = '' as $$
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
  perform private.fold_order_changes(true);
  return jsonb_build_object('period', period, 'as_of', private.api_timestamp(private.now())) || private.health_period_figures(private.now(), days);
end
$$;
