-- Campaign attribution (docs/attribution.md): its two inputs kept as derived data, the rows every
-- attribution answer is computed from, and the answers built from them.
--
-- A day's revenue (the total of its paid, shipped, delivered and completed orders) is kept per UTC day as
-- orders are written, in the writing transaction, by statement-level triggers, so an attribution question
-- never sums the orders of its days. It is derived data, not a cached answer: it always equals the sum
-- over the orders (the campaigns daily-revenue tests).
--
-- Only callers who see every order read it (administrators, and roles that bypass RLS); anyone else's
-- revenue is still summed from the orders their RLS shows them, so a customer never sees the store's.

create table private.order_daily_revenue (
  order_date date primary key,
  revenue numeric not null
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

-- Adds each day's change of revenue. Days are taken in date order, so two statements touching the same
-- days cannot deadlock. Concurrent order writes of one day queue on that day's row for the rest of their
-- transactions: the price of an exact total.
create or replace function private.apply_daily_revenue_changes(days date[], amounts numeric[])
returns void
language sql
volatile
set search_path = ''
as $$
  insert into private.order_daily_revenue as r (order_date, revenue)
  select c.order_date, sum(c.amount)
  from unnest(days, amounts) c(order_date, amount)
  group by c.order_date
  having sum(c.amount) <> 0
  order by c.order_date
  on conflict (order_date) do update set revenue = r.revenue + excluded.revenue
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

select private.keep_derived_data('public.campaign_status_history', 'campaign_history_spans',
                                 'private.campaign_history_maintain_spans');

-- Every attribution answer (the function, the three views, a campaign's metrics) comes from these rows,
-- one per campaign and day it counts on, by the rules of docs/attribution.md. What keeps them cheap:
--   * the campaigns of a date range are found through campaigns_attribution_period_idx, and their days
--     of activity come from their stored stretches (private.campaign_active_spans);
--   * the precedence order that breaks ties (layer, priority desc, weight desc, id) is one integer per
--     campaign, ranked once, so each day's two remainder rankings sort integers;
--   * each day's campaign count and weight total are grouped once per day, and the rows carried between
--     steps hold only integers: names and dates are joined back from the candidates at the end;
--   * the apportioning runs on integers, with the same results as exact numeric arithmetic;
--   * a day's revenue comes from private.order_daily_revenue for callers who see every order; anyone
--     else's is summed from the orders their RLS shows them.
create or replace function private.campaign_attribution_rows(
  from_date date, to_date date, order_amount numeric, revenue_as_amount boolean
)
returns table (
  attribution_date date,
  total_active_campaigns integer,
  campaign_id uuid,
  campaign_name text,
  campaign_type text,
  attribution_layer public.attribution_layer,
  attribution_weight numeric,
  priority_score smallint,
  raw_weight numeric,
  normalized_weight numeric(5, 4),
  attribution_strength text,
  period_start date,
  period_end date,
  day_amount numeric(14, 2),
  attributed_amount numeric(14, 2)
)
language plpgsql
stable
set search_path = ''
-- Planned for each call: one day and a whole history want different plans.
set plan_cache_mode = 'force_custom_plan'
as $$
#variable_conflict use_column
declare
  stored_revenue boolean := revenue_as_amount and private.sees_all_orders();
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
  amounts as materialized (
    select d.activity_date, d.amount, round(d.amount * 100)::bigint as cents
    from (select t.activity_date,
                 case when not revenue_as_amount then order_amount
                      when stored_revenue
                        then coalesce((select r.revenue from private.order_daily_revenue r
                                       where r.order_date = t.activity_date), 0)
                      else coalesce((select sum(o.total_amount) from public.orders o
                                     where o.order_date = t.activity_date
                                       and private.is_revenue_status(o.status)), 0)
                 end as amount
          from day_totals t) d
  ),
  cents as (
    select u.activity_date, u.precedence, u.n, u.units, m.amount, m.cents * u.units as cents_x10000,
           m.cents
    from (select r.*, r.whole_units + case when r.remainder_rank <= r.deficit then 1 else 0 end as units
          from ranked_units r) u
    join amounts m using (activity_date)
  ),
  ranked_cents as (
    select c.*,
           c.cents - sum(c.cents_x10000 / 10000) over (partition by c.activity_date) as cent_deficit,
           row_number() over (partition by c.activity_date order by c.cents_x10000 % 10000 desc, c.precedence)
             as cent_rank
    from cents c
  )
  select r.activity_date, r.n, c.id, c.name, c.campaign_type, c.attribution_layer, c.attribution_weight,
         c.priority_score,
         -- Exact: at most 6 decimals.
         trim_scale(c.raw_millionths / 1000000.0),
         (r.units / 10000.0)::numeric(5, 4),
         case when r.units >= 5000 then 'dominant' when r.units >= 2500 then 'significant'
              when r.units >= 1000 then 'moderate' else 'minor' end,
         c.start_date, c.end_date,
         r.amount,
         ((r.cents_x10000 / 10000 + case when r.cent_rank <= r.cent_deficit then 1 else 0 end) / 100.0)::numeric(14, 2)
  from ranked_cents r
  join candidate c using (precedence);
end
$$;

revoke execute on function private.campaign_attribution_rows(date, date, numeric, boolean) from public, anon;

grant execute on function private.campaign_attribution_rows(date, date, numeric, boolean) to authenticated, service_role;

-- A day with 1,000 campaigns answers about 330 KB of JSON, which costs less built once as json text
-- (about 8 ms) than as jsonb (more than computing the attributions). The campaigns function sends this
-- text as it is; calculate_campaign_attributions (the supabase.rpc door, whose contract is jsonb)
-- converts it.
create or replace function private.campaign_attributions_json(target_date date, order_amount numeric default null)
returns json
language plpgsql
stable
set search_path = ''
as $$
declare
  result json;
begin
  if target_date is null then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'target_date is required', 'target_date', null, 'required');
  end if;
  if order_amount < 0 or order_amount >= 1000000000000 or scale(order_amount) > 2 then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'Invalid order_amount', 'order_amount',
      to_jsonb(order_amount), 'a non-negative amount below 1000000000000 with at most 2 decimal places');
  end if;

  -- Every field of the answer has a value except the amounts, which are null without an order amount:
  -- stripping nulls leaves them out, as the contract asks.
  with r as (
    select * from private.campaign_attribution_rows(target_date, target_date, order_amount, false)
  )
  select json_strip_nulls(json_build_object(
           'attribution_date', target_date,
           'total_active_campaigns', (select count(*) from r),
           'active_layers', coalesce(
             (select json_agg(l.attribution_layer order by l.attribution_layer)
              from (select distinct r.attribution_layer from r) l), '[]'),
           'attributions', coalesce(
             (select json_agg(
                json_build_object(
                  'campaign_id', r.campaign_id,
                  'campaign_name', r.campaign_name,
                  'campaign_type', r.campaign_type,
                  'attribution_layer', r.attribution_layer,
                  'raw_weight', r.raw_weight,
                  'normalized_weight', r.normalized_weight,
                  'attribution_strength', r.attribution_strength,
                  'period_start', r.period_start,
                  'period_end', r.period_end,
                  'attributed_amount', r.attributed_amount)
                order by r.normalized_weight desc, r.attribution_layer, r.priority_score desc, r.campaign_id)
              from r), '[]'),
           'order_amount', order_amount))
    into result;
  return result;
end
$$;

revoke execute on function private.campaign_attributions_json(date, numeric) from public, anon;

grant execute on function private.campaign_attributions_json(date, numeric) to authenticated, service_role;

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
-- day's attribution depends only on that day, so computing the campaign's date range gives, for its
-- days, exactly the entries campaign_overlap_calendar shows. Days run up to today, as in the views.
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
  with r as (
    select r.*
    from public.campaigns c
    cross join lateral private.campaign_attribution_rows(
      c.start_date, least(c.end_date, (now() at time zone 'UTC')::date), null, true) r
    where c.id = target_campaign and c.deleted_at is null
  ),
  days as (
    select r.attribution_date, r.total_active_campaigns, r.normalized_weight, r.attributed_amount
    from r
    where r.campaign_id = target_campaign
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
         (select count(distinct r.campaign_id)
          from r join days d using (attribution_date)
          where r.campaign_id <> target_campaign),
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
