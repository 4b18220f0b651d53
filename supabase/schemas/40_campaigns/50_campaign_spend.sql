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
  amount numeric(14, 2) not null
    constraint campaign_spend_amount_not_negative check (amount >= 0 and amount < 'Infinity'),
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

-- A spend row belongs to its campaign: its day lies within the campaign's dates, and the campaign has been
-- scheduled (not a draft) and not deleted (422 SPEND_OUTSIDE_CAMPAIGN otherwise), so every route that states
-- a campaign's spend states the same amount. Under the campaign's row lock, so a date change cannot race it.
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

revoke all on public.campaign_spend from public, anon;

grant select, insert, update, delete on public.campaign_spend to authenticated, service_role;

-- Each campaign's spend over the store days [first_day, last_day] and the days it counted on: its recorded
-- spend, else its budget spread over its planned days for each active day, unrounded (a total is rounded once).
-- Its revenue is the whole cents of its share of each day's (at most a cent a day below attribution's own
-- answer), what a report ranks campaigns by. Deleted campaigns, and those with neither an active day nor spend
-- in the stretch, are left out. With of_campaign, that campaign's only.
create or replace function private.campaign_returns(first_day date, last_day date, of_campaign uuid default null)
returns table (campaign_id uuid, active_days bigint, spend numeric, recorded boolean, share_revenue numeric)
-- Planned for each call, on its days: a plan for unknown days expects three rows and sorts thousands.
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

revoke execute on function private.campaign_returns(date, date, uuid) from public, anon;

grant execute on function private.campaign_returns(date, date, uuid) to authenticated, service_role;

-- A campaign's spend to date (its days up to today) against its budget's share of the planned days passed:
-- pacing = spend ÷ (budget × days passed ÷ planned days). Above 1 it spends ahead of its days; a campaign
-- without records spends its budget evenly by definition, so it never runs ahead. Null before it starts or
-- with no budget.
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

revoke execute on function private.campaign_pacing(uuid) from public, anon;

grant execute on function private.campaign_pacing(uuid) to authenticated, service_role;
