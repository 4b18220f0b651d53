-- RFM reads a year of orders for every customer of the period. This keeps, per customer, the running
-- totals of their orders by UTC day, so the year is two array lookups per customer. It is derived data
-- kept in the writing transaction by triggers on `public.orders`, not a cached answer: the report still
-- computes every figure from it and the orders at request time.
--
-- Members are the orders that count whatever `as_of` is: not refunded and not cancelled. Orders
-- cancelled after a report's `as_of` still count in that report, and the partial days at both ends of
-- its year are not whole days: the report takes those few from `public.orders`.

create table private.customer_order_history (
  customer_id uuid primary key references public.customers (id) on delete cascade,
  -- Ascending UTC days with at least one member order; cum_orders[i] and cum_spend[i] are the customer's
  -- member orders and spend on days up to and including days[i].
  days date[],
  cum_orders integer[],
  cum_spend numeric[]
);

alter table private.customer_order_history enable row level security;

create policy "admins read customer order history" on private.customer_order_history
  for select to authenticated
  using ((select private.is_admin()));

-- Adds history b to history a (both as running totals), dropping days left with no order.
create or replace function private.order_history_merge(
  a_days date[], a_orders integer[], a_spend numeric[],
  b_days date[], b_orders integer[], b_spend numeric[]
)
returns table (days date[], cum_orders integer[], cum_spend numeric[])
language sql
immutable
parallel safe
set search_path = ''
as $$
  with per_day as (
    select h.day,
           h.total_orders - coalesce(lag(h.total_orders) over (order by h.i), 0) as n,
           h.total_spend - coalesce(lag(h.total_spend) over (order by h.i), 0) as s
    from unnest(a_days, a_orders, a_spend) with ordinality h(day, total_orders, total_spend, i)
    union all
    select h.day,
           h.total_orders - coalesce(lag(h.total_orders) over (order by h.i), 0),
           h.total_spend - coalesce(lag(h.total_spend) over (order by h.i), 0)
    from unnest(b_days, b_orders, b_spend) with ordinality h(day, total_orders, total_spend, i)
  ),
  running as (
    select d.day,
           sum(sum(d.n)) over (order by d.day) as total_orders,
           sum(sum(d.s)) over (order by d.day) as total_spend
    from per_day d
    group by d.day
    having sum(d.n) <> 0
  )
  select array_agg(r.day order by r.day), array_agg(r.total_orders::integer order by r.day),
         array_agg(r.total_spend order by r.day)
  from running r
$$;

-- Applies per-customer, per-day changes of member orders. One upsert per customer row: under READ
-- COMMITTED a concurrent writer of the same customer waits for the row and the update is re-evaluated on
-- the committed version, so concurrent order writes add up exactly; under REPEATABLE READ or
-- SERIALIZABLE the second writer gets a serialization failure instead of a lost update. Rows are taken
-- in customer order so two multi-customer statements cannot deadlock on each other.
create or replace function private.apply_order_history_changes(
  customer_ids uuid[], days date[], orders integer[], spend numeric[]
)
returns void
language sql
volatile
set search_path = ''
as $$
  insert into private.customer_order_history as h (customer_id, days, cum_orders, cum_spend)
  select r.customer_id, array_agg(r.day order by r.day), array_agg(r.total_orders order by r.day),
         array_agg(r.total_spend order by r.day)
  from (
    select c.customer_id, c.day,
           (sum(sum(c.n)) over (partition by c.customer_id order by c.day))::integer as total_orders,
           sum(sum(c.s)) over (partition by c.customer_id order by c.day) as total_spend
    from unnest(customer_ids, days, orders, spend) c(customer_id, day, n, s)
    group by c.customer_id, c.day
    having sum(c.n) <> 0 or sum(c.s) <> 0
  ) r
  group by r.customer_id
  order by r.customer_id
  on conflict (customer_id) do update
    set (days, cum_orders, cum_spend) = (
      select m.days, m.cum_orders, m.cum_spend
      from private.order_history_merge(h.days, h.cum_orders, h.cum_spend,
                                       excluded.days, excluded.cum_orders, excluded.cum_spend) m)
$$;

-- Statement-level, over the transition tables: a bulk insert is one set-based change, not a row loop.
-- Security definer because order writers (administrators) have no rights on `private`.
create or replace function private.orders_maintain_history()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    perform private.apply_order_history_changes(array_agg(n.customer_id), array_agg(n.order_date),
                                                array_agg(1), array_agg(n.total_amount))
    from new_rows n
    where n.status <> 'refunded' and n.cancelled_at is null;
  elsif tg_op = 'UPDATE' then
    perform private.apply_order_history_changes(array_agg(c.customer_id), array_agg(c.order_date),
                                                array_agg(c.n), array_agg(c.s))
    from (
      select n.customer_id, n.order_date, 1 as n, n.total_amount as s
      from new_rows n where n.status <> 'refunded' and n.cancelled_at is null
      union all
      select o.customer_id, o.order_date, -1, -o.total_amount
      from old_rows o where o.status <> 'refunded' and o.cancelled_at is null
    ) c;
  elsif tg_op = 'DELETE' then
    perform private.apply_order_history_changes(array_agg(o.customer_id), array_agg(o.order_date),
                                                array_agg(-1), array_agg(-o.total_amount))
    from old_rows o
    where o.status <> 'refunded' and o.cancelled_at is null;
  else
    truncate private.customer_order_history;
  end if;
  return null;
end
$$;

revoke execute on function private.order_history_merge(date[], integer[], numeric[], date[], integer[], numeric[])
  from public, anon, authenticated;

revoke execute on function private.apply_order_history_changes(uuid[], date[], integer[], numeric[])
  from public, anon, authenticated;

revoke execute on function private.orders_maintain_history() from public, anon, authenticated;

select private.keep_derived_data('public.orders', 'orders_history', 'private.orders_maintain_history');
