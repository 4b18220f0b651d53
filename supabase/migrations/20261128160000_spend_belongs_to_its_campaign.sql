-- Spend belongs to its campaign and is one figure: a spend row lies within its campaign's dates (not a
-- draft, not deleted), totals are summed exactly and rounded once; a refunded order states the cost of what
-- it kept and no margin; a last-year comparison has as many days as its period.

create or replace function private.check_campaign_spend()
returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  campaign record;
begin
  select c.id, c.status, c.start_date, c.end_date, c.deleted_at into campaign
  from public.campaigns c where c.id = new.campaign_id
  for key share;
  if campaign.status = 'draft' or campaign.deleted_at is not null
     or new.spend_date not between campaign.start_date and campaign.end_date then
    perform private.raise_api_error(422, 'SPEND_OUTSIDE_CAMPAIGN',
      format('Spend on %s is outside campaign %s: it runs %s to %s%s', new.spend_date, new.campaign_id,
        campaign.start_date, campaign.end_date,
        case when campaign.deleted_at is not null then ' and was deleted'
             when campaign.status = 'draft' then ' and is a draft' else '' end),
      jsonb_build_object('campaign_id', new.campaign_id, 'spend_date', new.spend_date,
        'start_date', campaign.start_date, 'end_date', campaign.end_date, 'status', campaign.status));
  end if;
  return new;
end
$$;

create trigger campaign_spend_within_campaign
  before insert or update of campaign_id, spend_date on public.campaign_spend
  for each row execute function private.check_campaign_spend();

revoke execute on function private.check_campaign_spend() from public, anon, authenticated, service_role;

create or replace function private.campaign_returns(first_day date, last_day date, of_campaign uuid default null)
returns table (campaign_id uuid, active_days bigint, spend numeric, recorded boolean, share_revenue numeric)
-- Planned for each call, on its days: a plan for unknown days expects three rows and sorts 20,000 (30 against 5 ms).
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
#variable_conflict use_column
begin
  return query
  with revenue as (
    select r.order_date, round(r.revenue * 100)::bigint as cents
    from private.order_daily_revenue_now r
    where r.order_date between first_day and last_day
  ),
  active as (
    select d.campaign_id, count(*) as active_days, sum(coalesce(r.cents, 0) * d.units / 10000) / 100.0 as share_revenue
    from private.campaign_attribution_days d
    left join revenue r on r.order_date = d.attribution_date
    where d.attribution_date between first_day and last_day and (of_campaign is null or d.campaign_id = of_campaign)
    group by d.campaign_id
  ),
  recorded as (
    select s.campaign_id, sum(s.amount) as spend
    from public.campaign_spend s
    join public.campaigns c on c.id = s.campaign_id and s.spend_date between c.start_date and c.end_date
    where s.spend_date between first_day and last_day and (of_campaign is null or s.campaign_id = of_campaign)
    group by s.campaign_id
  )
  select c.id, coalesce(a.active_days, 0),
         case when c.has_records then coalesce(r.spend, 0)
              else c.budget * coalesce(a.active_days, 0) / (c.end_date - c.start_date + 1) end,
         c.has_records, coalesce(a.share_revenue, 0)
  from active a
  full join recorded r on r.campaign_id = a.campaign_id
  -- Each campaign found by its key (`limit 1` keeps the planner from hashing all 100,000 campaigns for the
  -- few thousand of a stretch, which it cannot foresee).
  cross join lateral (
    select c.id, c.budget, c.start_date, c.end_date,
           exists (select 1 from public.campaign_spend s where s.campaign_id = c.id) as has_records
    from public.campaigns c
    where c.id = coalesce(a.campaign_id, r.campaign_id) and c.deleted_at is null
    limit 1
  ) c;
end
$$;

create or replace function private.campaign_pacing(target_campaign uuid)
returns table (spend_to_date numeric, recorded boolean, days_passed integer, planned_days integer, pacing numeric)
language sql stable set search_path = '' as $$
  select round(s.spend, 2), coalesce(s.recorded, false), p.passed, p.planned,
         round(coalesce(s.spend, 0) / nullif(c.budget * p.passed / p.planned, 0), 4)
  from public.campaigns c
  cross join lateral (
    select c.end_date - c.start_date + 1 as planned,
           greatest(0, least(private.store_today(), c.end_date) - c.start_date + 1) as passed
  ) p
  left join lateral private.campaign_returns(c.start_date, least(c.end_date, private.store_today()), c.id) s
    on true
  where c.id = target_campaign and c.deleted_at is null
$$;

create or replace function private.health_marketing_figures(first_day date, last_day date, with_names boolean)
returns jsonb
language sql stable set search_path = '' as $$
  with returns as materialized (
    select m.* from private.campaign_returns(first_day, last_day) m
  ),
  best as (
    select m.campaign_id, m.spend from returns m
    where m.spend > 0 order by m.share_revenue / m.spend desc, m.campaign_id limit 1
  ),
  worst as (
    select m.campaign_id, m.spend from returns m
    where m.spend > 0 order by m.share_revenue / m.spend, m.campaign_id limit 1
  ),
  ahead as (
    select m.campaign_id, p.pacing from returns m
    cross join lateral private.campaign_pacing(m.campaign_id) p
    where m.recorded and p.pacing > 1.2 order by p.pacing desc, m.campaign_id limit 1
  ),
  totals as (
    select count(*) as campaigns, round(coalesce(sum(m.spend), 0), 2) as spend,
           private.marketing_attributed_revenue(first_day, last_day) as revenue
    from returns m
  )
  select jsonb_build_object(
    'campaigns', t.campaigns, 'spend', t.spend, 'attributed_revenue', t.revenue,
    'roas', round(t.revenue / nullif(t.spend, 0), 2),
    'best', (select private.marketing_campaign_word(b.campaign_id, with_names,
               round(private.campaign_attributed_revenue(b.campaign_id, first_day, last_day) / b.spend, 2)) from best b),
    'worst', (select private.marketing_campaign_word(w.campaign_id, with_names,
                round(private.campaign_attributed_revenue(w.campaign_id, first_day, last_day) / w.spend, 2)) from worst w),
    'ahead', (select private.marketing_campaign_word(a.campaign_id, with_names, round(a.pacing, 2))
              from ahead a))
  from totals t
$$;

create or replace function private.marketing_window_figures(first_day date, last_day date)
returns jsonb
language sql stable set search_path = '' as $$
  with returns as materialized (
    select m.* from private.campaign_returns(first_day, last_day) m
  ),
  margins as (
    select private.store_day(s.ordered_at) as day, sum(s.total_amount - s.goods_cost) as margin
    from private.shipped_order_costs s
    where s.ordered_at >= private.store_day_start(first_day) and s.ordered_at < private.store_day_start(last_day + 1)
    group by 1
  ),
  totals as (
    select round(coalesce(sum(m.spend), 0), 2) as spend, count(*) as campaigns,
           private.marketing_attributed_revenue(first_day, last_day) as revenue,
           (select coalesce(sum(g.margin), 0) from margins g
            where exists (select 1 from private.campaign_attribution_days d where d.attribution_date = g.day)) as margin
    from returns m
  ),
  listed as (
    select m.campaign_id, c.name, round(m.spend, 2) as spend, m.recorded, m.active_days,
           private.campaign_attributed_revenue(m.campaign_id, first_day, last_day) as revenue
    from returns m join public.campaigns c on c.id = m.campaign_id
    order by m.spend desc, m.campaign_id
    limit 20
  )
  select jsonb_build_object(
    'first_day', first_day, 'last_day', last_day, 'campaigns', t.campaigns, 'spend', t.spend,
    'attributed_revenue', t.revenue, 'roas', round(t.revenue / nullif(t.spend, 0), 2),
    'attributed_margin', t.margin, 'margin_roas', round(t.margin / nullif(t.spend, 0), 2),
    'top_campaigns', coalesce((select jsonb_agg(jsonb_build_object(
        'id', l.campaign_id, 'name', l.name, 'spend', l.spend, 'spend_recorded', l.recorded,
        'active_days', l.active_days, 'attributed_revenue', l.revenue,
        'roas', round(l.revenue / nullif(l.spend, 0), 2)) order by l.spend desc, l.campaign_id)
      from listed l), '[]'::jsonb))
  from totals t
$$;

create or replace function private.drawn_cost(order_id uuid)
returns numeric
language sql stable set search_path = '' as $$
  select case when bool_and(d.unit_cost is not null) then sum((d.quantity - d.returned_quantity) * d.unit_cost) end
  from public.order_line_lots d
  join public.order_lines l on l.id = d.order_line_id
  where l.order_id = drawn_cost.order_id
$$;

create or replace function private.order_goods(order_id uuid)
returns jsonb
language sql stable set search_path = '' as $$
  with lines as (
    select l.id, l.line_number, l.product_id, p.sku, p.name, l.quantity, l.unit_price, l.amount,
           coalesce(d.lots, '[]') as lots, d.cost
    from public.order_lines l
    left join public.products p on p.id = l.product_id
    left join lateral (
      select jsonb_agg(jsonb_build_object('inventory_id', x.inventory_record_id, 'lot_number', r.lot_number,
               'expires_on', r.expires_on, 'quantity', x.quantity, 'returned_quantity', x.returned_quantity,
               'unit_cost', x.unit_cost) order by r.received_at, r.created_at, r.id) as lots,
             case when bool_and(x.unit_cost is not null) then sum((x.quantity - x.returned_quantity) * x.unit_cost) end
               as cost
      from public.order_line_lots x
      left join public.inventory_records r on r.id = x.inventory_record_id
      where x.order_line_id = l.id
    ) d on true
    where l.order_id = order_goods.order_id
  )
  select jsonb_build_object(
    'lines', coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'line_number', x.line_number,
               'product_id', x.product_id, 'sku', x.sku, 'name', x.name, 'quantity', x.quantity,
               'unit_price', x.unit_price, 'amount', x.amount, 'lots', x.lots, 'cost', x.cost,
               'margin', case when not c.refunded then x.amount - x.cost end) order by x.line_number)
               filter (where x.id is not null), '[]'),
    'cost', c.cost,
    'margin', case when not c.refunded then sum(x.amount) - c.cost end)
  from (select private.drawn_cost(order_goods.order_id) as cost,
               exists (select 1 from public.orders o where o.id = order_goods.order_id and o.status = 'refunded')
                 as refunded) c
  left join lines x on true
  group by c.cost, c.refunded
$$;

create or replace function private.health_custom_days(
  from_day date, to_day date, compare text, compare_from date, compare_to date,
  out first_day date, out last_day date, out compare_first date, out compare_last date
)
language plpgsql stable set search_path = '' as $$
begin
  perform private.health_check_days(from_day, to_day, 'from', 'to');
  if coalesce(compare, 'previous') <> all (enum_range(null::public.health_comparison)::text[]) then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'Invalid comparison', jsonb_build_object(
      'parameter', 'compare', 'provided', compare, 'expected', to_jsonb(enum_range(null::public.health_comparison))));
  end if;
  if compare = 'custom' then
    perform private.health_check_days(compare_from, compare_to, 'compare_from', 'compare_to');
  end if;
  first_day := from_day;
  last_day := to_day;
  compare_first := case coalesce(compare, 'previous')
    when 'previous' then from_day - (to_day - from_day + 1)
    when 'last_year' then (from_day - interval '1 year')::date
    else compare_from end;
  compare_last := case coalesce(compare, 'previous')
    when 'previous' then from_day - 1
    when 'last_year' then (from_day - interval '1 year')::date + (to_day - from_day)
    else compare_to end;
end
$$;
