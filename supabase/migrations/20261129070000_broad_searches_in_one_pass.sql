-- A broad search (one matching most customers) in one pass: customers keep their name and e-mail lower-cased
-- (search_name, search_email) so a match compares with like, not ilike; the match is written once, as
-- private.customer_matches; the summary's customers are summed by private.matching_customer_figures, planned
-- for each pattern.

alter table public.customers
  add column search_name text generated always as (lower(name)) stored,
  add column search_email text generated always as (lower(email)) stored;

drop index public.customers_name_trgm_idx;

drop index public.customers_email_trgm_idx;

create index customers_search_name_trgm_idx on public.customers using gin (search_name extensions.gin_trgm_ops);

create index customers_search_email_trgm_idx on public.customers using gin (search_email extensions.gin_trgm_ops);

-- Whether a customer's name or e-mail contains `pattern` (a like pattern, wildcards escaped by the caller), in
-- any case: the orders search's one rule, given the customer's search_name and search_email. As ilike does,
-- both sides lower-cased, the rows' once, as they are written. Without a search_path, so it is inlined and the
-- planner sees the like itself, with its trigram indexes and its estimate of how many customers match.
create or replace function private.customer_matches(search_name text, search_email text, pattern text)
returns boolean
language sql immutable parallel safe as $$
  select search_name operator(pg_catalog.~~) pg_catalog.lower(pattern)
      or search_email operator(pg_catalog.~~) pg_catalog.lower(pattern)
$$;

-- The customers a search matches, as the caller may see them: every customer for an administrator, their own
-- customer row otherwise. Security definer so the trigram indexes serve the match: under RLS, ilike (not
-- leakproof) may only filter rows the policy has let through, a scan of every customer.
create or replace function private.customers_matching(pattern text)
returns setof uuid
language sql stable security definer set search_path = '' rows 20 as $$
  select c.id
  from public.customers c
  where private.customer_matches(c.search_name, c.search_email, pattern)
    and ((select private.is_admin()) or c.user_id = (select auth.uid()))
$$;

revoke execute on function private.customer_matches(text, text, text) from public, anon;

grant execute on function private.customer_matches(text, text, text) to authenticated, service_role;

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
