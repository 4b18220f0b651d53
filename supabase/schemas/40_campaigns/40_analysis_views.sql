-- The views cover every day up to today (UTC) on which at least one campaign counted; revenue is each
-- day's revenue apportioned by that day's normalized weights, to the cent.
create or replace view public.campaign_overlap_calendar with (security_invoker = true) as
select r.attribution_date as date,
       count(*)::integer as active_campaign_count,
       jsonb_agg(jsonb_build_object(
           'campaign_id', r.campaign_id,
           'campaign_name', r.campaign_name,
           'campaign_type', r.campaign_type,
           'attribution_layer', r.attribution_layer,
           'normalized_weight', r.normalized_weight,
           'attribution_strength', r.attribution_strength,
           'attributed_amount', r.attributed_amount)
         order by r.normalized_weight desc, r.attribution_layer, r.priority_score desc, r.campaign_id) as active_campaigns,
       (array_agg(distinct r.attribution_layer order by r.attribution_layer))::text[] as active_layers,
       max(r.day_amount) as total_revenue,
       case when count(*) >= 4 then 'high' when count(*) >= 2 then 'medium' else 'low' end as competition_intensity
from private.campaign_attribution_rows('-infinity', (now() at time zone 'UTC')::date, null, true) r
group by r.attribution_date;

create or replace view public.revenue_attribution_analysis with (security_invoker = true) as
select r.campaign_id,
       r.campaign_name,
       r.campaign_type,
       r.attribution_layer,
       (now() at time zone 'UTC')::date as analysis_date,
       count(*)::integer as active_days,
       min(r.attribution_date) as first_active_date,
       max(r.attribution_date) as last_active_date,
       sum(r.attributed_amount) as total_attributed_revenue,
       round(avg(r.normalized_weight), 4) as avg_attribution_weight
from private.campaign_attribution_rows('-infinity', (now() at time zone 'UTC')::date, null, true) r
group by r.campaign_id, r.campaign_name, r.campaign_type, r.attribution_layer;

create or replace view public.campaign_collaboration_analysis with (security_invoker = true) as
with r as (
  select attribution_date, campaign_id, campaign_name, attribution_layer
  from private.campaign_attribution_rows('-infinity', (now() at time zone 'UTC')::date, null, false)
)
select a.campaign_id as campaign_1_id,
       a.campaign_name as campaign_1_name,
       a.attribution_layer as campaign_1_layer,
       b.campaign_id as campaign_2_id,
       b.campaign_name as campaign_2_name,
       b.attribution_layer as campaign_2_layer,
       count(*)::integer as overlap_days,
       min(a.attribution_date) as first_overlap_date,
       max(a.attribution_date) as last_overlap_date,
       a.attribution_layer = b.attribution_layer as same_layer
from r a
join r b on b.attribution_date = a.attribution_date and a.campaign_id < b.campaign_id
group by a.campaign_id, a.campaign_name, a.attribution_layer, b.campaign_id, b.campaign_name, b.attribution_layer;

revoke all on public.campaign_overlap_calendar, public.revenue_attribution_analysis,
  public.campaign_collaboration_analysis from anon;

revoke insert, update, delete, truncate on public.campaign_overlap_calendar, public.revenue_attribution_analysis,
  public.campaign_collaboration_analysis from authenticated, service_role;

grant select on public.campaign_overlap_calendar, public.revenue_attribution_analysis,
  public.campaign_collaboration_analysis to authenticated, service_role;
