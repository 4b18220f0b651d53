-- Each catalogue write is one function: permission, the change and its error in one transaction.
-- Security invoker, so the table's RLS applies on top of the explicit admin check.

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

-- Only the keys present in `changes` are written; a JSON null clears an optional field.
create or replace function public.update_campaign_type(type_code text, changes jsonb)
returns public.campaign_type_config
language plpgsql
set search_path = ''
as $$
declare
  updated public.campaign_type_config;
begin
  if not private.is_admin() then
    perform private.raise_api_error(403, 'INSUFFICIENT_PERMISSION', 'Administrator permission is required to change campaign types');
  end if;

  update public.campaign_type_config as t set
    display_name_zh = case when changes ? 'display_name_zh' then changes ->> 'display_name_zh' else t.display_name_zh end,
    display_name_en = case when changes ? 'display_name_en' then changes ->> 'display_name_en' else t.display_name_en end,
    attribution_layer = case when changes ? 'attribution_layer'
      then (changes ->> 'attribution_layer')::public.attribution_layer else t.attribution_layer end,
    default_weight = case when changes ? 'default_weight' then (changes ->> 'default_weight')::numeric else t.default_weight end,
    default_priority = case when changes ? 'default_priority'
      then (changes ->> 'default_priority')::smallint else t.default_priority end,
    color_class = case when changes ? 'color_class' then changes ->> 'color_class' else t.color_class end,
    icon_name = case when changes ? 'icon_name' then changes ->> 'icon_name' else t.icon_name end,
    description = case when changes ? 'description' then changes ->> 'description' else t.description end,
    is_active = case when changes ? 'is_active' then (changes ->> 'is_active')::boolean else t.is_active end
  where t.type_code = update_campaign_type.type_code
  returning t.* into updated;

  if not found then
    perform private.raise_api_error(404, 'TYPE_NOT_FOUND', format('Campaign type %s does not exist', type_code),
      jsonb_build_object('type_code', type_code));
  end if;
  return updated;
end
$$;

-- Soft delete: the record stays for the campaigns that use it. Deactivating an inactive type changes
-- nothing and succeeds.
create or replace function public.deactivate_campaign_type(type_code text)
returns public.campaign_type_config
language plpgsql
set search_path = ''
as $$
declare
  result public.campaign_type_config;
begin
  if not private.is_admin() then
    perform private.raise_api_error(403, 'INSUFFICIENT_PERMISSION', 'Administrator permission is required to change campaign types');
  end if;

  update public.campaign_type_config as t set is_active = false
  where t.type_code = deactivate_campaign_type.type_code and t.is_active
  returning t.* into result;

  if not found then
    select * into result from public.campaign_type_config as t where t.type_code = deactivate_campaign_type.type_code;
    if not found then
      perform private.raise_api_error(404, 'TYPE_NOT_FOUND', format('Campaign type %s does not exist', type_code),
        jsonb_build_object('type_code', type_code));
    end if;
  end if;
  return result;
end
$$;

revoke execute on function public.create_campaign_type(jsonb) from public, anon;
revoke execute on function public.update_campaign_type(text, jsonb) from public, anon;
revoke execute on function public.deactivate_campaign_type(text) from public, anon;
grant execute on function public.create_campaign_type(jsonb) to authenticated, service_role;
grant execute on function public.update_campaign_type(text, jsonb) to authenticated, service_role;
grant execute on function public.deactivate_campaign_type(text) to authenticated, service_role;
