-- "When was this campaign active" was derived from its status history for every campaign of every
-- attribution question: one ordered walk of the history per campaign, a third of the cost of a day with
-- 1,000 campaigns. This keeps the answer, one row per stretch of activity, as the history is written:
-- derived data kept by triggers in the writing transaction, recomputed per campaign from its whole
-- history, so it always equals what the walk gives (test/campaigns-active-spans after every kind of
-- write; test/attribution-rules for the days attribution counts).
--
-- A stretch starts with a move to `active` and ends with the next move; its days are the UTC days on
-- which the campaign was active at some moment (a stretch of zero length counts for no day). Clipping to
-- the campaign's own dates happens when attribution reads it, because those dates may change.

create table if not exists private.campaign_active_spans (
  -- The history row of the move to `active` that opened the stretch.
  opened_by bigint primary key references public.campaign_status_history (id) on delete cascade,
  campaign_id uuid not null references public.campaigns (id) on delete cascade,
  first_day date not null,
  -- 'infinity' while the campaign is still active.
  last_day date not null,
  constraint campaign_active_spans_ordered check (first_day <= last_day)
);

-- Attribution asks about recent days: the stretches ending on or after the first day asked about.
create index if not exists campaign_active_spans_period_idx
  on private.campaign_active_spans (last_day, first_day) include (campaign_id);
create index if not exists campaign_active_spans_campaign_idx on private.campaign_active_spans (campaign_id);

alter table private.campaign_active_spans enable row level security;

-- As readable as the status history it is derived from.
drop policy if exists "signed-in callers see active spans" on private.campaign_active_spans;
create policy "signed-in callers see active spans" on private.campaign_active_spans
  for select to authenticated
  using (true);

revoke all on private.campaign_active_spans from public, anon, authenticated, service_role;
grant select on private.campaign_active_spans to authenticated, service_role;

-- Recomputes the stretches of these campaigns from their whole history.
create or replace function private.refresh_campaign_active_spans(campaign_ids uuid[])
returns void
language sql
volatile
set search_path = ''
as $$
  delete from private.campaign_active_spans s where s.campaign_id = any(campaign_ids);
  insert into private.campaign_active_spans (opened_by, campaign_id, first_day, last_day)
  select p.id, p.campaign_id, (p.changed_at at time zone 'UTC')::date,
         coalesce(((p.until at time zone 'UTC') - interval '1 microsecond')::date, 'infinity')
  from (
    select h.id, h.campaign_id, h.to_status, h.changed_at,
           lead(h.changed_at) over (partition by h.campaign_id order by h.changed_at, h.id) as until
    from unnest(campaign_ids) c(id)
    join public.campaign_status_history h on h.campaign_id = c.id
  ) p
  where p.to_status = 'active' and (p.until is null or p.until > p.changed_at);
$$;

-- Statement-level, over the transition tables. Security definer because history writers have no rights
-- on `private`; campaigns are taken in id order so two statements cannot deadlock on each other.
create or replace function private.campaign_history_maintain_spans()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    perform private.refresh_campaign_active_spans(array(select distinct n.campaign_id from new_rows n order by 1));
  elsif tg_op = 'UPDATE' then
    perform private.refresh_campaign_active_spans(array(
      select n.campaign_id from new_rows n union select o.campaign_id from old_rows o order by 1));
  elsif tg_op = 'DELETE' then
    perform private.refresh_campaign_active_spans(array(select distinct o.campaign_id from old_rows o order by 1));
  else
    truncate private.campaign_active_spans;
  end if;
  return null;
end
$$;

revoke execute on function private.refresh_campaign_active_spans(uuid[]) from public, anon, authenticated;
revoke execute on function private.campaign_history_maintain_spans() from public, anon, authenticated;

-- The triggers (always, see private.keep_derived_data) and the backfill in one transaction, writers
-- waiting for it.
begin;
lock table public.campaign_status_history in share row exclusive mode;
select private.keep_derived_data('public.campaign_status_history', 'campaign_history_spans',
                                 'private.campaign_history_maintain_spans');

truncate private.campaign_active_spans;
select private.refresh_campaign_active_spans(array(select distinct h.campaign_id from public.campaign_status_history h));
commit;
