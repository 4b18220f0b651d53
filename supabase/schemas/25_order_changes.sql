-- What the analytics keep of orders, and how they keep it (docs/performance.md, "Orders: the change log
-- and the fold"): the daily revenue attribution splits (40_campaigns/30_attribution_inputs.sql), the health
-- figure changes by hour (50_health/30_figure_changes.sql) and each customer's RFM states
-- (50_health/35_customer_scores.sql). The model is TimescaleDB's real-time aggregates:
--   * an order write does what a plain insert does plus appending its change to private.order_changes,
--     from the triggers below: it reads no other row, updates no shared row, takes no lock beyond its own
--     rows' and defers nothing to COMMIT, so checkouts never wait for each other or for the analytics;
--   * private.fold_order_changes turns the log into the kept figures, set-based, in batches, one folder
--     at a time;
--   * every answer stays exact: attribution adds the log's revenue to the kept days as it reads them, and a
--     health report folds before it reads. The local stack also folds every few seconds, and where the
--     platform has pg_cron a job does.
-- What an order is to the analytics is its version, listed once below (private.order_version); what they
-- keep of the orders' health figures is the columns of private.health_figure_changes, listed once in
-- 50_health/30_figure_changes.sql. docs/architecture.md, "From an order to a report", follows one order
-- through all of it.

-- An order version: the columns of an order the analytics read, listed here once. The change log's rows are
-- versions (below, in this order after their sign), and the trigger and the refold take them from orders
-- through this function, so a column the analytics start reading is added here and to the log's table. No
-- `set search_path` (nothing in it needs one): PostgreSQL inlines it into the statement that reads it, which
-- then costs what the columns written out would (private.now() in 00_platform_helpers.sql says why it matters).
create or replace function private.order_version(o public.orders)
returns table (
  order_id uuid, customer_id uuid, status text, total_amount numeric(12, 2), ordered_at timestamptz,
  order_date date, promised_at timestamptz, delivered_at timestamptz, completed_at timestamptz,
  cancelled_at timestamptz, counted_until timestamptz
)
language sql immutable parallel safe as $$
  select o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at, o.delivered_at,
         o.completed_at, o.cancelled_at, o.counted_until
$$;

revoke execute on function private.order_version(public.orders) from public, anon, authenticated;

-- One row per order version that entered (+1) or left (−1) what the analytics read: an insert appends the
-- order, a delete takes it out, an update that changes one of these columns takes the old version out and
-- puts the new one in. Only the columns the analytics read, and one index, on the key (its right edge), so
-- appending costs about what an insert into a table of one index does. The fold deletes what it folds, so
-- a row appended by a transaction that commits later is folded by a later fold, never skipped. Each row
-- carries the transaction that wrote it: an order's versions cancel out for its customer's rescoring only
-- within one transaction (private.changed_customer_scores). The columns are the key, the sign, the version
-- (private.order_version's, in its order: rows are appended by position, `overriding user value` leaving
-- the key to its identity) and the transaction; test/database/order-writes.test.ts holds them to that.
create table private.order_changes (
  change_id bigint generated always as identity primary key,
  sign smallint not null constraint order_changes_sign check (sign in (-1, 1)),
  order_id uuid not null,
  customer_id uuid not null,
  status text not null,
  total_amount numeric(12, 2) not null constraint order_changes_total_amount_finite check (total_amount < 'Infinity'),
  ordered_at timestamptz not null,
  order_date date not null,
  promised_at timestamptz,
  delivered_at timestamptz,
  completed_at timestamptz,
  cancelled_at timestamptz,
  counted_until timestamptz not null,
  transaction_id xid8 not null default pg_catalog.pg_current_xact_id()
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
    insert into private.order_changes overriding user value
    select null::bigint, 1, v.* from new_rows n cross join lateral private.order_version(n) v;
  elsif tg_op = 'UPDATE' then
    -- An update of columns the analytics do not read (a payment time, updated_at) appends nothing: the
    -- versions that did not change cancel out.
    insert into private.order_changes overriding user value
    with old_versions as (select v.* from old_rows o cross join lateral private.order_version(o) v),
         new_versions as (select v.* from new_rows n cross join lateral private.order_version(n) v)
    select null::bigint, -1, c.* from (table old_versions except all table new_versions) c
    union all
    select null::bigint, 1, c.* from (table new_versions except all table old_versions) c;
  elsif tg_op = 'DELETE' then
    insert into private.order_changes overriding user value
    select null::bigint, -1, v.* from old_rows o cross join lateral private.order_version(o) v;
  else
    truncate private.order_changes, private.order_daily_revenue, private.health_figure_changes,
      private.health_figure_changes_by_10_minutes, private.customer_scores, private.order_day_figures,
      private.customer_order_figures, private.customer_counted_orders;
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
-- so it is folded once, whatever the crash or the concurrency. Each batch adds its revenue to the days it
-- changed, its orders' figure steps to the hours they fall in (private.apply_order_figure_changes) and its
-- days' and customers' orders to the orders list's kept figures (private.apply_order_list_changes), and
-- notes the customers whose counted orders changed, with their earliest changed order. Then those
-- customers are rescored from it on (private.apply_customer_score_changes), at most 50,000 at a time, which
-- bounds the walk's sort: a customer's state depends on all their orders, so it is walked from the orders as
-- they are, and the difference to what was kept is what changes. Once per fold, not once per batch: a bulk
-- load's customers each have orders in every batch. A batch and a rescoring each add to every hour they
-- touch, up to a year's, so a backlog folds fastest in large batches; a batch is one array, of about 150
-- bytes a change.
create or replace function private.fold_order_changes(wait boolean default false, batch_size integer default 1000000)
returns bigint
language plpgsql security definer set search_path = '' as $$
declare
  changes private.order_changes[];
  customers uuid[];
  first_changes timestamptz[];
  folded bigint := 0;
  rescoring_size integer := least(batch_size, 50000);
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
    where private.counts_as_revenue(c.counted_until)
    group by c.order_date
    having sum(c.sign * c.total_amount) <> 0
    order by c.order_date
    on conflict (order_date) do update set revenue = r.revenue + excluded.revenue;

    perform private.apply_order_figure_changes(changes);
    perform private.apply_order_list_changes(changes);
    perform private.apply_counted_order_changes(changes);
    select array_agg(c.customer_id order by c.customer_id), array_agg(c.first_change order by c.customer_id)
    into customers, first_changes
    from (select n.customer_id, min(n.first_change) as first_change
          from (select * from unnest(customers, first_changes) u(customer_id, first_change)
                union all
                select * from private.changed_customer_scores(changes)) n
          group by n.customer_id) c;
    folded := folded + cardinality(changes);
  end loop;
  for i in 1 .. coalesce(cardinality(customers), 0) by rescoring_size loop
    perform private.apply_customer_score_changes(customers[i:i + rescoring_size - 1],
                                                 first_changes[i:i + rescoring_size - 1]);
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
    private.health_figure_changes_by_10_minutes, private.customer_scores, private.order_day_figures,
    private.customer_order_figures, private.customer_counted_orders;
  insert into private.order_changes overriding user value
  select null::bigint, 1, v.* from public.orders o cross join lateral private.order_version(o) v;
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
