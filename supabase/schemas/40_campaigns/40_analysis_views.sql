-- The analysis reads (docs/attribution.md): the overlap calendar, revenue attribution and collaboration, each
-- a function over a date range and a view over every day up to today, all from
-- private.campaign_attribution_rows, so they agree with calculate_campaign_attributions, future days included.
-- Security invoker, so the caller's RLS applies. A missing end is 400 VALIDATION_ERROR, a start after the end
-- 422 INVALID_DATE_RANGE; the campaigns function bounds a call to 366 days.

create or replace function private.check_analysis_range(from_date date, to_date date)
returns void
language plpgsql stable set search_path = '' as $$
begin
  if from_date is null then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'from_date is required', 'from_date', null, 'required');
  end if;
  if to_date is null then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'to_date is required', 'to_date', null, 'required');
  end if;
  if from_date > to_date then
    perform private.campaign_field_error(422, 'INVALID_DATE_RANGE', 'from_date must not be later than to_date',
      'to_date', to_jsonb(to_date), format('on or after from_date (%s)', from_date));
  end if;
end
$$;

revoke execute on function private.check_analysis_range(date, date) from public, anon;

grant execute on function private.check_analysis_range(date, date) to authenticated, service_role;

-- One row per day of the range on which at least one campaign counts.
create or replace function public.campaign_calendar(from_date date, to_date date)
returns table (
  date date,
  active_campaign_count integer,
  active_campaigns jsonb,
  active_layers text[],
  total_revenue numeric,
  competition_intensity text
)
language plpgsql stable set search_path = '' as $$
#variable_conflict use_column
begin
  perform private.check_analysis_range(from_date, to_date);
  return query
  select r.attribution_date,
         count(*)::integer,
         jsonb_agg(jsonb_build_object(
             'campaign_id', r.campaign_id,
             'campaign_name', c.name,
             'campaign_type', c.campaign_type,
             'attribution_layer', r.attribution_layer,
             'normalized_weight', r.normalized_weight,
             'attribution_strength', r.attribution_strength,
             'attributed_amount', r.attributed_amount)
           order by r.answer_rank),
         (array_agg(distinct r.attribution_layer order by r.attribution_layer))::text[],
         max(r.day_amount)::numeric,
         case when count(*) >= 4 then 'high' when count(*) >= 2 then 'medium' else 'low' end
  from private.campaign_attribution_rows(from_date, to_date, null, true) r
  join public.campaigns c
    on c.id = r.campaign_id and c.deleted_at is null and c.end_date >= from_date and c.start_date <= to_date
  group by r.attribution_date;
end
$$;

revoke execute on function public.campaign_calendar(date, date) from public, anon;

grant execute on function public.campaign_calendar(date, date) to authenticated, service_role;

-- One row per campaign that counts on at least one day of the range; analysis_date is the store's today, the
-- day the figures are as of.
create or replace function public.revenue_attribution(from_date date, to_date date)
returns table (
  campaign_id uuid,
  campaign_name text,
  campaign_type text,
  attribution_layer public.attribution_layer,
  analysis_date date,
  active_days integer,
  first_active_date date,
  last_active_date date,
  total_attributed_revenue numeric,
  avg_attribution_weight numeric
)
language plpgsql stable set search_path = '' as $$
#variable_conflict use_column
begin
  perform private.check_analysis_range(from_date, to_date);
  return query
  select r.campaign_id,
         c.name,
         c.campaign_type,
         r.attribution_layer,
         private.store_today(),
         count(*)::integer,
         min(r.attribution_date),
         max(r.attribution_date),
         sum(r.attributed_amount),
         round(avg(r.normalized_weight), 4)
  from private.campaign_attribution_rows(from_date, to_date, null, true) r
  join public.campaigns c
    on c.id = r.campaign_id and c.deleted_at is null and c.end_date >= from_date and c.start_date <= to_date
  group by r.campaign_id, c.name, c.campaign_type, r.attribution_layer;
end
$$;

revoke execute on function public.revenue_attribution(date, date) from public, anon;

grant execute on function public.revenue_attribution(date, date) to authenticated, service_role;

-- One row per pair of campaigns that count on the same day of the range (campaign_1_id < campaign_2_id).
create or replace function public.campaign_collaboration(from_date date, to_date date)
returns table (
  campaign_1_id uuid,
  campaign_1_name text,
  campaign_1_layer public.attribution_layer,
  campaign_2_id uuid,
  campaign_2_name text,
  campaign_2_layer public.attribution_layer,
  overlap_days integer,
  first_overlap_date date,
  last_overlap_date date,
  same_layer boolean
)
language plpgsql stable set search_path = '' as $$
#variable_conflict use_column
begin
  perform private.check_analysis_range(from_date, to_date);
  return query
  with r as (
    select r.attribution_date, r.campaign_id, c.name as campaign_name, r.attribution_layer
    from private.campaign_attribution_rows(from_date, to_date, null, false) r
    join public.campaigns c
      on c.id = r.campaign_id and c.deleted_at is null and c.end_date >= from_date and c.start_date <= to_date
  )
  select a.campaign_id,
         a.campaign_name,
         a.attribution_layer,
         b.campaign_id,
         b.campaign_name,
         b.attribution_layer,
         count(*)::integer,
         min(a.attribution_date),
         max(a.attribution_date),
         a.attribution_layer = b.attribution_layer
  from r a
  join r b on b.attribution_date = a.attribution_date and a.campaign_id < b.campaign_id
  group by a.campaign_id, a.campaign_name, a.attribution_layer, b.campaign_id, b.campaign_name, b.attribution_layer;
end
$$;

revoke execute on function public.campaign_collaboration(date, date) from public, anon;

grant execute on function public.campaign_collaboration(date, date) to authenticated, service_role;

-- The seed's views: the functions over every day up to the store's today.
create or replace view public.campaign_overlap_calendar with (security_invoker = true) as
select c.date, c.active_campaign_count, c.active_campaigns, c.active_layers, c.total_revenue, c.competition_intensity
from public.campaign_calendar('-infinity', private.store_today()) c;

create or replace view public.revenue_attribution_analysis with (security_invoker = true) as
select a.campaign_id, a.campaign_name, a.campaign_type, a.attribution_layer, a.analysis_date, a.active_days,
       a.first_active_date, a.last_active_date, a.total_attributed_revenue, a.avg_attribution_weight
from public.revenue_attribution('-infinity', private.store_today()) a;

create or replace view public.campaign_collaboration_analysis with (security_invoker = true) as
select c.campaign_1_id, c.campaign_1_name, c.campaign_1_layer, c.campaign_2_id, c.campaign_2_name, c.campaign_2_layer,
       c.overlap_days, c.first_overlap_date, c.last_overlap_date, c.same_layer
from public.campaign_collaboration('-infinity', private.store_today()) c;

revoke all on public.campaign_overlap_calendar, public.revenue_attribution_analysis,
  public.campaign_collaboration_analysis from anon;

revoke insert, update, delete, truncate on public.campaign_overlap_calendar, public.revenue_attribution_analysis,
  public.campaign_collaboration_analysis from authenticated, service_role;

grant select on public.campaign_overlap_calendar, public.revenue_attribution_analysis,
  public.campaign_collaboration_analysis to authenticated, service_role;
