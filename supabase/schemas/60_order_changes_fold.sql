-- The fold: the orders' change log (30_orders/40_order_change_log.sql) turned into what the analytics keep,
-- in batches, one folder at a time, after every table it feeds (docs/architecture.md's map, step 6). As in
-- TimescaleDB's real-time aggregates every answer stays exact: attribution adds the unfolded log as it reads,
-- and a report folds before it reads. The local stack folds every few seconds; pg_cron does where it exists.

-- Everything kept from the change log, and the log itself, emptied: by a truncate of the orders (the log's
-- trigger) and by the refold below. The one list of those tables.
create or replace function private.empty_kept_order_figures()
returns void
language plpgsql security definer set search_path = '' as $$
begin
  truncate private.order_changes, private.order_daily_revenue, private.health_figure_changes,
    private.health_figure_changes_by_10_minutes, private.customer_scores, private.order_day_figures,
    private.customer_order_figures, private.customer_counted_orders;
end
$$;

revoke execute on function private.empty_kept_order_figures() from public, anon, authenticated;

-- Folds the log into the kept figures, `batch_size` changes at a time; returns how many. One folder at a
-- time (an advisory lock): with `wait` (a report) the caller queues, bound by its statement_timeout, not its
-- lock_timeout; without (the periodic folds) it returns 0 when another holds it. A change is deleted as it is
-- folded, so it counts once whatever the crash. Customers are rescored once per fold, not per batch, since a
-- bulk load's customers are in every batch (the glossary's "fold" in docs/architecture.md says how).
create or replace function private.fold_order_changes(wait boolean default false, batch_size integer default 1000000)
returns bigint
language plpgsql security definer set search_path = '' as $$
declare
  changes private.order_changes[];
  customers uuid[];
  first_changes timestamptz[];
  folded bigint := 0;
  rescoring_size integer := least(batch_size, 50000);
  lock_bound text := pg_catalog.current_setting('lock_timeout');
begin
  if not exists (select 1 from private.order_changes) then
    return 0;
  end if;
  if wait then
    perform pg_catalog.set_config('lock_timeout', '0', true);
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('private.fold_order_changes'));
    perform pg_catalog.set_config('lock_timeout', lock_bound, true);
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
  perform private.empty_kept_order_figures();
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
