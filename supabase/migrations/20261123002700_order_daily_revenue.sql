-- A day's revenue (docs/attribution.md: the total of its paid, shipped, delivered and completed orders)
-- was summed from `public.orders` for every day of every attribution question: a campaign's metrics over
-- 29 days read 128,000 orders, two thirds of their cost on a million orders. This keeps each UTC day's
-- revenue as orders are written, in the writing transaction, by statement-level triggers. It is derived
-- data, not a cached answer: it always equals the sum over the orders (test/campaigns-daily-revenue).
--
-- Only callers who see every order read it (administrators, and roles that bypass RLS); anyone else's
-- revenue is still summed from the orders their RLS shows them, so a customer never sees the store's.

create table if not exists private.order_daily_revenue (
  order_date date primary key,
  revenue numeric not null
);

alter table private.order_daily_revenue enable row level security;

drop policy if exists "admins read daily revenue" on private.order_daily_revenue;
create policy "admins read daily revenue" on private.order_daily_revenue
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.order_daily_revenue from public, anon, authenticated, service_role;
grant select on private.order_daily_revenue to authenticated, service_role;

create or replace function private.is_revenue_status(status text)
returns boolean
language sql
immutable
parallel safe
set search_path = ''
as $$
  select status in ('paid', 'shipped', 'delivered', 'completed')
$$;

revoke execute on function private.is_revenue_status(text) from public, anon;
grant execute on function private.is_revenue_status(text) to authenticated, service_role;

-- Adds each day's change of revenue. Days are taken in date order, so two statements touching the same
-- days cannot deadlock. Concurrent order writes of one day queue on that day's row for the rest of their
-- transactions: the price of an exact total.
create or replace function private.apply_daily_revenue_changes(days date[], amounts numeric[])
returns void
language sql
volatile
set search_path = ''
as $$
  insert into private.order_daily_revenue as r (order_date, revenue)
  select c.order_date, sum(c.amount)
  from unnest(days, amounts) c(order_date, amount)
  group by c.order_date
  having sum(c.amount) <> 0
  order by c.order_date
  on conflict (order_date) do update set revenue = r.revenue + excluded.revenue
$$;

-- Statement-level, over the transition tables: a bulk write is one upsert per day touched. Security
-- definer because order writers (administrators) have no rights on `private`.
create or replace function private.orders_maintain_daily_revenue()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    perform private.apply_daily_revenue_changes(array_agg(n.order_date), array_agg(n.total_amount))
    from new_rows n
    where private.is_revenue_status(n.status);
  elsif tg_op = 'UPDATE' then
    perform private.apply_daily_revenue_changes(array_agg(c.order_date), array_agg(c.amount))
    from (
      select n.order_date, n.total_amount as amount from new_rows n where private.is_revenue_status(n.status)
      union all
      select o.order_date, -o.total_amount from old_rows o where private.is_revenue_status(o.status)
    ) c;
  elsif tg_op = 'DELETE' then
    perform private.apply_daily_revenue_changes(array_agg(o.order_date), array_agg(-o.total_amount))
    from old_rows o
    where private.is_revenue_status(o.status);
  else
    truncate private.order_daily_revenue;
  end if;
  return null;
end
$$;

revoke execute on function private.apply_daily_revenue_changes(date[], numeric[]) from public, anon, authenticated;
revoke execute on function private.orders_maintain_daily_revenue() from public, anon, authenticated;

-- Whether the caller's RLS shows every order, so the stored daily revenue is what they would sum.
create or replace function private.sees_all_orders()
returns boolean
language sql
stable
set search_path = ''
as $$
  select (select private.is_admin())
      or exists (select 1 from pg_catalog.pg_roles r
                 where r.rolname = current_user and (r.rolsuper or r.rolbypassrls))
$$;

revoke execute on function private.sees_all_orders() from public, anon;
grant execute on function private.sees_all_orders() to authenticated, service_role;

-- Derived data kept by triggers (this table, the campaigns' stretches of activity) is maintained by one
-- statement-level function per source table, over its transition tables, for every kind of write. They
-- fire always, also with session_replication_role = replica (as the demo seed and a logical replica
-- write): derived data must follow every write.
create or replace function private.keep_derived_data(source regclass, trigger_prefix text, maintainer regproc)
returns void
language plpgsql
volatile
set search_path = ''
as $$
declare
  t record;
begin
  for t in
    select trigger_prefix || '_' || v.operation as name, v.operation, v.transition
    from (values ('insert', 'referencing new table as new_rows'),
                 ('update', 'referencing old table as old_rows new table as new_rows'),
                 ('delete', 'referencing old table as old_rows'),
                 ('truncate', '')) v(operation, transition)
  loop
    execute format('drop trigger if exists %I on %s', t.name, source);
    execute format('create trigger %I after %s on %s %s for each statement execute function %s()',
                   t.name, t.operation, source, t.transition, maintainer);
    execute format('alter table %s enable always trigger %I', source, t.name);
  end loop;
end
$$;

revoke execute on function private.keep_derived_data(regclass, text, regproc) from public, anon, authenticated, service_role;

-- The triggers and the backfill in one transaction, writers waiting for it: no order written meanwhile
-- is missed or counted twice.
begin;
lock table public.orders in share row exclusive mode;
select private.keep_derived_data('public.orders', 'orders_daily_revenue', 'private.orders_maintain_daily_revenue');

truncate private.order_daily_revenue;
insert into private.order_daily_revenue (order_date, revenue)
select o.order_date, sum(o.total_amount)
from public.orders o
where private.is_revenue_status(o.status)
group by o.order_date;
commit;
