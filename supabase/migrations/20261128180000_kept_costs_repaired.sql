-- The kept costs of shipped orders checked and repaired too, by the same nightly store job.

create or replace function private.repair_kept_costs(first_day date, last_day date)
returns integer
language plpgsql security definer set search_path = '' as $$
declare
  wrong uuid[];
  repaired integer;
begin
  wrong := array(
    select coalesce(e.order_id, k.order_id)
    from (select o.id as order_id, o.ordered_at, o.total_amount, private.drawn_cost(o.id) as goods_cost
          from public.orders o
          where o.order_date between first_day and last_day and o.shipped_at is not null and o.status <> 'refunded'
            and private.drawn_cost(o.id) is not null) e
    full join (select k.* from private.shipped_order_costs k
               join public.orders o on o.id = k.order_id and o.order_date between first_day and last_day) k
      on k.order_id = e.order_id
    where (k.ordered_at, k.total_amount, k.goods_cost) is distinct from (e.ordered_at, e.total_amount, e.goods_cost));
  perform from public.orders o where o.id = any (wrong) order by o.id for no key update;
  with due as (
    select o.id as order_id, o.ordered_at, o.total_amount, private.drawn_cost(o.id) as goods_cost,
           o.shipped_at is not null and o.status <> 'refunded' and private.drawn_cost(o.id) is not null as kept
    from public.orders o where o.id = any (wrong)
  ), written as (
    insert into private.shipped_order_costs as k (order_id, ordered_at, total_amount, goods_cost)
    select d.order_id, d.ordered_at, d.total_amount, d.goods_cost from due d where d.kept
    on conflict (order_id) do update
      set ordered_at = excluded.ordered_at, total_amount = excluded.total_amount, goods_cost = excluded.goods_cost
    returning k.order_id
  ), gone as (
    delete from private.shipped_order_costs k using due d where d.order_id = k.order_id and not d.kept
    returning k.order_id
  )
  select count(*) into repaired from (select order_id from written union all select order_id from gone) x;
  return repaired;
end
$$;

revoke execute on function private.repair_kept_costs(date, date) from public, anon, authenticated;

grant execute on function private.repair_kept_costs(date, date) to service_role;

do $$
begin
  if exists (select 1 from pg_available_extensions where name = 'pg_cron') then
    create extension if not exists pg_cron with schema pg_catalog;
    perform cron.schedule('repair-kept-days', '17 3 * * *',
      'select private.repair_kept_days(private.store_today() - 35, private.store_today()),
              private.repair_kept_costs(private.store_today() - 35, private.store_today())');
  end if;
exception when others then
  raise notice 'pg_cron is not usable here (%): the local stack checks the kept days itself', sqlerrm;
end
$$;
