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
-- on and its daily share of budget: recorded spend for a campaign with any record, else the budget spread
-- over its planned days on each day it was active. Campaigns with neither an active day nor a recorded
-- spend in the stretch are left out. Deleted campaigns are left out, as attribution leaves them out. With
-- of_campaign, that campaign's only.
create or replace function private.campaign_spend_between(first_day date, last_day date, of_campaign uuid default null)
returns table (campaign_id uuid, active_days bigint, spend numeric, recorded boolean)
language sql stable set search_path = '' as $$
  with active as (
    select d.campaign_id, count(*) as active_days
    from private.campaign_attribution_days d
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
         case when k.has_records then coalesce(r.spend, 0)
              else round(c.budget * coalesce(a.active_days, 0) / (c.end_date - c.start_date + 1), 2) end,
         k.has_records
  from (select a.campaign_id from active a union select r.campaign_id from recorded r) w
  join public.campaigns c on c.id = w.campaign_id and c.deleted_at is null
  left join active a on a.campaign_id = w.campaign_id
  left join recorded r on r.campaign_id = w.campaign_id
  cross join lateral (select exists (select 1 from public.campaign_spend s where s.campaign_id = c.id) as has_records) k
$$;

revoke execute on function private.campaign_spend_between(date, date, uuid) from public, anon;

grant execute on function private.campaign_spend_between(date, date, uuid) to authenticated, service_role;

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
  left join lateral private.campaign_spend_between(c.start_date, least(c.end_date, private.store_today()), c.id) s
    on true
  where c.id = target_campaign and c.deleted_at is null
$$;

revoke execute on function private.campaign_pacing(uuid) from public, anon;

grant execute on function private.campaign_pacing(uuid) to authenticated, service_role;
