-- The marketing dimension of business health 2.0 (issue 42; docs/business-health.md "Marketing"): what the
-- campaigns of a stretch of store days spent (40_campaigns/50_campaign_spend.sql) against the revenue
-- attribution gives them (40_campaigns/34_attribution_answers.sql). Spend and attribution are kept by store
-- day, so a report's window reads whole store days: the P days ending today, today so far included.

-- The store days of a report window of `days` days ending at `as_of`, and of the window before it.
create or replace function private.marketing_days(as_of timestamptz, days integer, out first_day date, out last_day date)
language sql immutable parallel safe set search_path = '' as $$
  select private.store_day(as_of) - days + 1, private.store_day(as_of)
$$;

-- The revenue attribution gives all campaigns of [first_day, last_day] together: each day on which some
-- campaign counts hands out the whole of its revenue (the split's cents add up to the day's), so the total
-- is those days' revenue, exactly what attribution's answers add up to.
create or replace function private.marketing_attributed_revenue(first_day date, last_day date)
returns numeric
language sql stable set search_path = '' as $$
  select coalesce(sum(r.revenue), 0)
  from private.order_daily_revenue_now r
  where r.order_date between first_day and last_day
    and exists (select 1 from private.campaign_attribution_days d where d.attribution_date = r.order_date)
$$;

revoke execute on function private.marketing_attributed_revenue(date, date) from public, anon, authenticated;

grant execute on function private.marketing_attributed_revenue(date, date) to service_role;

-- A campaign's exact attributed revenue over [first_day, last_day]: attribution's own answer, summed.
create or replace function private.campaign_attributed_revenue(target_campaign uuid, first_day date, last_day date)
returns numeric
language sql stable set search_path = '' as $$
  select coalesce(sum(r.attributed_amount), 0)
  from private.campaign_attribution_rows(first_day, last_day, null, true, target_campaign) r
$$;

revoke execute on function private.campaign_attributed_revenue(uuid, date, date) from public, anon;

grant execute on function private.campaign_attributed_revenue(uuid, date, date) to authenticated, service_role;

-- One campaign as an insight names it: its figure (ROAS or pacing) and, for callers who may read campaigns, its
-- id and name; null when there is no such campaign.
create or replace function private.marketing_campaign_word(campaign_id uuid, with_names boolean, figure numeric)
returns jsonb
language sql stable set search_path = '' as $$
  select case when campaign_id is not null then jsonb_build_object(
    'figure', figure,
    'id', case when with_names then campaign_id end,
    'name', case when with_names then (select c.name from public.campaigns c where c.id = campaign_id) end)
  end
$$;

revoke execute on function private.marketing_campaign_word(uuid, boolean, numeric) from public, anon, authenticated;

grant execute on function private.marketing_campaign_word(uuid, boolean, numeric) to service_role;

-- What the report's marketing score and its insights read, for the store days of a window: how many campaigns
-- ran or spent, what they spent, what attribution gave them, ROAS; the campaigns with the best and the worst
-- return (among those that spent), and the one furthest ahead of its days (private.campaign_pacing, above 1.2),
-- each with its exact ROAS (or pacing) and, when `with_names`, its id and name.
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

revoke execute on function private.health_marketing_figures(date, date, boolean) from public, anon, authenticated;

grant execute on function private.health_marketing_figures(date, date, boolean) to service_role;

-- The marketing figures of a window for the staff (the figures route): spend, attributed revenue, ROAS, the
-- attributed margin (each campaign day's share of the margin of that day's orders whose goods cost is known,
-- private.shipped_order_costs) and margin ROAS, and the window's campaigns by spend (at most 20), each with
-- attribution's exact answer for it.
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

revoke execute on function private.marketing_window_figures(date, date) from public, anon, authenticated;

grant execute on function private.marketing_window_figures(date, date) to service_role;

-- Version 2.0's insight rules (docs/business-health.md "Insights of 2.0"), as private.health_insight_rules
-- writes the seeds' (58_insights.sql) and beside them in the ranking: the campaigns with the best and the worst
-- return and the one spending furthest ahead of its days, from `figures`' `marketing`
-- (private.health_marketing_figures), named for callers who may read campaigns. None applies in 1.0.
create or replace function private.health_marketing_insight_rules(figures jsonb)
returns table (
  n integer, applies boolean, title text, title_en text, description text, description_en text, type text,
  impact text, observations bigint, category text, actions text[], actions_en text[]
)
language sql stable set search_path = '' as $$
  select v.*
  from jsonb_to_record(figures) as f(orders bigint, version integer, marketing jsonb)
  cross join lateral (
    select (f.marketing -> 'best' ->> 'figure')::numeric as best_roas,
           coalesce('「' || (f.marketing -> 'best' ->> 'name') || '」', '一檔活動') as best_zh,
           coalesce('"' || (f.marketing -> 'best' ->> 'name') || '"', 'A campaign') as best_en,
           (f.marketing -> 'worst' ->> 'figure')::numeric as worst_roas,
           coalesce('「' || (f.marketing -> 'worst' ->> 'name') || '」', '一檔活動') as worst_zh,
           coalesce('"' || (f.marketing -> 'worst' ->> 'name') || '"', 'A campaign') as worst_en,
           (f.marketing -> 'ahead' ->> 'figure')::numeric as pacing,
           coalesce('「' || (f.marketing -> 'ahead' ->> 'name') || '」', '一檔活動') as ahead_zh,
           coalesce('"' || (f.marketing -> 'ahead' ->> 'name') || '"', 'A campaign') as ahead_en
  ) m
  cross join lateral (
    values
    (15, m.best_roas >= 1,
     '回報最佳的活動', 'Best-returning campaign',
     format('%s本期的廣告投報率（ROAS）為 %s：每花 1 元帶回 %s 元營收。', m.best_zh, m.best_roas, m.best_roas),
     format('%s has a ROAS of %s this period: every 1 spent brought back %s in revenue.', m.best_en, m.best_roas,
            m.best_roas),
     'opportunity', case when m.best_roas >= 3 then 'medium' else 'low' end, f.orders, 'marketing',
     array['提高這檔活動的預算', '把這檔活動的做法用在其他商品'],
     array['Give this campaign more budget', 'Use what works in this campaign for other products']),
    (16, m.worst_roas < 1,
     '回報偏低的活動', 'Campaign not paying back',
     format('%s本期的廣告投報率（ROAS）只有 %s：帶回的營收還不到花費。', m.worst_zh, m.worst_roas),
     format('%s has a ROAS of only %s this period: it brought back less than it spent.', m.worst_en, m.worst_roas),
     'warning', case when m.worst_roas < 0.5 then 'high' else 'medium' end, f.orders, 'marketing',
     array['檢討這檔活動的目標客群與素材', '暫停這檔活動或降低預算'],
     array['Review the audience and the creative of this campaign', 'Pause this campaign or cut its budget']),
    (17, m.pacing > 1.2,
     '活動花費超前', 'Campaign spending ahead',
     format('%s到今天已花掉其天數應花預算的 %s%%。', m.ahead_zh, round(m.pacing * 100)),
     format('%s has spent %s%% of what its days so far allow of its budget.', m.ahead_en, round(m.pacing * 100)),
     'warning', case when m.pacing >= 2 then 'high' else 'medium' end, f.orders, 'marketing',
     array['檢查這檔活動在廣告平台上的每日上限', '調整這檔活動的預算或結束日期'],
     array['Check the daily cap of this campaign on the ad platform', 'Change the budget or the end date of this campaign'])
  ) v
  where coalesce(f.version, 1) >= 2
$$;

revoke execute on function private.health_marketing_insight_rules(jsonb) from public, anon, authenticated;

grant execute on function private.health_marketing_insight_rules(jsonb) to service_role;

-- The marketing score of a window's figures (private.health_marketing_figures): its ROAS scaled, or 0 when
-- nothing was spent (marketingDetails says why), not a missing ROAS to scale.
create or replace function private.health_marketing_metric(marketing jsonb)
returns numeric
language sql immutable set search_path = '' as $$
  select case when (marketing ->> 'spend')::numeric > 0
              then private.health_marketing_score((marketing ->> 'attributed_revenue')::numeric / (marketing ->> 'spend')::numeric)
              else 0 end
$$;

revoke execute on function private.health_marketing_metric(jsonb) from public, anon, authenticated;

grant execute on function private.health_marketing_metric(jsonb) to service_role;

-- How version 2.0's marketing score came about, for the report (ratios only, as the whole report): `status`
-- `scored`, or why it is 0 (`no_campaigns`: none ran or spent in the window; `no_spend`: they spent nothing)
-- with the reason in the report's words; how many campaigns, their ROAS, and the store days read.
create or replace function private.health_marketing_details(marketing jsonb, first_day date, last_day date, language text)
returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'status', s.status,
    'reason', case s.status when 'no_campaigns' then private.health_word('本期沒有進行中的活動', language)
                            when 'no_spend' then private.health_word('本期的活動沒有花費', language) end,
    'campaigns', (marketing ->> 'campaigns')::bigint,
    'roas', marketing -> 'roas',
    'firstDay', first_day, 'lastDay', last_day)
  from (
    select case when (marketing ->> 'campaigns')::bigint = 0 then 'no_campaigns'
                when (marketing ->> 'spend')::numeric = 0 then 'no_spend'
                else 'scored' end as status
  ) s
$$;

revoke execute on function private.health_marketing_details(jsonb, date, date, text) from public, anon, authenticated;

grant execute on function private.health_marketing_details(jsonb, date, date, text) to service_role;
