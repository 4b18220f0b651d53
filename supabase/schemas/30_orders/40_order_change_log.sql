-- The orders' change log (docs/architecture.md, "From an order to a report"): an order write appends its
-- change to private.order_changes from the triggers below, reading no other row, updating no shared row and
-- deferring nothing to COMMIT, so the analytics never make a checkout wait (checkouts of one product queue at
-- its row for the stock, not for the figures). The fold turns the log into the kept figures; what an order is
-- to the analytics is its version (private.order_version).

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

-- One row per order version that entered (+1) or left (−1) what the analytics read (an update of a read
-- column does both). Only those columns and one index, on the key, so appending costs about an insert into a
-- one-index table. The fold deletes what it folds, so a row committed late is folded later, never skipped.
-- Each row carries its transaction: versions cancel for rescoring only within one (changed_customer_scores);
-- test/database/order-writes.test.ts holds the columns to private.order_version's order.
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
    perform private.empty_kept_order_figures();
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
