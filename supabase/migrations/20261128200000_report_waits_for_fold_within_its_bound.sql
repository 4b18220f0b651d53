-- A report waiting for another's fold is bound by its statement_timeout, not its lock_timeout.

-- Folds the log into the kept figures, `batch_size` changes at a time, and returns how many it folded.
-- One folder at a time, by a transaction-level advisory lock: with `wait` (a report, which must fold
-- everything before it reads) the caller queues for it, bound by its statement_timeout and not by its
-- lock_timeout, which is for writes waiting on a row (a report refused for another's fold is no conflict);
-- without (the periodic folds) it returns 0 at once when another folder holds it. Idempotent: a change is
-- deleted as it is folded, in the same transaction, so it is folded once, whatever the crash or the
-- concurrency. Each batch adds its revenue to the days it
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
