-- Campaign attribution (docs/attribution.md): its two inputs kept as derived data, the rows every
-- attribution answer is computed from, and the answers built from them.
--
-- A day's revenue (the total of its paid, shipped, delivered and completed orders) is kept per UTC day as
-- orders are written, in the writing transaction, by statement-level triggers, so an attribution question
-- never sums the orders of its days. It is derived data, not a cached answer: the sum of a day's rows
-- always equals the sum over its orders (the campaigns daily-revenue tests). A day has one row per writer
-- slot that has written it (`private.order_writer_slot`), so order writers never queue on a shared row.
--
-- Only callers who see every order read it (administrators, and roles that bypass RLS); anyone else's
-- revenue is still summed from the orders their RLS shows them, so a customer never sees the store's.

create table private.order_daily_revenue (
  order_date date not null,
  revenue numeric not null,
  slot smallint not null,
  primary key (order_date, slot)
);

alter table private.order_daily_revenue enable row level security;

create policy "admins read daily revenue" on private.order_daily_revenue
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.order_daily_revenue from public, anon, authenticated, service_role;

grant select on private.order_daily_revenue to authenticated, service_role;

create or replace function private.is_revenue_status(status text)
returns boolean
language sql
immutable
parallel safe
set search_path = ''
as $$
  select status in ('paid', 'shipped', 'delivered', 'completed')
$$;

revoke execute on function private.is_revenue_status(text) from public, anon;

grant execute on function private.is_revenue_status(text) to authenticated, service_role;

-- Adds each day's change of revenue to the rows of this transaction's writer slot, which no other open
-- transaction writes.
create or replace function private.apply_daily_revenue_changes(days date[], amounts numeric[])
returns void
language plpgsql
volatile
set search_path = ''
as $$
begin
    insert into private.order_daily_revenue as r (order_date, slot, revenue)
    select c.order_date, w.slot, sum(c.amount)
    from unnest(days, amounts) c(order_date, amount)
    cross join (select private.order_writer_slot() as slot) w
    group by c.order_date, w.slot
    having sum(c.amount) <> 0
    order by c.order_date
    on conflict (order_date, slot) do update set revenue = r.revenue + excluded.revenue;
end
$$;

-- Statement-level, over the transition tables: a bulk write is one upsert per day touched. Security
-- definer because order writers (administrators) have no rights on `private`.
create or replace function private.orders_maintain_daily_revenue()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    perform private.apply_daily_revenue_changes(array_agg(n.order_date), array_agg(n.total_amount))
    from new_rows n
    where private.is_revenue_status(n.status);
  elsif tg_op = 'UPDATE' then
    perform private.apply_daily_revenue_changes(array_agg(c.order_date), array_agg(c.amount))
    from (
      select n.order_date, n.total_amount as amount from new_rows n where private.is_revenue_status(n.status)
      union all
      select o.order_date, -o.total_amount from old_rows o where private.is_revenue_status(o.status)
    ) c;
  elsif tg_op = 'DELETE' then
    perform private.apply_daily_revenue_changes(array_agg(o.order_date), array_agg(-o.total_amount))
    from old_rows o
    where private.is_revenue_status(o.status);
  else
    truncate private.order_daily_revenue;
  end if;
  return null;
end
$$;

revoke execute on function private.apply_daily_revenue_changes(date[], numeric[]) from public, anon, authenticated;

revoke execute on function private.orders_maintain_daily_revenue() from public, anon, authenticated;

select private.keep_derived_data('public.orders', 'orders_daily_revenue', 'private.orders_maintain_daily_revenue');

-- "When was this campaign active" is kept as one row per stretch of activity as the status history is
-- written: derived data kept by triggers in the writing transaction, recomputed per campaign from its
-- whole history, so it always equals an ordered walk of that history (the campaigns active-spans tests
-- after every kind of write; the attribution-rules tests for the days attribution counts).
--
-- A stretch starts with a move to `active` and ends with the next move; its days are the UTC days on
-- which the campaign was active at some moment (a stretch of zero length counts for no day). Clipping to
-- the campaign's own dates happens when attribution reads it, because those dates may change.

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

revoke execute on function private.refresh_campaign_active_spans(uuid[]) from public, anon, authenticated;

-- The rules of docs/attribution.md for the days from from_date to to_date, both included: one row per
-- campaign and day it counts on, with the day's campaign count and the campaign's share of the day in
-- units of 0.0001. This is the one definition of which campaigns count and how they share a day; it fills
-- private.campaign_attribution_days (below), which every answer reads, and a test holds that table equal
-- to this function over all days after every kind of write. What keeps it cheap:
--   * the campaigns of a date range are found through campaigns_attribution_period_idx, and their days
--     of activity come from their stored stretches (private.campaign_active_spans);
--   * the precedence order that breaks ties (layer, priority desc, weight desc, id) is one integer per
--     campaign, ranked once, so each day's remainder ranking sorts integers;
--   * each day's campaign count and weight total are grouped once per day;
--   * the apportioning runs on integers, with the same results as exact numeric arithmetic.
-- Besides the share it gives, per day, each campaign's place in the tie-break order (precedence_rank,
-- which the split of an amount uses), its place in the answer (answer_rank: normalized weight desc, layer,
-- priority desc, id) and its entry of the answer as JSON text without the amount and the closing brace
-- (what json_build_object and json_strip_nulls wrote for it, to the byte).
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
language plpgsql
stable
set search_path = ''
-- Planned for each call: one day and a whole history want different plans.
set plan_cache_mode = 'force_custom_plan'
as $$
#variable_conflict use_column
begin
  return query
  with candidate as materialized (
    select c.id, c.name, c.campaign_type, c.attribution_layer, c.attribution_weight, c.priority_score,
           c.start_date, c.end_date,
           (c.attribution_weight * 100)::bigint
             * case c.attribution_layer when 'site-wide' then 150 when 'target-oriented' then 125 else 100 end
             * (50 + c.priority_score) as raw_millionths,
           row_number() over (order by c.attribution_layer, c.priority_score desc, c.attribution_weight desc, c.id)
             as precedence
    from public.campaigns c
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

-- The attribution of every day on which a campaign counts, past and future (a campaign active now counts
-- up to its end date), as private.campaign_attribution_shares gives it: derived data kept by triggers on
-- the campaigns and their status history in the writing transaction, not a cached answer. Only the day's
-- revenue is not here: it changes with every order, and each answer splits it (or an order amount) when
-- it is read. A write recomputes whole days (a day's shares depend on every campaign of the day), and only
-- the days on which a campaign it changed counted before or counts after.
create table private.campaign_attribution_days (
  attribution_date date not null,
  campaign_id uuid not null,
  total_active_campaigns integer not null,
  units integer not null,
  precedence_rank integer not null,
  answer_rank integer not null,
  attribution_layer public.attribution_layer not null,
  raw_weight numeric not null,
  normalized_weight numeric(5, 4) not null,
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
language sql
stable
set search_path = ''
as $$
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
language plpgsql
volatile
set search_path = ''
as $$
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
language plpgsql
security definer
set search_path = ''
as $$
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

select private.keep_derived_data('public.campaign_status_history', 'campaign_history_spans',
                                 'private.campaign_history_maintain_spans');

-- Statement-level, over the transition tables: a change to what a campaign's entries say or where it
-- counts (name, weight, priority, dates, deletion; type and layer never change) recomputes the days it
-- counted on and counts on now. Status moves reach attribution through the history they write. A new
-- campaign has no history yet, so it counts on no day.
create or replace function private.campaigns_maintain_attribution()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
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

select private.keep_derived_data('public.campaigns', 'campaigns_attribution', 'private.campaigns_maintain_attribution');

-- A batch of status moves (public.set_campaign_statuses) defers these campaigns' days, then recomputes
-- them once. Deferring only postpones the work: what is still pending at commit is recomputed then.
create or replace function private.defer_campaign_attribution(campaign_ids uuid[])
returns void
language sql
volatile
security definer
set search_path = ''
as $$
  insert into private.campaign_attribution_pending (campaign_id)
  select distinct i.id from unnest(campaign_ids) i(id) where i.id is not null order by 1
  on conflict do nothing
$$;

create or replace function private.flush_campaign_attribution()
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
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
language plpgsql
security definer
set search_path = ''
as $$
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

-- Every attribution answer (the function, the three views, a campaign's metrics) comes from these rows:
-- the stored shares of each day of the range and, when an amount is asked for, the day's amount split
-- by the same largest-remainder rule in cents. A day's amount is the order amount given, or its revenue:
-- from private.order_daily_revenue for callers who see every order, summed from the orders their RLS
-- shows them for anyone else. With recompute, the shares come from private.campaign_attribution_shares
-- instead of the stored table: the computation the tests compare every answer with.
--
-- The split: each campaign gets the whole cents of its share, and the day's missing cents go one each to
-- the campaigns that rank first by one integer key, the remainder (largest first) then the tie-break
-- order; a campaign gets one when fewer campaigns of its day rank before it than there are cents
-- missing. For every campaign of the days asked the ranks come from sorting each day by the key; with
-- of_campaign (a campaign's metrics: only its rows, on the days it counts on) by counting, for each of
-- its days, the day's campaigns whose key is larger, which reads the day's integers from the primary key
-- and sorts nothing.
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
language plpgsql
stable
set search_path = ''
-- Planned for each call: the branches not taken are left out of the plan, and one day and a whole
-- history want different plans.
set plan_cache_mode = 'force_custom_plan'
as $$
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
  amounts as materialized (
    select t.attribution_date, t.amount, round(t.amount * 100)::bigint as cents
    from (select w.attribution_date,
                 case when not revenue_as_amount then order_amount
                      when stored_revenue
                        then coalesce((select sum(r.revenue) from private.order_daily_revenue r
                                       where r.order_date = w.attribution_date), 0)
                      else coalesce((select sum(o.total_amount) from public.orders o
                                     where o.order_date = w.attribution_date
                                       and private.is_revenue_status(o.status)), 0)
                 end as amount
          from (select distinct w.attribution_date from wanted w) w) t
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

-- A day's answer as JSON text, assembled from the entries stored with the day's shares: for 1,000
-- campaigns, about 330 KB that building object by object cost more than computing the shares (and text,
-- not json, so that it is not parsed once more to be checked). Each entry gets its amount when there is
-- an order amount; `max_entries` keeps the first ones in the answer's order (the counts and layers still
-- describe the whole day). The campaigns function sends this text as it is;
-- calculate_campaign_attributions (the supabase.rpc door, whose contract is jsonb) converts it.
create or replace function private.campaign_attributions_json(
  target_date date, order_amount numeric default null, max_entries integer default null
)
returns text
language plpgsql
stable
set search_path = ''
as $$
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

  -- The amounts are null without an order amount: then neither the entries nor the answer carry one.
  with r as (
    select r.campaign_id, r.attribution_layer, r.answer_rank, r.attributed_amount
    from private.campaign_attribution_rows(target_date, target_date, order_amount, false) r
  )
  select ('{"attribution_date":' || to_json(target_date)::text
          || ',"total_active_campaigns":' || (select count(*) from r)
          || ',"active_layers":' || coalesce((select array_to_json(array_agg(distinct r.attribution_layer)) from r)::text, '[]')
          || ',"attributions":[' || coalesce(
               (select string_agg(d.entry || coalesce(',"attributed_amount":' || r.attributed_amount, '') || '}', ','
                                  order by r.answer_rank)
                from r
                join private.campaign_attribution_days d
                  on d.attribution_date = target_date and d.campaign_id = r.campaign_id
                where max_entries is null or r.answer_rank <= max_entries), '')
          || ']' || coalesce(',"order_amount":' || to_json(order_amount)::text, '') || '}')
    into result;
  return result;
end
$$;

revoke execute on function private.campaign_attributions_json(date, numeric, integer) from public, anon;

grant execute on function private.campaign_attributions_json(date, numeric, integer) to authenticated, service_role;

create or replace function public.calculate_campaign_attributions(target_date date, order_amount numeric default null)
returns jsonb
language sql
stable
set search_path = ''
as $$
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
language sql
stable
set search_path = ''
as $$
  with days as materialized (
    select r.attribution_date, r.total_active_campaigns, r.normalized_weight, r.attributed_amount
    from public.campaigns c
    cross join lateral private.campaign_attribution_rows(
      c.start_date, least(c.end_date, (now() at time zone 'UTC')::date), null, true, c.id) r
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
