-- Every attribution answer (the function, the three views, a campaign's metrics) comes from these rows: each
-- day's stored shares and, when an amount is asked for, the day's amount split in cents by the same
-- largest-remainder rule (docs/attribution.md). With recompute, the shares come from
-- private.campaign_attribution_shares, the computation the tests compare with. With of_campaign, ranks are
-- counted from the primary key rather than sorted (a campaign's metrics three times cheaper on busy days).
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

revoke execute on function private.campaign_attribution_rows(date, date, numeric, boolean, uuid, boolean) from public, anon;

grant execute on function private.campaign_attribution_rows(date, date, numeric, boolean, uuid, boolean) to authenticated, service_role;

-- A day's answer as JSON text, from the entries stored with its shares: for 1,000 campaigns about 330 KB that
-- cost more built object by object than the shares themselves (text, so it is not parsed again). An order
-- amount gives each entry its amount; `max_entries` keeps the first ones. The campaigns function sends it as it
-- is; calculate_campaign_attributions (the rpc door, whose contract is jsonb) converts it.
create or replace function private.campaign_attributions_json(
  target_date date, order_amount numeric default null, max_entries integer default null
)
returns text
language plpgsql stable set search_path = '' as $$
declare
  result text;
begin
  if target_date is null then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'target_date is required', 'target_date', null, 'required');
  end if;
  if order_amount < 0 or order_amount >= 1000000000000 or scale(order_amount) > 2 then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'Invalid order_amount', 'order_amount',
      to_jsonb(order_amount), 'a non-negative amount below 1000000000000 with at most 2 decimal places');
  end if;

  -- The amounts are null without an order amount: then neither the entries nor the answer carry one. One
  -- pass over the day's rows, each joined to its stored entry: the counts, the layers and the entries
  -- (the rows are the stored days', so every one has its entry).
  select '{"attribution_date":' || to_json(target_date)::text
         || ',"total_active_campaigns":' || count(*)
         || ',"active_layers":' || coalesce(array_to_json(array_agg(distinct r.attribution_layer))::text, '[]')
         || ',"attributions":[' || coalesce(
              string_agg(d.entry || coalesce(',"attributed_amount":' || r.attributed_amount, '') || '}', ','
                         order by r.answer_rank) filter (where max_entries is null or r.answer_rank <= max_entries),
              '')
         || ']' || coalesce(',"order_amount":' || to_json(order_amount)::text, '') || '}'
  into result
  from private.campaign_attribution_rows(target_date, target_date, order_amount, false) r
  join private.campaign_attribution_days d on d.attribution_date = target_date and d.campaign_id = r.campaign_id;
  return result;
end
$$;

revoke execute on function private.campaign_attributions_json(date, numeric, integer) from public, anon;

grant execute on function private.campaign_attributions_json(date, numeric, integer) to authenticated, service_role;

create or replace function public.calculate_campaign_attributions(target_date date, order_amount numeric default null)
returns jsonb
language sql stable set search_path = '' as $$
  select private.campaign_attributions_json(target_date, order_amount)::jsonb
$$;

revoke execute on function public.calculate_campaign_attributions(date, numeric) from public, anon;

grant execute on function public.calculate_campaign_attributions(date, numeric) to authenticated, service_role;

-- A campaign's figures over its own days (docs/campaigns.md), from the same rows as the views: each
-- day's attribution depends only on that day, so reading the days the campaign counts on gives exactly
-- the entries campaign_overlap_calendar shows for it. Days run up to today, as in the views. The
-- campaigns it collaborated with are those stored on its days.
create or replace function private.campaign_metrics(target_campaign uuid)
returns table (
  attributed_revenue numeric,
  attribution_days bigint,
  avg_daily_revenue numeric,
  collaboration_campaigns bigint,
  competition_intensity text,
  daily_attribution jsonb
)
language sql stable set search_path = '' as $$
  with days as materialized (
    select r.attribution_date, r.total_active_campaigns, r.normalized_weight, r.attributed_amount
    from public.campaigns c
    cross join lateral private.campaign_attribution_rows(
      c.start_date, least(c.end_date, private.store_today()), null, true, c.id) r
    where c.id = target_campaign and c.deleted_at is null
  ),
  figures as (
    select coalesce(sum(attributed_amount), 0) as attributed_revenue,
           count(*) as attribution_days,
           round(avg(total_active_campaigns)) as typical_competition
    from days
  )
  select f.attributed_revenue,
         f.attribution_days,
         case when f.attribution_days = 0 then 0 else round(f.attributed_revenue / f.attribution_days, 2) end,
         (select count(*)
          from (select o.campaign_id
                from private.campaign_attribution_days o
                where o.attribution_date in (select d.attribution_date from days d)
                  and o.campaign_id <> target_campaign
                group by o.campaign_id) others),
         case when f.typical_competition >= 4 then 'high' when f.typical_competition >= 2 then 'medium' else 'low' end,
         coalesce((select jsonb_agg(jsonb_build_object(
                            'date', d.attribution_date,
                            'attributed_amount', d.attributed_amount,
                            'attribution_percentage', d.normalized_weight * 100)
                          order by d.attribution_date)
                   from days d), '[]')
  from figures f
$$;

revoke execute on function private.campaign_metrics(uuid) from public, anon;

grant execute on function private.campaign_metrics(uuid) to authenticated, service_role;
