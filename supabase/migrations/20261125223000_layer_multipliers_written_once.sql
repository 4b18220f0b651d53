-- The layers' multipliers as a view, read by the attribution rules and served with the catalogue's groups.
-- What a layer weighs in attribution (docs/attribution.md): a campaign's raw weight is its weight times
-- its layer's multiplier times (50 + priority) / 100. private.campaign_attribution_shares reads it, and the
-- catalogue's groups serve it (GET /campaign-types/groups), so what the console says is what is applied.
create or replace view public.attribution_layers with (security_invoker = true) as
select
  l.layer as attribution_layer,
  case l.layer when 'site-wide' then 1.50 when 'target-oriented' then 1.25 else 1.00 end::numeric(3, 2) as multiplier
from unnest(enum_range(null::public.attribution_layer)) as l (layer);

revoke all on public.attribution_layers from anon;

revoke insert, update, delete, truncate on public.attribution_layers from authenticated, service_role;

grant select on public.attribution_layers to authenticated, service_role;

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

