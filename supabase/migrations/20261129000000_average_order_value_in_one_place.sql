-- The average order value in one place (private.average_order_value), read by the three figures that show one.

create or replace function private.average_order_value(revenue numeric, counted_orders numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select round(revenue / nullif(counted_orders, 0), 2)
$$;

revoke execute on function private.average_order_value(numeric, numeric) from public, anon;

grant execute on function private.average_order_value(numeric, numeric) to authenticated, service_role;

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
  ), matched as materialized (
    select m.id from private.customers_matching(search_pattern) m(id) where search_pattern is not null
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
    -- A search's customers: their kept rows, and those with changes still to fold summed from their orders.
    select sum(f.orders) as orders, sum(f.counted_orders) as counted_orders, sum(f.revenue) as revenue,
           sum(f.completed) as completed, sum(f.cancelled) as cancelled, sum(f.refunded) as refunded,
           count(*) as customers
    from (select f.* from private.customer_order_figures f
          where f.customer_id in (select m.id from matched m)
            and f.customer_id not in (select u.customer_id from unfolded_customers u)
          union all
          select n.* from private.customer_order_figures_now(
            array(select m.id from matched m where m.id in (select u.customer_id from unfolded_customers u))) n) f
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

create or replace function private.health_period_figures(as_of timestamptz, days integer)
returns jsonb
language plpgsql stable set search_path = '' as $$
begin
  return (
    select jsonb_object_agg(p.name, jsonb_build_object(
             'from', private.api_timestamp(p.at - make_interval(hours => 24 * days)), 'before', private.api_timestamp(p.at),
             'revenue', o.revenue, 'counted_orders', o.revenue_orders, 'orders', o.orders,
             'completed', o.completed, 'cancelled', o.cancelled, 'refunded', o.orders - o.revenue_orders - o.cancelled,
             'average_order_value', private.average_order_value(o.revenue, o.revenue_orders),
             'active_customers', c.customers,
             'new_customers', (select count(*) from public.customers u
                               where u.created_at >= p.at - make_interval(hours => 24 * days) and u.created_at < p.at),
             'tickets_opened', t.tickets, 'tickets_resolved', t.resolved,
             'goods', private.health_goods_figures(p.at - make_interval(hours => 24 * days), p.at),
             'marketing', private.marketing_window_figures(m.first_day, m.last_day)))
    from (values ('current', as_of), ('previous', as_of - make_interval(hours => 24 * days))) p(name, at)
    cross join lateral private.health_window_order_figures(p.at, days) o
    cross join lateral private.health_window_customer_figures(p.at, days) c
    cross join lateral private.health_ticket_figures(p.at, days) t
    -- Its campaigns, over the store days the window ends on (45_marketing.sql).
    cross join lateral private.marketing_days(p.at, days) m
  );
end
$$;

create or replace function private.health_days_period_figures(
  first_day date, last_day date, compare_first date, compare_last date, as_of timestamptz
)
returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_object_agg(w.name, jsonb_build_object(
           'from', private.api_timestamp(s.first_at), 'before', private.api_timestamp(s.before_at),
           'first_day', w.first_day, 'last_day', w.last_day,
           'revenue', o.revenue, 'counted_orders', o.revenue_orders, 'orders', o.orders,
           'completed', o.completed, 'cancelled', o.cancelled, 'refunded', o.refunded,
           'average_order_value', private.average_order_value(o.revenue, o.revenue_orders),
           'active_customers', c.customers,
           'new_customers', (select count(*) from public.customers u where u.created_at >= s.first_at and u.created_at < s.before_at),
           'tickets_opened', t.tickets, 'tickets_resolved', t.resolved,
           'goods', private.health_goods_figures(s.first_at, s.before_at),
           'marketing', private.marketing_window_figures(w.first_day, w.last_day)))
  from (values ('current', first_day, last_day), ('previous', compare_first, compare_last)) w(name, first_day, last_day)
  cross join lateral private.health_days_span(w.first_day, w.last_day, as_of) s
  cross join lateral private.health_days_order_figures(w.first_day, w.last_day, as_of) o
  cross join lateral private.health_span_customer_figures(s.first_at, s.before_at) c
  cross join lateral private.health_span_ticket_figures(s.first_at, s.before_at, as_of) t
$$;
