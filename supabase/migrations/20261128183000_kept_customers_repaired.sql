-- The kept figures of each customer with an order on the checked days repaired too, by the same nightly job.

create or replace function private.repair_kept_customers(first_day date, last_day date)
returns integer
language plpgsql security definer set search_path = '' as $$
declare
  customers uuid[];
  repaired integer;
begin
  perform private.fold_order_changes(true);
  customers := array(
    select distinct o.customer_id from public.orders o
    where o.order_date between first_day and last_day
      and not exists (select 1 from private.order_changes c where c.customer_id = o.customer_id));
  with due as (
    select * from private.customer_order_figures_now(customers)
  ), wrong as (
    select coalesce(d.customer_id, k.customer_id) as customer_id, d is null as gone
    from due d
    full join (select * from private.customer_order_figures k where k.customer_id = any (customers)) k
      on k.customer_id = d.customer_id
    where k is distinct from d
  ), written as (
    insert into private.customer_order_figures as k
    select d.* from due d join wrong w on w.customer_id = d.customer_id
    on conflict (customer_id) do update
      set orders = excluded.orders, counted_orders = excluded.counted_orders, revenue = excluded.revenue,
          completed = excluded.completed, cancelled = excluded.cancelled, refunded = excluded.refunded,
          last_order_date = excluded.last_order_date
    returning k.customer_id
  ), removed as (
    delete from private.customer_order_figures k using wrong w where k.customer_id = w.customer_id and w.gone
    returning k.customer_id
  )
  select count(*) into repaired from (select customer_id from written union all select customer_id from removed) x;
  return repaired;
end
$$;

revoke execute on function private.repair_kept_customers(date, date) from public, anon, authenticated;

grant execute on function private.repair_kept_customers(date, date) to service_role;

do $$
begin
  if exists (select 1 from pg_available_extensions where name = 'pg_cron') then
    create extension if not exists pg_cron with schema pg_catalog;
    perform cron.schedule('repair-kept-days', '17 3 * * *',
      'select private.repair_kept_days(private.store_today() - 35, private.store_today()),
              private.repair_kept_customers(private.store_today() - 35, private.store_today()),
              private.repair_kept_costs(private.store_today() - 35, private.store_today())');
  end if;
exception when others then
  raise notice 'pg_cron is not usable here (%): the local stack checks the kept days itself', sqlerrm;
end
$$;
