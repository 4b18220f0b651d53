-- Business health 2.0 (issue 42): the marketing dimension from campaigns' return, and custom periods.
-- Campaigns gain recorded spend; the report takes a version (2 scores marketing and takes custom periods, 1 is
-- the seeds' report as before); the figures route gives each window's marketing and custom periods; the
-- insights name campaigns. The whole of 40_campaigns/50_campaign_spend.sql, 50_health/45_marketing.sql and
-- 50_health/55_custom_periods.sql are new; the rest is the delta of the files they touch, and, last, the new
-- kept figures filled from the orders.

alter type public.insight_action_target add value if not exists 'campaign';

drop function if exists health.business_health(text, boolean, boolean, boolean, text);

drop function if exists health.business_figures(text);

drop function if exists private.health_report(text, boolean, boolean, boolean, timestamptz, text);

drop function if exists private.order_list_sums(private.order_changes[]);

drop index public.orders_promised_at_idx;

create index orders_promised_at_idx on public.orders (promised_at) include (cancelled_at, delivered_at, order_date)
  where promised_at is not null;


alter table private.order_day_figures
  add column promised integer not null default 0,
  add column on_time integer not null default 0;

-- A batch's signed sums by store day (key_date) and by customer (key_customer), in one pass: placed, counted,
-- revenue, completed, cancelled, refunded, for customers the latest day among the versions added and among those
-- removed, and promised a delivery (and not cancelled) and delivered by the promise.
create or replace function private.order_list_sums(changes private.order_changes[])
returns table (key_date date, key_customer uuid, orders integer, counted_orders integer, revenue numeric,
               completed integer, cancelled integer, refunded integer, added_last date, removed_last date,
               promised integer, on_time integer)
language sql immutable set search_path = '' as $$
  select c.order_date, c.customer_id, sum(c.sign)::integer,
         coalesce(sum(c.sign) filter (where k.counted), 0)::integer,
         coalesce(sum(c.sign * c.total_amount) filter (where k.counted), 0),
         coalesce(sum(c.sign) filter (where c.completed_at is not null), 0)::integer,
         coalesce(sum(c.sign) filter (where c.cancelled_at is not null), 0)::integer,
         coalesce(sum(c.sign) filter (where not k.counted and c.cancelled_at is null), 0)::integer,
         max(c.order_date) filter (where c.sign > 0), max(c.order_date) filter (where c.sign < 0),
         coalesce(sum(c.sign) filter (where c.promised_at is not null and c.cancelled_at is null), 0)::integer,
         coalesce(sum(c.sign) filter (where c.cancelled_at is null and c.delivered_at <= c.promised_at), 0)::integer
  from unnest(changes) c
  cross join lateral (select private.counts_as_revenue(c.counted_until) as counted) k
  group by grouping sets ((c.order_date), (c.customer_id))
$$;


revoke execute on function private.order_list_sums(private.order_changes[]) from public, anon;

grant execute on function private.order_list_sums(private.order_changes[]) to authenticated, service_role;

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


-- Statement-level, over the transition tables, so a bulk write appends in one statement. Security definer
-- because order writers (administrators, the store's jobs) have no rights on `private`.
create or replace function private.log_order_changes()
returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                       promised_at, delivered_at, completed_at, cancelled_at, counted_until)
    select 1, n.id, n.customer_id, n.status, n.total_amount, n.ordered_at, n.order_date, n.promised_at,
           n.delivered_at, n.completed_at, n.cancelled_at, n.counted_until
    from new_rows n;
  elsif tg_op = 'UPDATE' then
    -- An update of columns the analytics do not read (a payment time, updated_at) appends nothing: the
    -- versions that did not change cancel out.
    insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                       promised_at, delivered_at, completed_at, cancelled_at, counted_until)
    select -1, c.*
    from (select o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
                 o.delivered_at, o.completed_at, o.cancelled_at, o.counted_until
          from old_rows o
          except all
          select n.id, n.customer_id, n.status, n.total_amount, n.ordered_at, n.order_date, n.promised_at,
                 n.delivered_at, n.completed_at, n.cancelled_at, n.counted_until
          from new_rows n) c
    union all
    select 1, c.*
    from (select n.id, n.customer_id, n.status, n.total_amount, n.ordered_at, n.order_date, n.promised_at,
                 n.delivered_at, n.completed_at, n.cancelled_at, n.counted_until
          from new_rows n
          except all
          select o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
                 o.delivered_at, o.completed_at, o.cancelled_at, o.counted_until
          from old_rows o) c;
  elsif tg_op = 'DELETE' then
    insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                       promised_at, delivered_at, completed_at, cancelled_at, counted_until)
    select -1, o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
           o.delivered_at, o.completed_at, o.cancelled_at, o.counted_until
    from old_rows o;
  else
    truncate private.order_changes, private.order_daily_revenue, private.health_figure_changes,
      private.health_figure_changes_by_10_minutes, private.customer_scores, private.order_day_figures,
      private.customer_order_figures, private.customer_counted_orders;
  end if;
  return null;
end
$$;


-- Folds the log into the kept figures, `batch_size` changes at a time, and returns how many it folded.
-- One folder at a time, by a transaction-level advisory lock: with `wait` (a report, which must fold
-- everything before it reads) the caller queues for it; without (the periodic folds) it returns 0 at once
-- when another folder holds it. Idempotent: a change is deleted as it is folded, in the same transaction,
-- so it is folded once, whatever the crash or the concurrency. Each batch adds its revenue to the days it
-- changed, its orders' figure steps to the hours they fall in (private.apply_order_figure_changes) and its
-- days' and customers' orders to the orders list's kept figures (private.apply_order_list_changes), and
-- notes the customers whose counted orders changed, with their earliest changed order. Then those
-- customers are rescored from it on (private.apply_customer_score_changes), at most 50,000 at a time, which
-- bounds the walk's sort: a customer's state depends on all their orders, so it is walked from the orders as
-- they are, and the difference to what was kept is what changes. Once per fold, not once per batch: a bulk
-- load's customers each have orders in every batch. A batch and a rescoring each add to every hour they
-- touch, up to a year's, so a backlog folds fastest in large batches; a batch is one array, of about 150
-- bytes a change.
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
    perform private.apply_order_list_changes(changes);
    perform private.apply_counted_order_changes(changes);
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


-- Everything the analytics keep of orders, rebuilt from the orders as they are: the log and the kept
-- figures emptied, every order appended once, and folded. For an operator who doubts them, and the tests
-- that hold the kept figures equal to a full recompute. Order writes wait while it runs.
create or replace function private.refold_all_orders()
returns bigint
language plpgsql security definer set search_path = '' as $$
begin
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('private.fold_order_changes'));
  lock table public.orders in share mode;
  truncate private.order_changes, private.order_daily_revenue, private.health_figure_changes,
    private.health_figure_changes_by_10_minutes, private.customer_scores, private.order_day_figures,
    private.customer_order_figures, private.customer_counted_orders;
  insert into private.order_changes (sign, order_id, customer_id, status, total_amount, ordered_at, order_date,
                                     promised_at, delivered_at, completed_at, cancelled_at, counted_until)
  select 1, o.id, o.customer_id, o.status, o.total_amount, o.ordered_at, o.order_date, o.promised_at,
         o.delivered_at, o.completed_at, o.cancelled_at, o.counted_until
  from public.orders o;
  return private.fold_order_changes(true);
end
$$;


-- What campaigns cost (business health 2.0, issue 42; docs/business-health.md "Marketing"). A campaign's
-- spend on a store day is what was recorded for it that day, once anything is recorded for it; until then
-- its budget spread evenly over its planned days (start_date to end_date), counted on each day attribution
-- counts it active. ROAS (return on ad spend) = the revenue attribution gives a campaign ÷ its spend.

-- Actual spend, one row per campaign and store day, as the store's jobs import it from the ad platforms
-- (or staff record it), through supabase-js: administrators and the service key write it, signed-in
-- callers read it. A day's row is
-- replaced, not added to, when the platform's figure for that day is corrected.
create table public.campaign_spend (
  campaign_id uuid not null references public.campaigns (id) on delete restrict,
  spend_date date not null constraint campaign_spend_date_finite check (isfinite(spend_date)),
  amount numeric(14, 2) not null constraint campaign_spend_amount_not_negative check (amount >= 0),
  recorded_at timestamptz not null default private.now(),
  primary key (campaign_id, spend_date)
);

-- The recorded spend of a stretch of days, over every campaign.
create index campaign_spend_spend_date_idx on public.campaign_spend (spend_date) include (amount);

alter table public.campaign_spend enable row level security;

-- Read as campaigns and their budgets are: by every signed-in caller.
create policy "signed-in callers read campaign spend" on public.campaign_spend
  for select to authenticated
  using (true);

create policy "admins record campaign spend" on public.campaign_spend
  for insert to authenticated
  with check ((select private.is_admin()));

create policy "admins correct campaign spend" on public.campaign_spend
  for update to authenticated
  using ((select private.is_admin()))
  with check ((select private.is_admin()));

create policy "admins remove campaign spend" on public.campaign_spend
  for delete to authenticated
  using ((select private.is_admin()));

revoke all on public.campaign_spend from public, anon;

grant select, insert, update, delete on public.campaign_spend to authenticated, service_role;

-- Each campaign's spend over the store days [first_day, last_day], with how many of those days it counted
-- on: recorded spend for a campaign with any record, else the budget spread over its planned days on each day
-- it was active. And the revenue attribution gives it, by the whole cents of its share of each day's revenue
-- (attribution's split before it hands out each day's last cents, one each: at most a cent a day below
-- attribution's own answer, 34_attribution_answers.sql), what a report ranks campaigns by. Campaigns with
-- neither an active day nor a recorded spend in the stretch are left out, and deleted ones, as attribution
-- leaves them out. With of_campaign, that campaign's only.
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
    where s.spend_date between first_day and last_day and (of_campaign is null or s.campaign_id = of_campaign)
    group by s.campaign_id
  )
  select c.id, coalesce(a.active_days, 0),
         case when c.has_records then coalesce(r.spend, 0)
              else round(c.budget * coalesce(a.active_days, 0) / (c.end_date - c.start_date + 1), 2) end,
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

revoke execute on function private.campaign_returns(date, date, uuid) from public, anon;

grant execute on function private.campaign_returns(date, date, uuid) to authenticated, service_role;

-- A campaign's spend to date (its days up to today) against its budget's share of the planned days passed:
-- pacing = spend ÷ (budget × days passed ÷ planned days). Above 1 it spends ahead of its days; a campaign
-- without records spends its budget evenly by definition, so it never runs ahead. Null before it starts or
-- with no budget.
create or replace function private.campaign_pacing(target_campaign uuid)
returns table (spend_to_date numeric, recorded boolean, days_passed integer, planned_days integer, pacing numeric)
language sql stable set search_path = '' as $$
  select s.spend, coalesce(s.recorded, false), p.passed, p.planned,
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

revoke execute on function private.campaign_pacing(uuid) from public, anon;

grant execute on function private.campaign_pacing(uuid) to authenticated, service_role;


-- The report's fixed words (the ratings above, the trend's descriptions below) in the language asked for:
-- the seeds' Traditional Chinese, which is also the key, or English (`en`).
create or replace function private.health_word(word text, language text)
returns text
language sql immutable parallel safe set search_path = '' as $$
  select case when language = 'en' then
    case word
      when '優秀' then 'Excellent'
      when '良好' then 'Good'
      when '普通' then 'Fair'
      when '需改善' then 'Needs improvement'
      when '待加強' then 'Poor'
      when '業務表現持續改善' then 'The business keeps improving'
      when '需要關注業務指標下滑' then 'The business figures are falling: look into them'
      when '業務表現穩定' then 'The business is steady'
      when '本期沒有進行中的活動' then 'No campaign ran in this period'
      when '本期的活動沒有花費' then 'The campaigns of this period spent nothing'
      else word
    end
  else word end
$$;


-- Marketing (version 2.0): ROAS, the revenue attribution gives the window's campaigns ÷ what they spent, on a
-- scale from 1 (the campaigns bring back only what they cost: 0) to 3 (healthy: 10).
create or replace function private.health_marketing_score(roas numeric)
returns numeric
language sql immutable parallel safe set search_path = '' as $$
  select 10 * private.health_scale(roas, 1, 3)
$$;


revoke execute on function private.health_marketing_score(numeric) from public, anon, authenticated;

grant execute on function private.health_marketing_score(numeric) to service_role;

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
    select count(*) as campaigns, coalesce(sum(m.spend), 0) as spend,
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
    select coalesce(sum(m.spend), 0) as spend, count(*) as campaigns,
           private.marketing_attributed_revenue(first_day, last_day) as revenue,
           (select coalesce(sum(g.margin), 0) from margins g
            where exists (select 1 from private.campaign_attribution_days d where d.attribution_date = g.day)) as margin
    from returns m
  ),
  listed as (
    select m.campaign_id, c.name, m.spend, m.recorded, m.active_days,
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
-- writes the seeds' (60_report.sql) and beside them in the ranking: the campaigns with the best and the worst
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


-- The shipped orders of known cost placed in [first_at, before_at) (30_inventory/50_order_goods.sql), as they
-- stand now: how many, what they came to, what their goods cost, the margin.
create or replace function private.health_goods_figures(first_at timestamptz, before_at timestamptz)
returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_build_object('orders', count(*), 'revenue', coalesce(sum(s.total_amount), 0),
                            'cost', coalesce(sum(s.goods_cost), 0),
                            'margin', coalesce(sum(s.total_amount), 0) - coalesce(sum(s.goods_cost), 0))
  from private.shipped_order_costs s
  where s.ordered_at >= first_at and s.ordered_at < before_at
$$;


revoke execute on function private.health_goods_figures(timestamptz, timestamptz) from public, anon, authenticated;

grant execute on function private.health_goods_figures(timestamptz, timestamptz) to service_role;

-- Tickets opened in [first_at, before_at). Resolved means resolved before `as_of`; an unanswered ticket's response
-- time is the time it has waited so far. The response times are summed as intervals, exact and native,
-- and scored once (private.health_average_response_score), not ticket by ticket in numeric, which was
-- three quarters of a 90-day report's ticket figures.
create or replace function private.health_span_ticket_figures(first_at timestamptz, before_at timestamptz, as_of timestamptz)
returns table (
  tickets bigint, resolved bigint, rated bigint, average_rating numeric,
  response_score numeric, average_response_hours numeric
)
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
declare
  bounds record := private.health_response_bounds();
begin
  return query
  with t as (
    select t.resolved_at < as_of as is_resolved, t.satisfaction_rating,
           least(t.first_response_at, as_of) - t.opened_at as response_time
    from public.support_tickets t
    where t.opened_at >= first_at and t.opened_at < before_at
  )
  select count(*),
         count(*) filter (where t.is_resolved),
         count(t.satisfaction_rating) filter (where t.is_resolved),
         avg(t.satisfaction_rating) filter (where t.is_resolved),
         private.health_average_response_score(count(*), sum(least(greatest(t.response_time, bounds.best), bounds.worst))),
         extract(epoch from sum(t.response_time)) / 3600 / nullif(count(*), 0)
  from t;
end
$$;


-- The window of `days` days ending at `as_of`.
create or replace function private.health_ticket_figures(as_of timestamptz, days integer)
returns table (
  tickets bigint, resolved bigint, rated bigint, average_rating numeric,
  response_score numeric, average_response_hours numeric
)
language sql stable set search_path = '' as $$
  select * from private.health_span_ticket_figures(as_of - make_interval(hours => 24 * days), as_of, as_of)
$$;


revoke execute on function private.health_span_ticket_figures(timestamptz, timestamptz, timestamptz)
from public, anon, authenticated;

grant execute on function private.health_span_ticket_figures(timestamptz, timestamptz, timestamptz) to service_role;

-- The products dimension's figures: active products (active, not deleted, created before `as_of`), the
-- share of them in stock (some free to sell: available_stock, on hand less what open orders hold), and the
-- share that sold in [first_at, before_at): an order's line shipped (a `sale` movement) or a stock-out booked.
-- Stock is read as it is now, also for a past `as_of`, because lots written outside the stock functions
-- leave no ledger to rewind.
create or replace function private.health_span_product_figures(first_at timestamptz, before_at timestamptz, as_of timestamptz)
returns table (products bigint, in_stock_share numeric, sold_share numeric)
language plpgsql stable set search_path = '' as $$
begin
  return query
  with active as (
    select p.id, p.available_stock
    from public.products p
    where p.is_active and p.deleted_at is null and p.created_at < as_of
  ),
  sold as (
    select distinct m.product_id
    from public.stock_movements m
    where m.operation in ('stock_out', 'sale')
      and m.created_at >= first_at and m.created_at < before_at
  )
  select count(*),
         (count(*) filter (where a.available_stock > 0))::numeric / nullif(count(*), 0),
         (count(*) filter (where s.product_id is not null))::numeric / nullif(count(*), 0)
  from active a
  left join sold s on s.product_id = a.id;
end
$$;


-- The window of `days` days ending at `as_of`.
create or replace function private.health_product_figures(as_of timestamptz, days integer)
returns table (products bigint, in_stock_share numeric, sold_share numeric)
language sql stable set search_path = '' as $$
  select * from private.health_span_product_figures(as_of - make_interval(hours => 24 * days), as_of, as_of)
$$;


revoke execute on function private.health_span_product_figures(timestamptz, timestamptz, timestamptz)
from public, anon, authenticated;

grant execute on function private.health_span_product_figures(timestamptz, timestamptz, timestamptz) to service_role;

-- The figures behind a report's scores, for the staff (the report itself carries scores only, CONTRACT
-- §3B): for the window of `days` days ending at `as_of` (`current`) and the one before it (`previous`),
-- each as it stood at its end, so each equals the orders list's summary of its window at that moment:
-- counted revenue and orders (not refunded, not cancelled by then), orders placed, completed and
-- cancelled by then, refunded (the rest: every order placed is exactly one of counted, cancelled by then and
-- refunded, so placed = counted + cancelled + refunded), average order value, active customers (a counted order in the window: the RFM
-- population), new customers (created in the window), tickets opened in it and resolved by then.
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


-- Business health 2.0's custom periods (issue 42; docs/business-health.md "Custom periods"): a stretch of store
-- days, up to 366, compared with another. Store days are counted as of now, as the store's other days are
-- (the days route, the orders list's days, attribution): what an order is now decides which figures it is in.
-- Customers are scored as of the period's end, as the seeds score them at a report's moment: a period of last
-- year scored by today's recency would say nothing of last year. Read from kept figures only, so a year costs
-- about what a week does: each day's orders (private.order_day_figures, 26_order_list_figures.sql) and each
-- customer's counted orders (below).

-- Each customer's counted orders (not refunded, not cancelled: private.counts_as_revenue), as they count now:
-- the moments they were placed, in order, and the running total of their amounts (the n-th is the first n
-- orders' sum). So a customer's RFM as of any moment is three binary searches: how many were placed before it,
-- before the year before it and before a period's start. Kept by the fold of the orders' change log
-- (25_order_changes.sql), customer by customer from the batch's net.
create table private.customer_counted_orders (
  customer_id uuid primary key,
  placed_at timestamptz[] not null,
  running_spend numeric[] not null,
  constraint customer_counted_orders_aligned check (cardinality(placed_at) = cardinality(running_spend))
);

alter table private.customer_counted_orders enable row level security;

create policy "admins read customer counted orders" on private.customer_counted_orders
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.customer_counted_orders from public, anon, authenticated, service_role;

grant select on private.customer_counted_orders to authenticated, service_role;

-- One batch of the log into the kept counted orders: for each customer whose counted orders the batch changes
-- (net: a status move takes an order away and adds it back the same), their kept orders plus the batch's net,
-- in order, with running totals. The common batch only adds orders placed after a customer's kept ones: those
-- are appended, their running totals on from the kept one; any other change (an order taken away, or placed
-- earlier) merges the customer's kept orders with the batch's. Reads no order.
create or replace function private.apply_counted_order_changes(changes private.order_changes[])
returns void
language plpgsql set search_path = '' as $$
begin
  with net as (
    select c.customer_id, c.ordered_at, c.total_amount as amount, sum(c.sign) as n
    from unnest(changes) c
    where private.counts_as_revenue(c.counted_until)
    group by c.customer_id, c.ordered_at, c.total_amount
    having sum(c.sign) <> 0
  ),
  touched as (
    select n.customer_id, k.placed_at, k.running_spend,
           bool_and(n.n > 0) and coalesce(min(n.ordered_at) >= k.placed_at[cardinality(k.placed_at)], true) as appends
    from net n
    left join private.customer_counted_orders k on k.customer_id = n.customer_id
    group by n.customer_id, k.placed_at, k.running_spend
  ),
  merged as (
    -- What each customer has after the batch that adds to their kept orders, or, for the others, all of it.
    select u.customer_id, u.ordered_at, u.amount, sum(u.n) as n
    from (select t.customer_id, e.placed_at as ordered_at, e.spend - coalesce(t.running_spend[e.i - 1], 0) as amount,
                 1 as n
          from touched t
          cross join lateral unnest(t.placed_at, t.running_spend) with ordinality e(placed_at, spend, i)
          where not t.appends
          union all
          select n.customer_id, n.ordered_at, n.amount, n.n from net n) u
    group by u.customer_id, u.ordered_at, u.amount
  ),
  each_order as (
    select m.customer_id, m.ordered_at, m.amount,
           sum(m.amount) over (partition by m.customer_id order by m.ordered_at, m.amount rows unbounded preceding)
             as running
    from merged m
    cross join generate_series(1, m.n)
  ),
  arrays as (
    select t.customer_id,
           case when t.appends then coalesce(t.placed_at, '{}') end
             || array_agg(e.ordered_at order by e.ordered_at, e.running) filter (where e.ordered_at is not null)
             as placed_at,
           case when t.appends then coalesce(t.running_spend, '{}') end
             || array_agg(coalesce(t.running_spend[cardinality(t.running_spend)], 0) * t.appends::integer + e.running
                          order by e.ordered_at, e.running) filter (where e.ordered_at is not null)
             as running_spend
    from touched t
    left join each_order e on e.customer_id = t.customer_id
    group by t.customer_id, t.appends, t.placed_at, t.running_spend
  ),
  emptied as (
    delete from private.customer_counted_orders k
    using arrays a
    where k.customer_id = a.customer_id and coalesce(cardinality(a.placed_at), 0) = 0
  )
  insert into private.customer_counted_orders as k (customer_id, placed_at, running_spend)
  select a.customer_id, a.placed_at, a.running_spend
  from arrays a
  where cardinality(a.placed_at) > 0
  order by a.customer_id
  on conflict (customer_id) do update set placed_at = excluded.placed_at, running_spend = excluded.running_spend;
end
$$;

revoke execute on function private.apply_counted_order_changes(private.order_changes[])
from public, anon, authenticated, service_role;

-- A stretch of store days a request names, checked: both days given (`first_name`, `last_name`), the last on or
-- after the first, 366 days at most, to today at most. A 400 INVALID_PARAMETER names what is wrong.
create or replace function private.health_check_days(first_day date, last_day date, first_name text, last_name text)
returns void
language plpgsql stable set search_path = '' as $$
begin
  if first_day is null or last_day is null then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'A custom period needs its first and last day',
      jsonb_build_object('parameter', case when first_day is null then first_name else last_name end, 'provided', null,
                         'expected', jsonb_build_array('a store day, YYYY-MM-DD')));
  end if;
  if last_day < first_day or last_day > private.store_today() or last_day - first_day + 1 > 366 then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'Invalid custom period', jsonb_build_object(
      'parameter', last_name, 'provided', last_day,
      'expected', jsonb_build_array(format('a store day from %s to %s: 366 days at most, today at most',
                                           first_day, least(private.store_today(), first_day + 365)))));
  end if;
end
$$;

revoke execute on function private.health_check_days(date, date, text, text) from public, anon, authenticated;

grant execute on function private.health_check_days(date, date, text, text) to service_role;

-- The custom period a request names, checked, and the period it is compared with: `from` to `to` against
-- `previous` (as many days just before; the default), `last_year` (the same dates a year before: 29 February
-- a year on is 28 February) or `custom` (compare_from to compare_to, checked alike).
create or replace function private.health_custom_days(
  from_day date, to_day date, compare text, compare_from date, compare_to date,
  out first_day date, out last_day date, out compare_first date, out compare_last date
)
language plpgsql stable set search_path = '' as $$
begin
  perform private.health_check_days(from_day, to_day, 'from', 'to');
  if coalesce(compare, 'previous') not in ('previous', 'last_year', 'custom') then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'Invalid comparison', jsonb_build_object(
      'parameter', 'compare', 'provided', compare, 'expected', jsonb_build_array('previous', 'last_year', 'custom')));
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
    when 'last_year' then (to_day - interval '1 year')::date
    else compare_to end;
end
$$;

revoke execute on function private.health_custom_days(date, date, text, date, date) from public, anon, authenticated;

grant execute on function private.health_custom_days(date, date, text, date, date) to service_role;

-- The instants of the store days [first_day, last_day]: from the first one's midnight to the next midnight
-- after the last one, or to `as_of` while that day is still going.
create or replace function private.health_days_span(first_day date, last_day date, as_of timestamptz,
                                                    out first_at timestamptz, out before_at timestamptz)
language sql stable set search_path = '' as $$
  select private.store_day_start(first_day), least(private.store_day_start(last_day + 1), as_of)
$$;

revoke execute on function private.health_days_span(date, date, timestamptz) from public, anon, authenticated;

grant execute on function private.health_days_span(date, date, timestamptz) to service_role;

-- The order figures of the store days [first_day, last_day] as they are now, from the kept days: placed,
-- completed, cancelled, refunded, counted and their revenue, and due (promised a delivery before `as_of`, not
-- cancelled) with those delivered by their promise: the kept days count every promise, so the few promised
-- for later are taken back, found through the promised_at index.
create or replace function private.health_days_order_figures(first_day date, last_day date, as_of timestamptz)
returns table (orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint, revenue numeric,
               revenue_orders bigint, refunded bigint)
-- Planned for each call, on its days and moment: the generic plan scanned the orders (250 against 4 ms).
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
begin
  return query
  select k.orders, k.completed, k.cancelled, k.promised - l.promised, k.on_time - l.on_time, k.revenue, k.counted_orders,
         k.refunded
  from (select coalesce(sum(f.orders), 0)::bigint as orders, coalesce(sum(f.completed), 0)::bigint as completed,
               coalesce(sum(f.cancelled), 0)::bigint as cancelled, coalesce(sum(f.promised), 0)::bigint as promised,
               coalesce(sum(f.on_time), 0)::bigint as on_time, coalesce(sum(f.revenue), 0) as revenue,
               coalesce(sum(f.counted_orders), 0)::bigint as counted_orders, coalesce(sum(f.refunded), 0)::bigint as refunded
        from private.order_day_figures f
        where f.order_date between first_day and last_day) k,
       (select count(*) as promised, count(*) filter (where o.delivered_at <= o.promised_at) as on_time
        from public.orders o
        where o.promised_at >= as_of and o.cancelled_at is null and o.order_date between first_day and last_day) l;
end
$$;

revoke execute on function private.health_days_order_figures(date, date, timestamptz) from public, anon, authenticated;

grant execute on function private.health_days_order_figures(date, date, timestamptz) to service_role;

-- RFM of the customers with a counted order placed in [first_at, before_at), each scored as of before_at by the
-- seeds' bands (private.rfm_bands; as private.health_average_rfm_score bands them): days since their last order
-- before it, their orders and spend in the year before it. How many, their average score (R + F + M) / 3 and how
-- many have two orders or more in the year. Their orders as they count now (private.customer_counted_orders).
-- The scores are summed as integers and divided once: a year's 100,000 customers through the per-customer
-- numeric average took 420 ms, this 100.
create or replace function private.health_span_customer_figures(first_at timestamptz, before_at timestamptz)
returns table (customers bigint, average_rfm numeric, repeat_customers bigint)
language sql stable set search_path = '' as $$
  with bands as (
    select array(select -d::numeric from unnest(r.recency_band_days) d order by 1) as negated_recency,
           r.frequency_band_orders::bigint[] as frequency, r.spend_bands as spend, r.year_days
    from private.rfm_bands() r
  ),
  placed as (
    select k.placed_at, k.running_spend,
           width_bucket(before_at - interval '1 microsecond', k.placed_at) as before_end,
           width_bucket(first_at - interval '1 microsecond', k.placed_at) as before_start,
           width_bucket(before_at - make_interval(hours => 24 * b.year_days) - interval '1 microsecond', k.placed_at)
             as before_year
    from private.customer_counted_orders k, bands b
  ),
  scored as (
    select 1 + width_bucket(-(extract(epoch from before_at - p.placed_at[p.before_end]) / 86400), b.negated_recency)
           + 1 + width_bucket((p.before_end - p.before_year)::bigint, b.frequency)
           + 1 + width_bucket(p.running_spend[p.before_end] - coalesce(p.running_spend[p.before_year], 0), b.spend) as score,
           p.before_end - p.before_year >= b.frequency[1] as repeat
    from placed p, bands b
    where p.before_end > p.before_start
  )
  select count(*), sum(s.score)::numeric / 3 / nullif(count(*), 0), count(*) filter (where s.repeat)
  from scored s
$$;

revoke execute on function private.health_span_customer_figures(timestamptz, timestamptz) from public, anon, authenticated;

grant execute on function private.health_span_customer_figures(timestamptz, timestamptz) to service_role;

-- A custom period's order figures and its comparison's: the period's (as private.health_order_figures names
-- them, previous_revenue being the comparison's revenue) and the comparison's placed and completed orders, the
-- trend's operational efficiency.
create or replace function private.health_custom_order_figures(
  first_day date, last_day date, compare_first date, compare_last date, as_of timestamptz
)
returns table (
  orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint, revenue numeric, previous_revenue numeric,
  previous_orders bigint, previous_completed bigint
)
language sql stable set search_path = '' as $$
  select w.orders, w.completed, w.cancelled, w.due, w.on_time, w.revenue, c.revenue, c.orders, c.completed
  from private.health_days_order_figures(first_day, last_day, as_of) w,
       private.health_days_order_figures(compare_first, compare_last, as_of) c
$$;

revoke execute on function private.health_custom_order_figures(date, date, date, date, timestamptz)
from public, anon, authenticated;

grant execute on function private.health_custom_order_figures(date, date, date, date, timestamptz) to service_role;

-- A custom period's customer figures, and its comparison's average RFM score (the trend's customer quality).
create or replace function private.health_custom_customer_figures(
  first_at timestamptz, before_at timestamptz, compare_first_at timestamptz, compare_before_at timestamptz
)
returns table (customers bigint, average_rfm numeric, repeat_customers bigint, previous_average_rfm numeric)
language sql stable set search_path = '' as $$
  select w.customers, w.average_rfm, w.repeat_customers, c.average_rfm
  from private.health_span_customer_figures(first_at, before_at) w,
       private.health_span_customer_figures(compare_first_at, compare_before_at) c
$$;

revoke execute on function private.health_custom_customer_figures(timestamptz, timestamptz, timestamptz, timestamptz)
from public, anon, authenticated;

grant execute on function private.health_custom_customer_figures(timestamptz, timestamptz, timestamptz, timestamptz)
to service_role;

-- The figures of a custom period and of the period it is compared with, for the staff (the figures route), as
-- private.health_period_figures gives a rolling window's, each window's orders as they are now: so each equals
-- the orders list's summary of its days (no as_of). Customers are scored as of each window's end.
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
           'average_order_value', round(o.revenue / nullif(o.revenue_orders, 0), 2),
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

revoke execute on function private.health_days_period_figures(date, date, date, date, timestamptz)
from public, anon, authenticated;

grant execute on function private.health_days_period_figures(date, date, date, date, timestamptz) to service_role;



-- The report's metrics, each rounded to 2 decimals, once every one is found on its scale (0-10) and the
-- overall score on its own (0-100): a score outside means a formula or its data went wrong, and the report
-- refuses to answer with it (CALCULATION_ERROR, stage `validation`).
create or replace function private.health_checked_metrics(metrics jsonb, overall numeric)
returns jsonb
language plpgsql immutable set search_path = '' as $$
declare
  field text;
  value numeric;
begin
  for field, value in select j.key, (j.value #>> '{}')::numeric from jsonb_each(metrics) j loop
    if value is not null and not (value between 0 and 10) then
      perform private.raise_api_error(500, 'CALCULATION_ERROR', 'Health calculation failed',
        jsonb_build_object('stage', 'validation', 'reason', format('metrics.%s is %s, outside 0-10', field, value)));
    end if;
  end loop;
  if not (overall between 0 and 100) then
    perform private.raise_api_error(500, 'CALCULATION_ERROR', 'Health calculation failed',
      jsonb_build_object('stage', 'validation', 'reason', format('overallScore is %s, outside 0-100', overall)));
  end if;
  return (select jsonb_object_agg(j.key, case when j.value = 'null'::jsonb then j.value
                                              else to_jsonb(round((j.value #>> '{}')::numeric, 2)) end)
          from jsonb_each(metrics) j);
end
$$;


revoke execute on function private.health_checked_metrics(jsonb, numeric) from public, anon, authenticated;

grant execute on function private.health_checked_metrics(jsonb, numeric) to service_role;

-- The instants a version 2.0 report read: its window and the one it compared it with.
create or replace function private.health_window(
  period text, window_from timestamptz, window_before timestamptz, compare_from timestamptz, compare_before timestamptz
)
returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_build_object('period', period, 'from', private.api_timestamp(window_from),
                            'before', private.api_timestamp(window_before),
                            'compareFrom', private.api_timestamp(compare_from),
                            'compareBefore', private.api_timestamp(compare_before))
$$;


revoke execute on function private.health_window(text, timestamptz, timestamptz, timestamptz, timestamptz)
from public, anon, authenticated;

grant execute on function private.health_window(text, timestamptz, timestamptz, timestamptz, timestamptz) to service_role;

-- The seeds' trend: the last 7 days' customer quality and operational efficiency before `as_of` (their
-- figures come with a report's, the same pass) against the 7 days before them, a report as of 7 days earlier.
create or replace function private.health_week_trend(
  as_of timestamptz, week_average_rfm numeric, week_completed bigint, week_orders bigint
)
returns jsonb
language sql stable set search_path = '' as $$
  select private.health_trend(
    private.health_percent_change(
      coalesce(week_average_rfm / 5 * 100, 0),
      coalesce((select f.average_rfm / 5 * 100 from private.health_customer_figures(as_of - interval '168 hours', 7) f), 0)),
    private.health_percent_change(
      coalesce(week_completed::numeric / nullif(week_orders, 0) * 100, 0),
      coalesce((select f.completed::numeric / nullif(f.orders, 0) * 100
                from private.health_order_figures(as_of - interval '168 hours', 7) f), 0)))
$$;


revoke execute on function private.health_week_trend(timestamptz, numeric, bigint, bigint) from public, anon, authenticated;

grant execute on function private.health_week_trend(timestamptz, numeric, bigint, bigint) to service_role;

-- The insight rules (docs/business-health.md): each rule's condition, its words and its actions over the
-- report's figures, the five most important that apply. `figures` holds the period's order, customer,
-- ticket and product figures (the columns of the figure functions), the report's own scores and the
-- `language` of its words: the seeds' Traditional Chinese, or English when asked (`en`). Each rule holds
-- its words in both, side by side, so a rule is written once.
create or replace function private.health_insight_rules(figures jsonb)
returns table (
  n integer, applies boolean, title text, title_en text, description text, description_en text, type text,
  impact text, observations bigint, category text, actions text[], actions_en text[]
)
language sql stable set search_path = '' as $$
  select v.*
  from jsonb_to_record(figures) as f(
    days integer, include_system boolean, language text, custom boolean,
    orders bigint, completed bigint, cancelled bigint, due bigint, on_time bigint, revenue numeric,
    previous_revenue numeric, customers bigint, repeat_customers bigint, tickets bigint, resolved bigint,
    rated bigint, average_rating numeric, response_score numeric, average_response_hours numeric,
    products bigint, in_stock_share numeric, sold_share numeric,
    revenue_score numeric, customer_quality numeric, overall numeric,
    system_requests bigint, system_failures bigint, system_p95_ms numeric)
  cross join lateral (
    values
    (1, f.previous_revenue > 0 and f.revenue < 0.9 * f.previous_revenue,
     '營收下滑', 'Revenue is falling',
     format('本期營收較前一期下降 %s%%，營收分數 %s/10。', round((1 - f.revenue / nullif(f.previous_revenue, 0)) * 100, 1),
            round(f.revenue_score, 1)),
     format('Revenue is down %s%% on the previous period; revenue score %s/10.',
            round((1 - f.revenue / nullif(f.previous_revenue, 0)) * 100, 1), round(f.revenue_score, 1)),
     'warning', case when f.revenue < 0.7 * f.previous_revenue then 'high' else 'medium' end, f.orders, 'revenue',
     array['比較本期與前期的流量與轉換率', '對近 90 天未回購的顧客推出限時優惠', '確認熱銷商品沒有缺貨'],
     array['Compare traffic and conversion with the previous period',
           'Offer a limited-time deal to customers who have not bought again in 90 days',
           'Make sure best-selling products are in stock']),
    (2, f.previous_revenue > 0 and f.revenue >= 1.1 * f.previous_revenue,
     '營收成長', 'Revenue is growing',
     format('本期營收較前一期成長 %s%%，已達成長 10%% 的目標。', round((f.revenue / nullif(f.previous_revenue, 0) - 1) * 100, 1)),
     format('Revenue is up %s%% on the previous period, past the 10%% growth target.',
            round((f.revenue / nullif(f.previous_revenue, 0) - 1) * 100, 1)),
     'opportunity', 'medium', f.orders, 'revenue',
     array['加碼投放帶來成長的通路', '為熱銷商品提前備貨'],
     array['Put more into the channels behind the growth', 'Stock up early on best-selling products']),
    (3, f.orders > 0 and f.completed < 0.8 * f.orders,
     '訂單完成率偏低', 'Few orders completed',
     format('本期訂單完成率 %s%%，低於 80%% 的目標。', round(f.completed::numeric / nullif(f.orders, 0) * 100, 1)),
     format('%s%% of this period''s orders are completed, below the 80%% target.',
            round(f.completed::numeric / nullif(f.orders, 0) * 100, 1)),
     'warning', 'high', f.orders, 'fulfillment',
     array['檢查卡在付款與出貨之間的訂單', '縮短從付款到出貨的處理時間'],
     array['Check orders stuck between payment and shipping', 'Shorten the time from payment to shipping']),
    (4, f.due > 0 and f.on_time < 0.9 * f.due,
     '準時出貨率不足', 'Deliveries are late',
     format('已到承諾日期的訂單中，準時送達率 %s%%（目標 90%%）。', round(f.on_time::numeric / nullif(f.due, 0) * 100, 1)),
     format('Of the orders past their promised date, %s%% arrived on time (target 90%%).',
            round(f.on_time::numeric / nullif(f.due, 0) * 100, 1)),
     'warning', case when f.on_time < 0.75 * f.due then 'high' else 'medium' end, f.due, 'fulfillment',
     array['檢視物流商的延遲紀錄', '依實際出貨能力調整承諾到貨日'],
     array['Review the carriers'' delay records', 'Promise delivery dates the shipping capacity can keep']),
    (5, f.orders > 0 and f.cancelled > 0.1 * f.orders,
     '取消率偏高', 'Many orders cancelled',
     format('本期 %s%% 的訂單被取消（警戒線 10%%）。', round(f.cancelled::numeric / nullif(f.orders, 0) * 100, 1)),
     format('%s%% of this period''s orders were cancelled (alert level 10%%).',
            round(f.cancelled::numeric / nullif(f.orders, 0) * 100, 1)),
     'warning', 'medium', f.orders, 'fulfillment',
     array['分析取消原因（缺貨、付款失敗、到貨太慢）', '在結帳頁清楚標示到貨時間'],
     array['Find out why orders are cancelled (out of stock, failed payment, slow delivery)',
           'Show the delivery time clearly at checkout']),
    (6, f.tickets > 0 and f.resolved < 0.8 * f.tickets,
     '客服工單解決率偏低', 'Few support tickets resolved',
     format('本期工單解決率 %s%%，低於 80%% 的目標。', round(f.resolved::numeric / nullif(f.tickets, 0) * 100, 1)),
     format('%s%% of this period''s tickets are resolved, below the 80%% target.',
            round(f.resolved::numeric / nullif(f.tickets, 0) * 100, 1)),
     'warning', 'high', f.tickets, 'support',
     array['每日清查超過 48 小時未結的工單', '為常見問題建立標準處理流程'],
     array['Go through tickets open for more than 48 hours every day', 'Write a standard answer for common questions']),
    (7, f.tickets > 0 and f.response_score < 0.7,
     '客服回覆速度偏慢', 'Support answers slowly',
     format('平均首次回覆時間 %s 小時，回覆分數 %s%%。', round(f.average_response_hours, 1), round(f.response_score * 100, 1)),
     format('The first answer takes %s hours on average; response score %s%%.', round(f.average_response_hours, 1),
            round(f.response_score * 100, 1)),
     'warning', 'medium', f.tickets, 'support',
     array['設定 1 小時內首次回覆的服務目標', '在尖峰時段增加客服人力或自動回覆'],
     array['Aim to answer every ticket within an hour', 'Add support staff or automatic replies at peak times']),
    (8, f.rated > 0 and f.average_rating < 3.5,
     '顧客滿意度偏低', 'Customers are not satisfied',
     format('已評分工單的平均滿意度 %s/5（%s%% 的工單有評分）。', round(f.average_rating, 2),
            round(f.rated::numeric / nullif(f.tickets, 0) * 100, 1)),
     format('Rated tickets average %s/5 (%s%% of tickets are rated).', round(f.average_rating, 2),
            round(f.rated::numeric / nullif(f.tickets, 0) * 100, 1)),
     'warning', 'high', f.rated, 'satisfaction',
     array['回訪給出 1–2 分的顧客', '檢討低分工單的共同原因'],
     array['Call back customers who rated 1–2', 'Look for what low-rated tickets have in common']),
    (9, f.customers > 0 and f.repeat_customers < 0.3 * f.customers,
     '回購率有成長空間', 'Room for more repeat customers',
     format('本期活躍顧客中僅 %s%% 在過去一年內回購，顧客品質分數 %s。',
            round(f.repeat_customers::numeric / nullif(f.customers, 0) * 100, 1), round(f.customer_quality, 1)),
     format('Only %s%% of this period''s active customers bought again within the year; customer quality %s.',
            round(f.repeat_customers::numeric / nullif(f.customers, 0) * 100, 1), round(f.customer_quality, 1)),
     'opportunity', 'medium', f.customers, 'customers',
     array['對首購顧客寄送回購優惠', '推出會員或集點方案'],
     array['Send first-time buyers an offer to come back', 'Start a membership or points programme']),
    (10, f.products > 0 and f.in_stock_share < 0.9,
     '缺貨商品偏多', 'Many products out of stock',
     format('%s%% 的上架商品目前缺貨（目標 10%% 以下）。', round((1 - f.in_stock_share) * 100, 1)),
     format('%s%% of the listed products are out of stock (target: under 10%%).', round((1 - f.in_stock_share) * 100, 1)),
     'warning', case when f.in_stock_share < 0.75 then 'high' else 'medium' end, f.products, 'products',
     array['優先補貨近期有銷售的缺貨商品', '為熱銷商品設定安全庫存'],
     array['Restock first the out-of-stock products that sold recently', 'Set a safety stock for best sellers']),
    (11, f.products > 0 and f.sold_share < 0.5,
     '滯銷商品偏多', 'Many products not selling',
     format('本期僅 %s%% 的上架商品有出貨。', round(f.sold_share * 100, 1)),
     format('Only %s%% of the listed products shipped this period.', round(f.sold_share * 100, 1)),
     'opportunity', 'low', f.products, 'products',
     array['為滯銷商品安排組合或折扣', '下架長期沒有銷售的商品'],
     array['Bundle or discount slow sellers', 'Delist products that have not sold for a long time']),
    (12, f.include_system and f.system_requests > 0 and f.system_failures > 0.01 * f.system_requests,
     '系統錯誤率偏高', 'Many requests failing',
     format('最近 15 分鐘有 %s%% 的請求失敗，p95 延遲 %s 毫秒。',
            round(f.system_failures::numeric / nullif(f.system_requests, 0) * 100, 1), round(f.system_p95_ms)),
     format('%s%% of requests failed in the last 15 minutes; p95 latency %s ms.',
            round(f.system_failures::numeric / nullif(f.system_requests, 0) * 100, 1), round(f.system_p95_ms)),
     'warning', 'high', f.system_requests, 'system',
     array['檢查資料庫連線與錯誤日誌', '確認最近的部署沒有引入錯誤'],
     array['Check the database connections and the error log', 'Make sure the last deployment did not bring errors']),
    (13, f.orders = 0,
     '本期沒有訂單', 'No orders this period',
     -- A custom period (version 2.0) may lie in the past: its days are not "the last" ones.
     format(case when f.custom then '這段期間的 %s 天沒有任何訂單，各項分數以 0 計。'
                 else '最近 %s 天沒有任何訂單，各項分數以 0 計。' end, f.days),
     format(case when f.custom then 'No order in the period''s %s days; the scores count as 0.'
                 else 'No order in the last %s days; the scores count as 0.' end, f.days),
     'info', 'low', null::bigint, 'revenue',
     array['確認商店與結帳流程正常運作', '安排一檔促銷活動帶動首批訂單'],
     array['Check that the store and checkout work', 'Run a promotion to bring in the first orders']),
    (14, f.overall >= 75,
     '整體表現良好', 'Doing well overall',
     format('綜合健康分數 %s，評等「%s」。', round(f.overall, 1), private.health_rating(f.overall)),
     format('Overall health score %s, rated "%s".', round(f.overall, 1), private.health_word(private.health_rating(f.overall), 'en')),
     'info', 'low', f.orders, 'overall',
     array['維持目前的營運節奏', '每週追蹤趨勢，及早發現下滑'],
     array['Keep up the current pace', 'Follow the trend every week to catch a decline early'])
  ) v
$$;


create or replace function private.health_action_targets(rule integer)
returns public.insight_action_target[]
language sql immutable set search_path = '' as $$
  select (case rule
    when 1 then array[null, 'new_campaign', 'products_out_of_stock']
    when 2 then array[null, 'products_low_stock']
    when 3 then array['orders_awaiting_shipment', 'orders_awaiting_shipment']
    when 4 then array['orders_shipped', null]
    when 5 then array['orders_cancelled', null]
    when 9 then array['new_campaign', null]
    when 10 then array['products_out_of_stock', 'products_low_stock']
    when 11 then array['new_campaign', 'products']
    when 13 then array[null, 'new_campaign']
    when 15 then array['campaign', 'new_campaign']
    when 16 then array['campaign', 'campaign']
    when 17 then array['campaign', 'campaign']
    else array[]::text[]
  end)::public.insight_action_target[]
$$;


-- The five most important insights that apply, in the report's language, most important first. Version 2.0
-- adds each insight's `campaign_id`: the campaign it is about, for callers who may read campaigns.
create or replace function private.health_insights(figures jsonb)
returns jsonb
language sql stable set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'title', case when english then title_en else title end,
           'description', case when english then description_en else description end,
           'type', type, 'impact', impact, 'confidence', confidence, 'category', category,
           'actions', to_jsonb(case when english then actions_en else actions end),
           'action_targets', to_jsonb(private.health_action_targets(n)))
           || case when (figures ->> 'version')::integer >= 2 then jsonb_build_object('campaign_id',
                figures -> 'marketing' -> (case n when 15 then 'best' when 16 then 'worst' when 17 then 'ahead' end) -> 'id')
              else '{}'::jsonb end
         order by rank desc, confidence desc, n), '[]'::jsonb)
  from (
    select r.*, coalesce(private.health_confidence(r.observations), 1.00) as confidence,
           case r.impact when 'high' then 3 when 'medium' then 2 else 1 end as rank,
           (figures ->> 'language' = 'en') is true as english
    from (select * from private.health_insight_rules(figures)
          union all
          -- Version 2.0's: not even read for a 1.0 report.
          select * from private.health_marketing_insight_rules(figures) where (figures ->> 'version')::integer >= 2) r
    where r.applies
    order by rank desc, confidence desc, n
    limit 5
  ) ranked
$$;


-- `language`: the words' language, the seeds' Traditional Chinese unless English (`en`) is asked for; the
-- numbers and codes are the same in both. `version` 2 scores marketing (45_marketing.sql), says how in
-- `marketingDetails` and adds the campaigns' insights, naming them `with_names`; version 1 is the seeds'
-- report, marketing 0.
create or replace function private.health_report(
  period text,
  include_system boolean,
  include_trends boolean,
  include_insights boolean,
  as_of timestamptz,
  language text default 'zh-TW',
  version integer default 1,
  with_names boolean default false,
  first_day date default null,
  last_day date default null,
  compare_first date default null,
  compare_last date default null
)
returns jsonb
language plpgsql stable set search_path = '' as $$
declare
  days integer := case period when '7d' then 7 when '30d' then 30 when '90d' then 90
                              when 'custom' then case when version >= 2 then last_day - first_day + 1 end end;
  -- The window's instants and those of the one it is compared with, and the store days marketing reads.
  window_from timestamptz; window_before timestamptz; compare_from timestamptz; compare_before timestamptz;
  marketing_first date; marketing_last date;
  stage text := 'parameters';
  o record;
  c record;
  t record;
  p record;
  sys_requests bigint;
  sys_failures bigint;
  sys_success numeric; sys_p95 numeric; sys_connections numeric;
  metrics jsonb;
  customer_quality numeric;
  operational_efficiency numeric;
  support_effectiveness numeric;
  overall numeric;
  result jsonb;
  trend jsonb;
  marketing jsonb;
  marketing_score numeric := 0;
begin
  if days is null then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'Invalid period', jsonb_build_object(
      'parameter', 'period', 'provided', period,
      'expected', case when version >= 2 then jsonb_build_array('7d', '30d', '90d', 'custom')
                       else jsonb_build_array('7d', '30d', '90d') end));
  end if;

  if period = 'custom' then
    -- Store days (55_custom_periods.sql): orders as they are now, customers scored at each window's end.
    select ws.first_at, ws.before_at, cs.first_at, cs.before_at, first_day, last_day
    into window_from, window_before, compare_from, compare_before, marketing_first, marketing_last
    from private.health_days_span(first_day, last_day, as_of) ws, private.health_days_span(compare_first, compare_last, as_of) cs;
    stage := 'orders'; select * into o from private.health_custom_order_figures(first_day, last_day, compare_first,
                                                                                   compare_last, as_of);
    stage := 'customers'; select * into c from private.health_custom_customer_figures(window_from, window_before,
                                                                                       compare_from, compare_before);
    stage := 'tickets'; select * into t from private.health_span_ticket_figures(window_from, window_before, as_of);
    stage := 'products'; select * into p from private.health_span_product_figures(window_from, window_before, as_of);
  else
    stage := 'orders'; select * into o from private.health_order_figures(as_of, days);
    stage := 'customers'; select * into c from private.health_customer_figures(as_of, days);
    stage := 'tickets'; select * into t from private.health_ticket_figures(as_of, days);
    stage := 'products'; select * into p from private.health_product_figures(as_of, days);
  end if;
  if include_system then
    stage := 'system';
    select f.requests, f.failures, f.success_rate, f.p95_ms, f.connection_usage
      into sys_requests, sys_failures, sys_success, sys_p95, sys_connections
    from private.health_system_figures(as_of) f;
  end if;

  stage := 'scores';
  customer_quality := coalesce(c.average_rfm / 5 * 100, 0);
  operational_efficiency := coalesce(o.completed::numeric / nullif(o.orders, 0) * 100, 0);
  support_effectiveness := case when t.tickets = 0 then 0
    else (t.resolved::numeric / t.tickets * 0.7 + t.response_score * 0.3) * 100 end;
  overall := (customer_quality + operational_efficiency + support_effectiveness) / 3;
  if version >= 2 then
    stage := 'marketing';
    if period <> 'custom' then
      select as_of - make_interval(hours => 24 * days), as_of, as_of - make_interval(hours => 48 * days),
             as_of - make_interval(hours => 24 * days), d.first_day, d.last_day
      into window_from, window_before, compare_from, compare_before, marketing_first, marketing_last
      from private.marketing_days(as_of, days) d;
    end if;
    marketing := private.health_marketing_figures(marketing_first, marketing_last, with_names);
    marketing_score := private.health_marketing_metric(marketing);
  end if;

  metrics := jsonb_build_object(
    'revenue', private.health_revenue_score(o.revenue, o.previous_revenue),
    'satisfaction', private.health_satisfaction_score(t.average_rating, t.resolved::numeric / nullif(t.tickets, 0)),
    'fulfillment', private.health_fulfillment_score(
      o.completed::numeric / nullif(o.orders, 0), o.on_time::numeric / nullif(o.due, 0)),
    'support', support_effectiveness / 10,
    'products', private.health_products_score(p.in_stock_share, p.sold_share),
    'marketing', marketing_score,
    'system', case when include_system then private.health_system_score(sys_success, sys_p95, sys_connections) end
  );

  stage := 'validation';
  result := jsonb_build_object(
    'metrics', private.health_checked_metrics(metrics, overall),
    'scoreDetails', jsonb_build_object(
      'customerQuality', round(customer_quality, 2),
      'operationalEfficiency', round(operational_efficiency, 2),
      'supportEffectiveness', round(support_effectiveness, 2),
      'overallScore', round(overall, 2),
      'rating', private.health_word(private.health_rating(overall), language)
    )
  );

  if version >= 2 then
    result := result || jsonb_build_object(
      'marketingDetails', private.health_marketing_details(marketing, marketing_first, marketing_last, language),
      'window', private.health_window(period, window_from, window_before, compare_from, compare_before));
  end if;

  if include_trends then
    stage := 'trends';
    -- A custom period's trend is the period against the one it is compared with (the records differ by period).
    if period = 'custom' then
      trend := private.health_trend(
        private.health_percent_change(customer_quality, coalesce(c.previous_average_rfm / 5 * 100, 0)),
        private.health_percent_change(operational_efficiency,
                                      coalesce(o.previous_completed::numeric / nullif(o.previous_orders, 0) * 100, 0)));
    else trend := private.health_week_trend(as_of, c.week_average_rfm, o.week_completed, o.week_orders); end if;
    result := result || jsonb_build_object('trends', trend || jsonb_build_object(
      'description', private.health_word(trend ->> 'description', language)));
  end if;

  if include_insights then
    stage := 'insights';
    result := result || jsonb_build_object('insights',
      -- Every figure the rules read, by the names of the figure functions' columns.
      private.health_insights(to_jsonb(o) || to_jsonb(c) || to_jsonb(t) || to_jsonb(p) || jsonb_build_object(
        'days', days, 'include_system', include_system, 'language', language, 'custom', period = 'custom',
        'revenue_score', (metrics ->> 'revenue')::numeric,
        'customer_quality', customer_quality, 'overall', overall,
        'system_requests', sys_requests, 'system_failures', sys_failures, 'system_p95_ms', sys_p95,
        'version', version, 'marketing', marketing)));
  end if;

  return result;
exception
  when data_exception then
    perform private.raise_api_error(500, 'CALCULATION_ERROR', 'Health calculation failed',
      jsonb_build_object('stage', stage, 'reason', sqlerrm));
end
$$;


revoke execute on function
  private.health_report(text, boolean, boolean, boolean, timestamptz, text, integer, boolean, date, date, date, date)
from public, anon, authenticated;

grant execute on function
  private.health_report(text, boolean, boolean, boolean, timestamptz, text, integer, boolean, date, date, date, date)
to service_role;

create or replace function health.business_health(
  period text,
  include_system boolean,
  include_trends boolean,
  include_insights boolean,
  language text default 'zh-TW',
  version integer default 1,
  from_day date default null,
  to_day date default null,
  compare text default null,
  compare_from date default null,
  compare_to date default null
)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  banned_until text;
  -- A custom period's store days, checked, and those of the one it is compared with.
  first_day date;
  last_day date;
  compare_first date;
  compare_last date;
begin
  -- A signed token whose account is gone or banned no longer speaks for anyone.
  if auth.role() = 'authenticated' then
    select to_jsonb(u) ->> 'banned_until' into banned_until from auth.users u where u.id = (select auth.uid());
    if not found or banned_until::timestamptz > private.now() then
      perform private.raise_api_error(403, 'PERMISSION_DENIED', 'This account may not view business health');
    end if;
  elsif coalesce(auth.role(), '') not in ('anon', 'service_role') then
    perform private.raise_api_error(403, 'PERMISSION_DENIED', 'This role may not view business health');
  end if;
  if period = 'custom' and version >= 2 then
    select * into first_day, last_day, compare_first, compare_last
    from private.health_custom_days(from_day, to_day, compare, compare_from, compare_to);
  end if;
  perform private.fold_order_changes(true);
  -- Campaigns are named to the callers who may read them (signed-in users and the service key).
  return private.health_report(period, include_system, include_trends, include_insights, private.now(), language,
                               version, auth.role() in ('authenticated', 'service_role'), first_day, last_day,
                               compare_first, compare_last);
end
$$;


revoke execute on function health.business_health(text, boolean, boolean, boolean, text, integer, date, date, text, date, date)
from public;

grant execute on function health.business_health(text, boolean, boolean, boolean, text, integer, date, date, text, date, date)
to anon, authenticated, service_role;

-- The figures behind the scores (private.health_period_figures), for administrators and the service key
-- only: they are amounts, which the report, open to anyone, never carries. Folded first, as the report is.
create or replace function health.business_figures(
  period text,
  from_day date default null,
  to_day date default null,
  compare text default null,
  compare_from date default null,
  compare_to date default null
)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  days integer := case period when '7d' then 7 when '30d' then 30 when '90d' then 90 end;
  first_day date;
  last_day date;
  compare_first date;
  compare_last date;
begin
  if not private.is_admin() then
    perform private.raise_api_error(403, 'INSUFFICIENT_PERMISSION', 'Administrator permission is required to see the figures');
  end if;
  if days is null and period is distinct from 'custom' then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'Invalid period', jsonb_build_object(
      'parameter', 'period', 'provided', period, 'expected', jsonb_build_array('7d', '30d', '90d', 'custom')));
  end if;
  if period = 'custom' then
    select * into first_day, last_day, compare_first, compare_last
    from private.health_custom_days(from_day, to_day, compare, compare_from, compare_to);
  end if;
  perform private.fold_order_changes(true);
  return jsonb_build_object('period', period, 'as_of', private.api_timestamp(private.now()))
    || case when period = 'custom'
         then private.health_days_period_figures(first_day, last_day, compare_first, compare_last, private.now())
         else private.health_period_figures(private.now(), days) end;
end
$$;


revoke execute on function health.business_figures(text, date, date, text, date, date) from public, anon;

grant execute on function health.business_figures(text, date, date, text, date, date) to authenticated, service_role;

-- The new kept figures filled from the orders, with orders held still and the log folded first, in one
-- transaction, so that no change is both folded and filled.
do $$
begin
  lock table public.orders in share mode;
  perform private.fold_order_changes(true);
  update private.order_day_figures f
  set promised = x.promised, on_time = x.on_time
  from (select o.order_date,
               count(*) filter (where o.promised_at is not null and o.cancelled_at is null) as promised,
               count(*) filter (where o.cancelled_at is null and o.delivered_at <= o.promised_at) as on_time
        from public.orders o
        group by o.order_date) x
  where x.order_date = f.order_date;
  truncate private.customer_counted_orders;
  insert into private.customer_counted_orders (customer_id, placed_at, running_spend)
  select o.customer_id, array_agg(o.ordered_at order by o.ordered_at, o.total_amount),
         array_agg(o.running order by o.ordered_at, o.total_amount)
  from (select o.customer_id, o.ordered_at, o.total_amount,
               sum(o.total_amount) over (partition by o.customer_id order by o.ordered_at, o.total_amount
                                         rows unbounded preceding) as running
        from public.orders o
        where private.counts_as_revenue(o.counted_until)) o
  group by o.customer_id;
end
$$;