-- Each insight's actions say where in the back office they are carried out (`action_targets`, beside
-- `actions`): the console links each to its screen.

-- Where an insight's actions are carried out in the back office, by rule (`n` of health_insight_rules) and
-- action, in the order of the rule's actions: null where the action has no screen (traffic, carriers,
-- tickets, the system). The console turns each into a link.
create type public.insight_action_target as enum (
  'orders_awaiting_shipment', 'orders_shipped', 'orders_cancelled', 'products_out_of_stock', 'products_low_stock',
  'products', 'new_campaign'
);

create or replace function private.health_action_targets(rule integer)
returns public.insight_action_target[]
language sql immutable set search_path = '' as $$
  select (case rule
    when 1 then array[null, 'new_campaign', 'products_out_of_stock']
    when 2 then array[null, 'products_low_stock']
    when 3 then array['orders_awaiting_shipment', 'orders_awaiting_shipment']
    when 4 then array['orders_shipped', null]
    when 5 then array['orders_cancelled', null]
    when 9 then array['new_campaign', null]
    when 10 then array['products_out_of_stock', 'products_low_stock']
    when 11 then array['new_campaign', 'products']
    when 13 then array[null, 'new_campaign']
    else array[]::text[]
  end)::public.insight_action_target[]
$$;

revoke execute on function private.health_action_targets(integer) from public, anon, authenticated;

grant execute on function private.health_action_targets(integer) to service_role;

-- The five most important insights that apply, in the report's language, most important first.
create or replace function private.health_insights(figures jsonb)
returns jsonb
language sql stable set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'title', case when english then title_en else title end,
           'description', case when english then description_en else description end,
           'type', type, 'impact', impact, 'confidence', confidence, 'category', category,
           'actions', to_jsonb(case when english then actions_en else actions end),
           'action_targets', to_jsonb(private.health_action_targets(n)))
         order by rank desc, confidence desc, n), '[]'::jsonb)
  from (
    select r.*, coalesce(private.health_confidence(r.observations), 1.00) as confidence,
           case r.impact when 'high' then 3 when 'medium' then 2 else 1 end as rank,
           (figures ->> 'language' = 'en') is true as english
    from private.health_insight_rules(figures) r
    where r.applies
    order by rank desc, confidence desc, n
    limit 5
  ) ranked
$$;

revoke execute on function private.health_insights(jsonb) from public, anon, authenticated;

grant execute on function private.health_insights(jsonb) to service_role;
