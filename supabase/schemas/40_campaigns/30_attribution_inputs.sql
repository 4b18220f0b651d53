-- Attribution's two inputs (docs/attribution.md), kept as derived data: each store day's revenue, kept by the
-- fold (60_order_changes_fold.sql) so a question never sums its days' orders, and each campaign's stretches of
-- activity. A reader adds the changes not yet folded (private.order_daily_revenue_now), so it always equals the
-- day's orders. Only callers who see every order read it; anyone else's revenue is summed from the orders their
-- RLS shows them. The rules and the days they fill are in 32_attribution_days.sql, the answers in 34_.

create table private.order_daily_revenue (
  order_date date primary key,
  revenue numeric not null
    constraint order_daily_revenue_revenue_finite check (revenue > '-Infinity' and revenue < 'Infinity')
);

alter table private.order_daily_revenue enable row level security;

create policy "admins read daily revenue" on private.order_daily_revenue
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.order_daily_revenue from public, anon, authenticated, service_role;

grant select on private.order_daily_revenue to authenticated, service_role;

-- Each day's revenue as it is now: the kept days plus the changes not yet folded, read in one snapshot. Security invoker: the same administrators-only policies apply.
create or replace view private.order_daily_revenue_now with (security_invoker = true) as
select r.order_date, sum(r.revenue) as revenue
from (
  select d.order_date, d.revenue from private.order_daily_revenue d
  union all
  select c.order_date, c.sign * c.total_amount from private.order_changes c where private.counts_as_revenue(c.counted_until)
) r
group by r.order_date;

revoke all on private.order_daily_revenue_now from public, anon, authenticated, service_role;

grant select on private.order_daily_revenue_now to authenticated, service_role;

-- "When was this campaign active", kept as one row per stretch of activity by triggers in the writing
-- transaction, recomputed per campaign from its whole history, so it always equals an ordered walk of it. A
-- stretch starts with a move to `active` and ends with the next move; its days are the store days it was
-- active at some moment. Clipped to the campaign's own dates when attribution reads it: those may change.

create table private.campaign_active_spans (
  -- The history row of the move to `active` that opened the stretch.
  opened_by bigint primary key references public.campaign_status_history (id) on delete cascade,
  campaign_id uuid not null references public.campaigns (id) on delete cascade,
  first_day date not null,
  -- 'infinity' while the campaign is still active.
  last_day date not null,
  constraint campaign_active_spans_ordered check (first_day <= last_day)
);

-- Attribution asks about recent days: the stretches ending on or after the first day asked about.
create index campaign_active_spans_period_idx
  on private.campaign_active_spans (last_day, first_day) include (campaign_id);

create index campaign_active_spans_campaign_idx on private.campaign_active_spans (campaign_id);

alter table private.campaign_active_spans enable row level security;

create policy "signed-in callers see active spans" on private.campaign_active_spans
  for select to authenticated
  using (true);

revoke all on private.campaign_active_spans from public, anon, authenticated, service_role;

grant select on private.campaign_active_spans to authenticated, service_role;

-- Recomputes the stretches of these campaigns from their whole history.
create or replace function private.refresh_campaign_active_spans(campaign_ids uuid[])
returns void
language sql set search_path = '' as $$
  delete from private.campaign_active_spans s where s.campaign_id = any(campaign_ids);
  insert into private.campaign_active_spans (opened_by, campaign_id, first_day, last_day)
  select p.id, p.campaign_id, private.store_day(p.changed_at),
         coalesce(private.store_day(p.until - interval '1 microsecond'), 'infinity')
  from (
    select h.id, h.campaign_id, h.to_status, h.changed_at,
           lead(h.changed_at) over (partition by h.campaign_id order by h.changed_at, h.id) as until
    from unnest(campaign_ids) c(id)
    join public.campaign_status_history h on h.campaign_id = c.id
  ) p
  where p.to_status = 'active' and (p.until is null or p.until > p.changed_at);
$$;

revoke execute on function private.refresh_campaign_active_spans(uuid[]) from public, anon, authenticated;
