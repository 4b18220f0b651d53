-- The rules of docs/attribution.md for the days from from_date to to_date: one row per campaign and day it
-- counts on, with the day's campaign count and its share in units of 0.0001, on integers so it stays cheap.
-- The one definition of who counts and how a day is shared: it fills private.campaign_attribution_days, held
-- equal to it by a test after every kind of write. Each row also carries the campaign's tie-break rank, its
-- rank in the answer and its entry of the answer as JSON text.
create or replace function private.campaign_attribution_shares(from_date date, to_date date)
returns table (
  attribution_date date,
  campaign_id uuid,
  total_active_campaigns integer,
  units integer,
  precedence_rank integer,
  answer_rank integer,
  attribution_layer public.attribution_layer,
  raw_weight numeric,
  normalized_weight numeric(5, 4),
  attribution_strength text,
  entry text
)
-- Planned for each call: one day and a whole history want different plans.
language plpgsql stable set search_path = '' set plan_cache_mode = 'force_custom_plan' as $$
#variable_conflict use_column
begin
  return query
  with candidate as materialized (
    select c.id, c.name, c.campaign_type, c.attribution_layer, c.attribution_weight, c.priority_score,
           c.start_date, c.end_date,
           (c.attribution_weight * 100)::bigint * (l.multiplier * 100)::bigint * (50 + c.priority_score) as raw_millionths,
           row_number() over (order by c.attribution_layer, c.priority_score desc, c.attribution_weight desc, c.id)
             as precedence
    from public.campaigns c
    join public.attribution_layers l on l.attribution_layer = c.attribution_layer
    where c.deleted_at is null
      and c.end_date >= from_date
      and c.start_date <= to_date
  ),
  -- A campaign (named by its precedence, unique among the candidates) counts on a day when the day
  -- lies within its dates and within one of its stretches of activity (private.campaign_active_spans,
  -- kept from its status history).
  activity as materialized (
    select distinct s.first_day + g.i as activity_date, s.precedence, s.raw_millionths
    from (
      select c.precedence, c.raw_millionths,
             greatest(c.start_date, from_date, a.first_day) as first_day,
             least(c.end_date, to_date, a.last_day) as last_day
      from private.campaign_active_spans a
      join candidate c on c.id = a.campaign_id
      where a.last_day >= from_date and a.first_day <= to_date
    ) s
    cross join lateral generate_series(0, s.last_day - s.first_day) as g(i)
  ),
  -- What a campaign's rows share every day: its exact raw weight (at most 6 decimals) and its entry of
  -- the answer but for its weight and strength, written once per campaign up to the weight and after the
  -- strength. Ids, layers, type codes (^[a-z][a-z0-9_]*$) and numbers need no escaping; names and dates
  -- are written by to_json, as json_build_object did.
  campaign_part as materialized (
    select c.precedence, c.id, c.attribution_layer, r.raw_weight,
           '{"campaign_id":"' || c.id::text || '","campaign_name":' || to_json(c.name)::text
             || ',"campaign_type":"' || c.campaign_type || '","attribution_layer":"' || c.attribution_layer::text
             || '","raw_weight":' || r.raw_weight::text || ',"normalized_weight":' as entry_head,
           '","period_start":' || to_json(c.start_date)::text || ',"period_end":' || to_json(c.end_date)::text
             as entry_tail
    from candidate c
    cross join lateral (select trim_scale(c.raw_millionths / 1000000.0) as raw_weight) r
    where c.precedence in (select a.precedence from activity a)
  ),
  -- A share is numerator / divisor units of 0.0001; with every raw weight 0 the campaigns share equally.
  day_totals as materialized (
    select a.activity_date, count(*)::integer as n, sum(a.raw_millionths)::bigint as total
    from activity a
    group by a.activity_date
  ),
  shares as (
    select a.activity_date, a.precedence, d.n,
           case when d.total > 0 then a.raw_millionths * 10000 else 10000 end as numerator,
           case when d.total > 0 then d.total else d.n end as divisor
    from activity a
    join day_totals d using (activity_date)
  ),
  ranked_units as (
    select s.activity_date, s.precedence, s.n, s.numerator / s.divisor as whole_units,
           10000 - sum(s.numerator / s.divisor) over (partition by s.activity_date) as deficit,
           row_number() over (partition by s.activity_date order by s.numerator % s.divisor desc, s.precedence)
             as remainder_rank
    from shares s
  ),
  placed as (
    select r.activity_date, r.n, r.precedence, u.units,
           row_number() over (partition by r.activity_date order by r.precedence) as precedence_rank,
           row_number() over (partition by r.activity_date
                              order by u.units desc, c.attribution_layer, c.priority_score desc, c.id) as answer_rank
    from ranked_units r
    cross join lateral (select r.whole_units + case when r.remainder_rank <= r.deficit then 1 else 0 end as units) u
    join candidate c using (precedence)
  )
  select p.activity_date, c.id, p.n, p.units::integer, p.precedence_rank::integer, p.answer_rank::integer,
         c.attribution_layer, c.raw_weight, w.normalized_weight, w.strength,
         c.entry_head || w.normalized_weight::text || ',"attribution_strength":"' || w.strength || c.entry_tail
  from placed p
  join campaign_part c using (precedence)
  cross join lateral (
    select (p.units / 10000.0)::numeric(5, 4) as normalized_weight,
           case when p.units >= 5000 then 'dominant' when p.units >= 2500 then 'significant'
                when p.units >= 1000 then 'moderate' else 'minor' end as strength
  ) w;
end
$$;

revoke execute on function private.campaign_attribution_shares(date, date) from public, anon;

grant execute on function private.campaign_attribution_shares(date, date) to authenticated, service_role;

-- The attribution of every day a campaign counts on, past and future, as private.campaign_attribution_shares
-- gives it: derived data kept by triggers in the writing transaction. A day's revenue is not here (it changes
-- with every order; each answer splits it when read). A write recomputes whole days, since a day's shares
-- depend on all its campaigns, and only the days a campaign it changed counted on before or after.
create table private.campaign_attribution_days (
  attribution_date date not null,
  campaign_id uuid not null,
  total_active_campaigns integer not null,
  units integer not null,
  precedence_rank integer not null,
  answer_rank integer not null,
  attribution_layer public.attribution_layer not null,
  raw_weight numeric not null
    constraint campaign_attribution_days_raw_weight_finite check (raw_weight >= 0 and raw_weight < 'Infinity'),
  normalized_weight numeric(5, 4) not null
    constraint campaign_attribution_days_normalized_weight_finite check (normalized_weight < 'Infinity'),
  attribution_strength text not null,
  entry text not null,
  -- What splitting an amount reads, from the index alone.
  primary key (attribution_date, campaign_id) include (units, precedence_rank)
);

-- A campaign's days (its metrics, and which days a write to it touches).
create index campaign_attribution_days_campaign_idx
  on private.campaign_attribution_days (campaign_id, attribution_date);

alter table private.campaign_attribution_days enable row level security;

create policy "signed-in callers see attribution days" on private.campaign_attribution_days
  for select to authenticated
  using (true);

revoke all on private.campaign_attribution_days from public, anon, authenticated, service_role;

grant select on private.campaign_attribution_days to authenticated, service_role;

-- One row per month whose days a transaction recomputes, updated before it reads anything: concurrent
-- writers of the same days queue on it for the rest of their transactions, and a writer that queued then
-- reads what the first committed (in read committed; under repeatable read the second gets a serialization
-- failure, which the functions retry). Without it two writes to campaigns of one day would each
-- recompute the day without the other's change.
create table private.campaign_attribution_months (
  month date primary key,
  recomputed bigint not null default 1
);

alter table private.campaign_attribution_months enable row level security;

create policy "admins read attribution months" on private.campaign_attribution_months
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.campaign_attribution_months from public, anon, authenticated, service_role;

-- Campaigns whose days are recomputed once at the end of a batch of status moves
-- (public.set_campaign_statuses moves each campaign in its own statement), not after every move. A row
-- lives only within the transaction that adds it: the batch removes it when it recomputes, and if the
-- transaction commits with a row left, a deferred trigger recomputes then.
create table private.campaign_attribution_pending (
  campaign_id uuid primary key
);

alter table private.campaign_attribution_pending enable row level security;

create policy "admins read pending attribution" on private.campaign_attribution_pending
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.campaign_attribution_pending from public, anon, authenticated, service_role;

-- The days to recompute after a write to these campaigns (those not pending): the days each counted on
-- (the stored rows) and the days it counts on now (its dates, if it is not deleted, within its stretches
-- of activity). With membership_only, a write that cannot change a campaign's weight, name or dates (its
-- status history), only the days in one of the two and not both.
create or replace function private.campaign_days_to_recompute(campaign_ids uuid[], membership_only boolean)
returns datemultirange
language sql stable set search_path = '' as $$
  select coalesce(range_agg(case when membership_only then (x.stored - x.counted) + (x.counted - x.stored)
                                 else x.stored + x.counted end), '{}')
  from (
    select coalesce((select range_agg(daterange(d.attribution_date, d.attribution_date, '[]'))
                     from private.campaign_attribution_days d
                     where d.campaign_id = i.id), '{}') as stored,
           coalesce((select range_agg(daterange(a.first_day, a.last_day, '[]'))
                              * datemultirange(daterange(c.start_date, c.end_date, '[]'))
                     from public.campaigns c
                     join private.campaign_active_spans a on a.campaign_id = c.id
                     where c.id = i.id and c.deleted_at is null
                     group by c.start_date, c.end_date), '{}') as counted
    from unnest(campaign_ids) i(id)
    where not exists (select 1 from private.campaign_attribution_pending p where p.campaign_id = i.id)
  ) x
$$;

-- Recomputes these days whole. The months are locked first, in order, so a writer that waited reads
-- what the one before it committed; each stretch of days is then deleted and written again from
-- private.campaign_attribution_shares.
create or replace function private.recompute_campaign_attribution_days(days datemultirange)
returns void
language plpgsql set search_path = '' as $$
declare
  stretch daterange;
begin
  if isempty(days) then
    return;
  end if;
  insert into private.campaign_attribution_months as m (month)
  select distinct g::date
  from unnest(days) r
  cross join lateral generate_series(date_trunc('month', lower(r)::timestamp), (upper(r) - 1)::timestamp,
                                     interval '1 month') g
  order by 1
  on conflict (month) do update set recomputed = m.recomputed + 1;

  for stretch in select r from unnest(days) r loop
    delete from private.campaign_attribution_days d
    where d.attribution_date >= lower(stretch) and d.attribution_date < upper(stretch);
    insert into private.campaign_attribution_days (attribution_date, campaign_id, total_active_campaigns, units,
      precedence_rank, answer_rank, attribution_layer, raw_weight, normalized_weight, attribution_strength, entry)
    select s.attribution_date, s.campaign_id, s.total_active_campaigns, s.units, s.precedence_rank, s.answer_rank,
           s.attribution_layer, s.raw_weight, s.normalized_weight, s.attribution_strength, s.entry
    from private.campaign_attribution_shares(lower(stretch), upper(stretch) - 1) s
    order by s.attribution_date, s.campaign_id;
  end loop;
end
$$;

-- Statement-level, over the transition tables: the stretches of the campaigns whose history changed,
-- then the days on which one of them counted before or counts now, but not both (a move changes whether
-- a campaign counts on a day, never its weight). Security definer because history writers have no rights
-- on `private`; campaigns are taken in id order so two statements cannot deadlock on each other.
create or replace function private.campaign_history_maintain_spans()
returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  ids uuid[];
begin
  if tg_op = 'INSERT' then
    ids := array(select distinct n.campaign_id from new_rows n order by 1);
  elsif tg_op = 'UPDATE' then
    ids := array(select n.campaign_id from new_rows n union select o.campaign_id from old_rows o order by 1);
  elsif tg_op = 'DELETE' then
    ids := array(select distinct o.campaign_id from old_rows o order by 1);
  else
    truncate private.campaign_active_spans;
    truncate private.campaign_attribution_days;
    return null;
  end if;
  perform private.refresh_campaign_active_spans(ids);
  perform private.recompute_campaign_attribution_days(private.campaign_days_to_recompute(ids, true));
  return null;
end
$$;

revoke execute on function private.campaign_history_maintain_spans() from public, anon, authenticated;

-- Fired always, also with session_replication_role = replica (as the demo seed and a logical replica write):
-- derived data must follow every write.
create trigger campaign_history_spans_insert
  after insert on public.campaign_status_history
  referencing new table as new_rows
  for each statement execute function private.campaign_history_maintain_spans();

create trigger campaign_history_spans_update
  after update on public.campaign_status_history
  referencing old table as old_rows new table as new_rows
  for each statement execute function private.campaign_history_maintain_spans();

create trigger campaign_history_spans_delete
  after delete on public.campaign_status_history
  referencing old table as old_rows
  for each statement execute function private.campaign_history_maintain_spans();

create trigger campaign_history_spans_truncate
  after truncate on public.campaign_status_history
  for each statement execute function private.campaign_history_maintain_spans();

alter table public.campaign_status_history
  enable always trigger campaign_history_spans_insert,
  enable always trigger campaign_history_spans_update,
  enable always trigger campaign_history_spans_delete,
  enable always trigger campaign_history_spans_truncate;

-- Statement-level, over the transition tables: a change to what a campaign's entries say or where it
-- counts (name, weight, priority, dates, deletion; type and layer never change) recomputes the days it
-- counted on and counts on now. Status moves reach attribution through the history they write. A new
-- campaign has no history yet, so it counts on no day.
create or replace function private.campaigns_maintain_attribution()
returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  ids uuid[];
begin
  if tg_op = 'INSERT' then
    return null;
  elsif tg_op = 'UPDATE' then
    ids := array(
      select coalesce(n.id, o.id)
      from new_rows n
      full join old_rows o on o.id = n.id
      where (n.name, n.campaign_type, n.attribution_layer, n.attribution_weight, n.priority_score, n.start_date,
             n.end_date, n.deleted_at)
            is distinct from (o.name, o.campaign_type, o.attribution_layer, o.attribution_weight, o.priority_score,
                              o.start_date, o.end_date, o.deleted_at)
      order by 1);
  elsif tg_op = 'DELETE' then
    ids := array(select o.id from old_rows o order by 1);
  else
    truncate private.campaign_attribution_days;
    return null;
  end if;
  if cardinality(ids) > 0 then
    perform private.recompute_campaign_attribution_days(private.campaign_days_to_recompute(ids, false));
  end if;
  return null;
end
$$;

-- Fired always, as the history's triggers are.
create trigger campaigns_attribution_insert
  after insert on public.campaigns
  referencing new table as new_rows
  for each statement execute function private.campaigns_maintain_attribution();

create trigger campaigns_attribution_update
  after update on public.campaigns
  referencing old table as old_rows new table as new_rows
  for each statement execute function private.campaigns_maintain_attribution();

create trigger campaigns_attribution_delete
  after delete on public.campaigns
  referencing old table as old_rows
  for each statement execute function private.campaigns_maintain_attribution();

create trigger campaigns_attribution_truncate
  after truncate on public.campaigns
  for each statement execute function private.campaigns_maintain_attribution();

alter table public.campaigns
  enable always trigger campaigns_attribution_insert,
  enable always trigger campaigns_attribution_update,
  enable always trigger campaigns_attribution_delete,
  enable always trigger campaigns_attribution_truncate;

-- A batch of status moves (public.set_campaign_statuses) defers these campaigns' days, then recomputes
-- them once. Deferring only postpones the work: what is still pending at commit is recomputed then.
create or replace function private.defer_campaign_attribution(campaign_ids uuid[])
returns void
language sql security definer set search_path = '' as $$
  insert into private.campaign_attribution_pending (campaign_id)
  select distinct i.id from unnest(campaign_ids) i(id) where i.id is not null order by 1
  on conflict do nothing
$$;

create or replace function private.flush_campaign_attribution()
returns void
language plpgsql security definer set search_path = '' as $$
declare
  ids uuid[];
begin
  with flushed as (delete from private.campaign_attribution_pending p returning p.campaign_id)
  select array(select f.campaign_id from flushed f order by 1) into ids;
  if cardinality(ids) > 0 then
    perform private.recompute_campaign_attribution_days(private.campaign_days_to_recompute(ids, false));
  end if;
end
$$;

create or replace function private.campaign_attribution_pending_flush()
returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform private.flush_campaign_attribution();
  return null;
end
$$;

create constraint trigger campaign_attribution_pending_flush
  after insert on private.campaign_attribution_pending
  deferrable initially deferred
  for each row execute function private.campaign_attribution_pending_flush();

alter table private.campaign_attribution_pending enable always trigger campaign_attribution_pending_flush;

revoke execute on function private.campaign_days_to_recompute(uuid[], boolean) from public, anon, authenticated;

revoke execute on function private.recompute_campaign_attribution_days(datemultirange) from public, anon, authenticated;

revoke execute on function private.campaigns_maintain_attribution() from public, anon, authenticated;

revoke execute on function private.campaign_attribution_pending_flush() from public, anon, authenticated;

revoke execute on function private.defer_campaign_attribution(uuid[]) from public, anon;

revoke execute on function private.flush_campaign_attribution() from public, anon;

grant execute on function private.defer_campaign_attribution(uuid[]) to authenticated, service_role;

grant execute on function private.flush_campaign_attribution() to authenticated, service_role;
