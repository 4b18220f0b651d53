-- A campaign type code may not be a fixed segment of the campaign-types routes (groups, health): such a
-- type could be created but never updated or deactivated, since PUT /campaign-types/groups is the groups
-- route. create_campaign_type answers 400 VALIDATION_ERROR on type_code; the CHECK holds for direct inserts.

alter table public.campaign_type_config
  add constraint campaign_type_config_type_code_not_a_route check (type_code not in ('groups', 'health'));

create or replace function public.create_campaign_type(config jsonb)
returns public.campaign_type_config
language plpgsql
set search_path = ''
as $$
declare
  created public.campaign_type_config;
  existing public.campaign_type_config;
begin
  if not private.is_admin() then
    perform private.raise_api_error(403, 'INSUFFICIENT_PERMISSION', 'Administrator permission is required to change campaign types');
  end if;
  -- The same 400 as the function's own field validation (campaign_type_config_type_code_not_a_route
  -- holds it for direct inserts).
  if config ->> 'type_code' in ('groups', 'health') then
    perform private.raise_api_error(400, 'VALIDATION_ERROR',
      'Invalid type_code: not a fixed route segment (groups, health)',
      jsonb_build_object('field', 'type_code', 'value', config -> 'type_code',
        'constraint', 'not a fixed route segment (groups, health)'));
  end if;

  insert into public.campaign_type_config as t (
    type_code, display_name_zh, display_name_en, attribution_layer, default_weight, default_priority,
    color_class, icon_name, description, is_active
  )
  values (
    config ->> 'type_code',
    config ->> 'display_name_zh',
    config ->> 'display_name_en',
    (config ->> 'attribution_layer')::public.attribution_layer,
    coalesce((config ->> 'default_weight')::numeric, 1.00),
    coalesce((config ->> 'default_priority')::smallint, 50),
    config ->> 'color_class',
    config ->> 'icon_name',
    config ->> 'description',
    coalesce((config ->> 'is_active')::boolean, true)
  )
  on conflict (type_code) do nothing
  returning t.* into created;

  if not found then
    select * into existing from public.campaign_type_config where type_code = config ->> 'type_code';
    perform private.raise_api_error(
      409, 'DUPLICATE_TYPE_CODE',
      format('Campaign type %s already exists', config ->> 'type_code'),
      jsonb_build_object(
        'type_code', config ->> 'type_code',
        'existing_config', jsonb_build_object(
          'display_name_zh', existing.display_name_zh,
          'attribution_layer', existing.attribution_layer
        )
      )
    );
  end if;
  return created;
end
$$;
