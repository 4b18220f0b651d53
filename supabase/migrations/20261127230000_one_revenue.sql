-- One revenue for the store (issue 43): attribution's daily revenue counted only paid, shipped, delivered
-- and completed orders, while the health figures, the store's days and the orders list counted every order
-- from its placing until cancelled or refunded (orders.counted_until). Now all read the counted-order rule:
-- private.counts_as_revenue replaces private.is_revenue_status, and the kept daily revenue is summed again.
-- The health days route counts as of now, like the orders list's days, and the figures, days and orders
-- summary gain `refunded`, so placed = counted + cancelled + refunded.
create or replace function private.counts_as_revenue(counted_until timestamptz)
returns boolean
language sql immutable parallel safe set search_path = '' as $$
  select counted_until = 'infinity'::timestamptz
$$;

revoke execute on function private.counts_as_revenue(timestamptz) from public, anon;

grant execute on function private.counts_as_revenue(timestamptz) to authenticated, service_role;

create or replace view private.order_daily_revenue_now with (security_invoker = true) as
select r.order_date, sum(r.revenue) as revenue
from (
  select d.order_date, d.revenue from private.order_daily_revenue d
  union all
  select c.order_date, c.sign * c.total_amount from private.order_changes c where private.counts_as_revenue(c.counted_until)
) r
group by r.order_date;

create or replace function private.fold_order_changes(wait boolean default false, batch_size integer default 1000000)
returns bigint
language plpgsql security definer set search_path = '' as $$
declare
  changes private.order_changes[];
  customers uuid[];
  first_changes timestamptz[];
  folded bigint := 0;
  rescoring_size integer := least(batch_size, 50000);
begin
  if not exists (select 1 from private.order_changes) then
    return 0;
  end if;
  if wait then
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('private.fold_order_changes'));
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

create or replace function private.campaign_attribution_rows(
  from_date date, to_date date, order_amount numeric, revenue_as_amount boolean, of_campaign uuid default null,
  recompute boolean default false
)
returns table (
  attribution_date date,
  total_active_campaigns integer,
  campaign_id uuid,
  attribution_layer public.attribution_layer,
  raw_weight numeric,
  normalized_weight numeric(5, 4),
  attribution_strength text,
  answer_rank integer,
  day_amount numeric(14, 2),
  attributed_amount numeric(14, 2)
)
-- Planned for each call: the branches not taken are left out of the plan, and one day and a whole
-- history want different plans.
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
#variable_conflict use_column
declare
  stored_revenue boolean := revenue_as_amount and private.sees_all_orders();
begin
  return query
  with fresh as materialized (
    select * from private.campaign_attribution_shares(from_date, to_date)
  ),
  -- The rows returned.
  wanted as materialized (
    select d.attribution_date, d.campaign_id, d.total_active_campaigns, d.units, d.precedence_rank, d.answer_rank,
           d.attribution_layer, d.raw_weight, d.normalized_weight, d.attribution_strength
    from private.campaign_attribution_days d
    where not recompute
      and d.attribution_date between from_date and to_date
      and (of_campaign is null or d.campaign_id = of_campaign)
    union all
    select f.attribution_date, f.campaign_id, f.total_active_campaigns, f.units, f.precedence_rank, f.answer_rank,
           f.attribution_layer, f.raw_weight, f.normalized_weight, f.attribution_strength
    from fresh f
    where recompute and (of_campaign is null or f.campaign_id = of_campaign)
  ),
  kept_revenue as materialized (
    select r.order_date, r.revenue
    from private.order_daily_revenue_now r
    where stored_revenue and r.order_date between from_date and to_date
  ),
  amounts as materialized (
    select t.attribution_date, t.amount, round(t.amount * 100)::bigint as cents
    from (select w.attribution_date,
                 case when not revenue_as_amount then order_amount
                      when stored_revenue then coalesce(k.revenue, 0)
                      else coalesce((select sum(o.total_amount) from public.orders o
                                     where o.order_date = w.attribution_date
                                       and private.counts_as_revenue(o.counted_until)), 0)
                 end as amount
          from (select distinct w.attribution_date from wanted w) w
          left join kept_revenue k on k.order_date = w.attribution_date) t
  ),
  ranked_by_sorting as (
    select w.attribution_date, w.campaign_id, m.cents * w.units / 10000 as whole_cents,
           m.cents - sum(m.cents * w.units / 10000) over (partition by w.attribution_date) as missing_cents,
           row_number() over (partition by w.attribution_date
                              order by (m.cents * w.units % 10000) * 2147483648 + (2147483647 - w.precedence_rank) desc)
             - 1 as ranked_before
    from wanted w
    join amounts m using (attribution_date)
    where of_campaign is null
  ),
  ranked_by_counting as (
    select w.attribution_date, w.campaign_id, m.cents * w.units / 10000 as whole_cents, c.missing_cents, c.ranked_before
    from wanted w
    join amounts m using (attribution_date)
    cross join lateral (
      select m.cents - sum(m.cents * o.units / 10000) as missing_cents,
             count(*) filter (
               where (m.cents * o.units % 10000) * 2147483648 + (2147483647 - o.precedence_rank)
                   > (m.cents * w.units % 10000) * 2147483648 + (2147483647 - w.precedence_rank)) as ranked_before
      from (select d.units, d.precedence_rank from private.campaign_attribution_days d
            where not recompute and d.attribution_date = w.attribution_date
            union all
            select f.units, f.precedence_rank from fresh f
            where recompute and f.attribution_date = w.attribution_date) o
    ) c
    where of_campaign is not null
  ),
  ranked as materialized (
    select * from ranked_by_sorting
    union all
    select * from ranked_by_counting
  )
  select w.attribution_date, w.total_active_campaigns, w.campaign_id, w.attribution_layer, w.raw_weight,
         w.normalized_weight, w.attribution_strength, w.answer_rank, m.amount,
         ((r.whole_cents + case when r.ranked_before < r.missing_cents then 1 else 0 end) / 100.0)::numeric(14, 2)
  from wanted w
  join ranked r using (attribution_date, campaign_id)
  join amounts m using (attribution_date);
end
$$;

create or replace function private.rebuild_store_days()
returns void
language plpgsql set search_path = '' as $$
declare
  campaign_ids uuid[];
begin
  lock table public.orders, public.campaigns, public.campaign_status_history in share row exclusive mode;
  -- Changes logged under the old days are folded under them first; with orders locked none follow.
  perform private.fold_order_changes(true);
  alter table public.orders alter column order_date set expression as (private.store_day(ordered_at));

  truncate private.order_daily_revenue;
  insert into private.order_daily_revenue (order_date, revenue)
  select o.order_date, sum(o.total_amount)
  from public.orders o
  where private.counts_as_revenue(o.counted_until)
  group by o.order_date
  having sum(o.total_amount) <> 0
  order by o.order_date;

  -- Emptied first, so each table is written once, not left half dead rows.
  truncate private.campaign_active_spans, private.campaign_attribution_days;
  campaign_ids := array(select c.id from public.campaigns c order by c.id);
  perform private.refresh_campaign_active_spans(campaign_ids);
  perform private.recompute_campaign_attribution_days(private.campaign_days_to_recompute(campaign_ids, false));
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
             'average_order_value', round(o.revenue / nullif(o.revenue_orders, 0), 2),
             'active_customers', c.customers,
             'new_customers', (select count(*) from public.customers u
                               where u.created_at >= p.at - make_interval(hours => 24 * days) and u.created_at < p.at),
             'tickets_opened', t.tickets, 'tickets_resolved', t.resolved))
    from (values ('current', as_of), ('previous', as_of - make_interval(hours => 24 * days))) p(name, at)
    cross join lateral private.health_window_order_figures(p.at, days) o
    cross join lateral private.health_window_customer_figures(p.at, days) c
    cross join lateral private.health_ticket_figures(p.at, days) t
  );
end
$$;

create or replace function health.business_days()
returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  as_of timestamptz := private.now();
  today date := private.store_day(as_of);
begin
  if not private.is_admin() then
    perform private.raise_api_error(403, 'INSUFFICIENT_PERMISSION', 'Administrator permission is required to see the figures');
  end if;
  return jsonb_build_object('time_zone', private.store_time_zone(), 'as_of', private.api_timestamp(as_of))
    || (select jsonb_object_agg(d.name, jsonb_build_object(
                 'date', d.day, 'from', private.api_timestamp(d.first), 'before', private.api_timestamp(d.until),
                 'revenue', f.revenue, 'counted_orders', f.counted_orders, 'orders', f.orders,
                 'completed', f.completed, 'cancelled', f.cancelled,
                 -- Every order placed is exactly one of counted, cancelled by then and refunded.
                 'refunded', f.orders - f.counted_orders - f.cancelled))
        from (values ('today', today, private.store_day_start(today), as_of),
                     ('yesterday', today - 1, private.store_day_start(today - 1), private.store_day_start(today)))
             d(name, day, first, until)
        cross join lateral (
          select coalesce(sum(o.total_amount) filter (where k.counted), 0) as revenue,
                 count(*) filter (where k.counted) as counted_orders,
                 count(*) as orders,
                 count(*) filter (where o.completed_at < as_of) as completed,
                 count(*) filter (where o.cancelled_at < as_of) as cancelled
          from public.orders o
          cross join lateral (select o.counted_until >= as_of as counted) k
          where o.ordered_at >= d.first and o.ordered_at < d.until) f);
end
$$;

drop function private.is_revenue_status(text);

-- The kept days summed again under the rule (the attribution days keep shares, not amounts: they stand).
select private.fold_order_changes(true);
truncate private.order_daily_revenue;
insert into private.order_daily_revenue (order_date, revenue)
select o.order_date, sum(o.total_amount)
from public.orders o
where private.counts_as_revenue(o.counted_until)
group by o.order_date
having sum(o.total_amount) <> 0
order by o.order_date;