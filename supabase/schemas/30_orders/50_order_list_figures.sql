-- What the orders list keeps so that its summary of a whole history, or of whole store days up to now, reads
-- a few hundred kept rows instead of every order: kept by the fold and read with the changes not yet folded,
-- so it stays exact. Read only as of now, by callers who see every order, when no order records a completion
-- or cancellation still to come; anything else (a past moment, a filter, a customer's orders, a window off
-- store midnights) is summed from the orders.

-- Each store day's orders as they are now: placed, counted (revenue: private.counts_as_revenue), completed,
-- cancelled and refunded (neither counted nor cancelled), summed from the log's signed versions; and, for
-- business health's custom periods (50_health/55_custom_periods.sql), those promised a delivery and not
-- cancelled, and of those the ones delivered by their promise.
create table private.order_day_figures (
  order_date date primary key,
  orders integer not null,
  counted_orders integer not null,
  revenue numeric(14, 2) not null constraint order_day_figures_revenue_finite check (revenue < 'Infinity'),
  completed integer not null,
  cancelled integer not null,
  refunded integer not null,
  promised integer not null default 0,
  on_time integer not null default 0
);

alter table private.order_day_figures enable row level security;

create policy "admins read order day figures" on private.order_day_figures
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.order_day_figures from public, anon, authenticated, service_role;

grant select on private.order_day_figures to authenticated, service_role;

-- Each customer with orders, as their orders are now: the same figures, and the store day of their latest
-- order, so the customers of a window up to now are those whose latest order is in it (an index range, not
-- a distinct count over the window's orders). Recomputed from the customer's orders whenever the fold meets
-- a change of theirs: a latest day cannot be taken back by subtraction.
create table private.customer_order_figures (
  customer_id uuid primary key,
  orders integer not null,
  counted_orders integer not null,
  revenue numeric(14, 2) not null constraint customer_order_figures_revenue_finite check (revenue < 'Infinity'),
  completed integer not null,
  cancelled integer not null,
  refunded integer not null,
  last_order_date date not null
);

create index customer_order_figures_last_order_date_idx on private.customer_order_figures (last_order_date);

alter table private.customer_order_figures enable row level security;

create policy "admins read customer order figures" on private.customer_order_figures
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.customer_order_figures from public, anon, authenticated, service_role;

grant select on private.customer_order_figures to authenticated, service_role;

-- One batch of the log into the kept figures: each day's and each customer's signed sums added to their
-- rows, a customer's latest day moved on by the versions the batch adds. Only a customer whose latest day a
-- removed version may have held (a deleted order, or one moved to an earlier day) is summed again from their
-- orders as they are; one left without orders loses their row. A burst of new orders, the common batch,
-- reads no order (summing every customer again made the fold of 20,000 new orders 45 % slower).
create or replace function private.apply_order_list_changes(changes private.order_changes[])
returns void
language plpgsql set search_path = '' as $$
declare
  recount uuid[];
begin
  with sums as materialized (
    select * from private.order_list_sums(changes)
  ), days as (
    insert into private.order_day_figures as f (order_date, orders, counted_orders, revenue, completed, cancelled, refunded,
                                                promised, on_time)
    select s.key_date, s.orders, s.counted_orders, s.revenue, s.completed, s.cancelled, s.refunded, s.promised, s.on_time
    from sums s
    where s.key_date is not null
    order by s.key_date
    on conflict (order_date) do update
      set orders = f.orders + excluded.orders, counted_orders = f.counted_orders + excluded.counted_orders,
          revenue = f.revenue + excluded.revenue, completed = f.completed + excluded.completed,
          cancelled = f.cancelled + excluded.cancelled, refunded = f.refunded + excluded.refunded,
          promised = f.promised + excluded.promised, on_time = f.on_time + excluded.on_time
  ), merged as (
    select b.key_customer as customer_id, coalesce(f.orders, 0) + b.orders as orders,
           coalesce(f.counted_orders, 0) + b.counted_orders as counted_orders, coalesce(f.revenue, 0) + b.revenue as revenue,
           coalesce(f.completed, 0) + b.completed as completed, coalesce(f.cancelled, 0) + b.cancelled as cancelled,
           coalesce(f.refunded, 0) + b.refunded as refunded,
           greatest(f.last_order_date, b.added_last) as last_order_date,
           coalesce(b.removed_last >= greatest(f.last_order_date, b.added_last), false) as recount
    from sums b
    left join private.customer_order_figures f on f.customer_id = b.key_customer
    where b.key_customer is not null
  ), kept as (
    insert into private.customer_order_figures as f
    select m.customer_id, m.orders, m.counted_orders, m.revenue, m.completed, m.cancelled, m.refunded, m.last_order_date
    from merged m
    where not m.recount and m.orders > 0
    order by m.customer_id
    on conflict (customer_id) do update
      set orders = excluded.orders, counted_orders = excluded.counted_orders, revenue = excluded.revenue,
          completed = excluded.completed, cancelled = excluded.cancelled, refunded = excluded.refunded,
          last_order_date = excluded.last_order_date
  )
  select array_agg(m.customer_id order by m.customer_id) into recount
  from merged m
  where m.recount or m.orders <= 0;

  -- Summed again as they stand after this batch: their orders as they are, less the changes still in the log
  -- (later batches add those), read in one statement so both are one snapshot. Their latest day is their
  -- orders' as they are: a later batch's added version moves it no further, and a removed one sums them again.
  delete from private.customer_order_figures f where f.customer_id = any (recount);
  insert into private.customer_order_figures
  select n.customer_id, n.orders - coalesce(r.orders, 0), n.counted_orders - coalesce(r.counted_orders, 0),
         n.revenue - coalesce(r.revenue, 0), n.completed - coalesce(r.completed, 0), n.cancelled - coalesce(r.cancelled, 0),
         n.refunded - coalesce(r.refunded, 0), n.last_order_date
  from private.customer_order_figures_now(recount) n
  left join private.order_list_sums(array(select c from private.order_changes c where c.customer_id = any (recount))) r
    on r.key_customer = n.customer_id
  where n.orders - coalesce(r.orders, 0) > 0;
end
$$;

-- A batch's signed sums by store day (key_date) and by customer (key_customer), in one pass: placed, counted,
-- revenue, completed, cancelled, refunded, for customers the latest day among the versions added and among those
-- removed, and due (promised a delivery, not cancelled) and on time. Each order's figures are those it has once
-- every moment it records has passed (private.order_figures_at as of infinity): the kept figures are read as
-- of now only while no order records a completion or cancellation still to come (kept_orders_summary).
create or replace function private.order_list_sums(changes private.order_changes[])
returns table (key_date date, key_customer uuid, orders integer, counted_orders integer, revenue numeric,
               completed integer, cancelled integer, refunded integer, added_last date, removed_last date,
               promised integer, on_time integer)
language sql immutable set search_path = '' as $$
  select c.order_date, c.customer_id, sum(c.sign)::integer,
         coalesce(sum(c.sign) filter (where k.counted), 0)::integer,
         coalesce(sum(c.sign * c.total_amount) filter (where k.counted), 0),
         coalesce(sum(c.sign) filter (where k.completed), 0)::integer,
         coalesce(sum(c.sign) filter (where k.cancelled), 0)::integer,
         coalesce(sum(c.sign) filter (where k.refunded), 0)::integer,
         max(c.order_date) filter (where c.sign > 0), max(c.order_date) filter (where c.sign < 0),
         coalesce(sum(c.sign) filter (where k.due), 0)::integer,
         coalesce(sum(c.sign) filter (where k.on_time), 0)::integer
  from unnest(changes) c
  cross join lateral private.order_figures_at('infinity', c.counted_until, c.completed_at, c.cancelled_at,
                                              c.promised_at, c.delivered_at) k
  group by grouping sets ((c.order_date), (c.customer_id))
$$;

-- The figures of `customers` (those with orders) summed from their orders as they are now: each customer's
-- orders by the customer index (an empty list reads nothing, where `= any` could scan every order).
create or replace function private.customer_order_figures_now(customers uuid[])
returns setof private.customer_order_figures
language sql stable set search_path = '' as $$
  select c.id, count(*)::integer,
         (count(*) filter (where k.counted))::integer,
         coalesce(sum(o.total_amount) filter (where k.counted), 0),
         (count(*) filter (where k.completed))::integer,
         (count(*) filter (where k.cancelled))::integer,
         (count(*) filter (where k.refunded))::integer,
         max(o.order_date)
  from unnest(customers) c(id)
  join public.orders o on o.customer_id = c.id
  cross join lateral private.order_figures_at('infinity', o.counted_until, o.completed_at, o.cancelled_at,
                                              o.promised_at, o.delivered_at) k
  group by c.id
$$;

-- The kept figures summed over the customers `pattern` matches (private.customer_matches), and the number of
-- those with orders: the kept rows, but for the customers in `unfolded` (changes still to fold), summed from
-- their orders. Security definer and planned for each pattern, so the planner sees the match itself: a few
-- customers by the trigram indexes, or, when a pattern matches most of them (`dem`), one pass over the
-- customers hashed against the kept rows rather than a probe per customer.
create or replace function private.matching_customer_figures(pattern text, unfolded uuid[])
returns table (orders bigint, counted_orders bigint, revenue numeric, completed bigint, cancelled bigint,
               refunded bigint, customers bigint)
language plpgsql stable security definer set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
begin
  return query
  select sum(f.orders)::bigint, sum(f.counted_orders)::bigint, sum(f.revenue), sum(f.completed)::bigint,
         sum(f.cancelled)::bigint, sum(f.refunded)::bigint, count(*)
  from (select f.* from private.customer_order_figures f
        where f.customer_id in (select c.id from public.customers c
                                where private.customer_matches(c.search_name, c.search_email, pattern))
          and f.customer_id <> all (unfolded)
        union all
        select n.* from private.customer_order_figures_now(array(
          select c.id from public.customers c
          where c.id = any (unfolded) and private.customer_matches(c.search_name, c.search_email, pattern))) n) f;
end
$$;

revoke execute on function private.matching_customer_figures(text, uuid[]) from public, anon;

grant execute on function private.matching_customer_figures(text, uuid[]) to authenticated, service_role;

-- The orders list's summary from the kept figures, or null where they cannot answer exactly: the orders placed
-- in [ordered_from, ordered_before), or of the customers `search_pattern` matches, as of now. Security invoker:
-- only administrators read the kept figures, so anyone else gets null and sums what RLS shows them. One
-- statement, one snapshot of the kept rows and the unfolded changes; planned for each call's own window (a
-- generic plan reads every day's and every customer's row).
create or replace function private.kept_orders_summary(ordered_from timestamptz, ordered_before timestamptz,
                                                      search_pattern text)
returns jsonb
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
declare
  now_at timestamptz := private.now();
  first_day date := case when ordered_from is null then '-infinity'::date else private.store_day(ordered_from) end;
  end_day date := case when ordered_before is null then 'infinity'::date else private.store_day(ordered_before) end;
  answer jsonb;
begin
  if not private.is_admin() then
    return null;
  end if;
  if (ordered_from is not null and private.store_day_start(first_day) <> ordered_from)
     or (ordered_before is not null and private.store_day_start(end_day) <> ordered_before)
     or (search_pattern is not null and (ordered_from is not null or ordered_before is not null))
     or exists (select 1 from public.orders o where o.completed_at >= now_at)
     or exists (select 1 from public.orders o where o.cancelled_at >= now_at) then
    return null;
  end if;
  with unfolded as materialized (
    -- The changes not yet folded, summed as the fold would add them.
    select s.* from private.order_list_sums(array(select c from private.order_changes c)) s
  ), unfolded_customers as materialized (
    select u.key_customer as customer_id from unfolded u where u.key_customer is not null
  ), days as (
    select sum(d.orders) as orders, sum(d.counted_orders) as counted_orders, sum(d.revenue) as revenue,
           sum(d.completed) as completed, sum(d.cancelled) as cancelled, sum(d.refunded) as refunded
    from (select f.order_date, f.orders, f.counted_orders, f.revenue, f.completed, f.cancelled, f.refunded
          from private.order_day_figures f
          union all
          select u.key_date, u.orders, u.counted_orders, u.revenue, u.completed, u.cancelled, u.refunded
          from unfolded u
          where u.key_date is not null) d
    where d.order_date >= first_day and d.order_date < end_day and search_pattern is null
  ), searched as (
    select s.* from private.matching_customer_figures(search_pattern,
                                                      array(select u.customer_id from unfolded_customers u)) s
    where search_pattern is not null
  ), customers as (
    -- The customers with an order in the window: when no order is placed after it, those whose latest order
    -- is in it; otherwise counted from the window's orders. Those with changes still to fold, from their orders.
    select case
      when search_pattern is not null then (select s.customers from searched s)
      when ordered_before is null or not exists (select 1 from public.orders o where o.ordered_at >= ordered_before) then
        (select count(*) from private.customer_order_figures f
         where f.last_order_date >= first_day and f.customer_id not in (select u.customer_id from unfolded_customers u))
        + (select count(*) from unfolded_customers u
           where exists (select 1 from public.orders o
                         where o.customer_id = u.customer_id
                           and (ordered_from is null or o.ordered_at >= ordered_from)
                           and (ordered_before is null or o.ordered_at < ordered_before)))
      else (select count(distinct o.customer_id) from public.orders o
            where o.ordered_at >= ordered_from and o.ordered_at < ordered_before)
    end as customers
  )
  select jsonb_build_object(
           'orders', coalesce(t.orders, 0), 'counted_orders', coalesce(t.counted_orders, 0),
           'revenue', coalesce(t.revenue, 0),
           'average_order_value', private.average_order_value(t.revenue, t.counted_orders),
           'completed', coalesce(t.completed, 0), 'cancelled', coalesce(t.cancelled, 0),
           'refunded', coalesce(t.refunded, 0), 'customers', (select c.customers from customers c))
  into answer
  from (select * from days where search_pattern is null
        union all
        select s.orders, s.counted_orders, s.revenue, s.completed, s.cancelled, s.refunded from searched s
        where search_pattern is not null) t;
  return answer;
end
$$;

revoke execute on function private.apply_order_list_changes(private.order_changes[]) from public, anon, authenticated,
  service_role;

-- A pure sum of the changes it is given; the summary reads the log's through it, as the caller.
revoke execute on function private.order_list_sums(private.order_changes[]) from public, anon;

grant execute on function private.order_list_sums(private.order_changes[]) to authenticated, service_role;

-- Security invoker: what it sums is what the caller's RLS shows them.
revoke execute on function private.customer_order_figures_now(uuid[]) from public, anon;

grant execute on function private.customer_order_figures_now(uuid[]) to authenticated, service_role;

revoke execute on function private.kept_orders_summary(timestamptz, timestamptz, text) from public, anon;

grant execute on function private.kept_orders_summary(timestamptz, timestamptz, text) to authenticated, service_role;
