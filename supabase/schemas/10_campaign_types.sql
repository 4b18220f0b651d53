-- The campaign-type catalogue (seed 01). The table's constraints are the rules, so they hold for
-- supabase-js table access as much as for the campaign-types function.

-- The most a priority may be, a campaign type's default and a campaign's own (from 0): `npm run types`
-- generates it into `Limits.priority` of database.types.ts, which zod and the console read. The CHECKs write it
-- out (test/database/campaign-types.test.ts holds them equal), as a call there is evaluated at every write.
create or replace function private.max_priority()
returns integer
language sql immutable parallel safe set search_path = '' as $$
  select 100
$$;

revoke execute on function private.max_priority() from public, anon, authenticated, service_role;

-- Declared in precedence order, highest first: ordering by the enum is ordering by precedence.
create type public.attribution_layer as enum ('site-wide', 'target-oriented', 'category-specific', 'general');

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

create table public.campaign_type_config (
  type_code text primary key
    constraint campaign_type_config_type_code_format
      check (type_code ~ '^[a-z][a-z0-9_]*$' and char_length(type_code) <= 50)
    -- The fixed segments of the campaign-types routes: PUT /campaign-types/groups is the groups route's
    -- 405, so a type with that code could never be updated or deactivated.
    constraint campaign_type_config_type_code_not_a_route check (type_code not in ('groups', 'health')),
  display_name_zh text not null
    constraint campaign_type_config_display_name_zh_length check (char_length(display_name_zh) between 1 and 100),
  display_name_en text
    constraint campaign_type_config_display_name_en_length check (char_length(display_name_en) <= 100),
  attribution_layer public.attribution_layer not null,
  default_weight numeric(3, 2) not null default 1.00
    constraint campaign_type_config_default_weight_range check (default_weight between 0 and 9.99),
  default_priority smallint not null default 50
    constraint campaign_type_config_default_priority_range check (default_priority between 0 and 100),
  color_class text
    constraint campaign_type_config_color_class_length check (char_length(color_class) <= 100),
  icon_name text
    constraint campaign_type_config_icon_name_length check (char_length(icon_name) <= 100),
  description text
    constraint campaign_type_config_description_length check (char_length(description) <= 1000),
  is_active boolean not null default true,
  created_at timestamptz not null default private.now(),
  updated_at timestamptz not null default private.now()
);

create index campaign_type_config_listing_idx
  on public.campaign_type_config (attribution_layer, default_priority desc, type_code);

create trigger campaign_type_config_touch_updated_at
  before update on public.campaign_type_config
  for each row execute function private.touch_updated_at();

alter table public.campaign_type_config enable row level security;

create policy "authenticated callers read the catalogue" on public.campaign_type_config
  for select to authenticated
  using (true);

create policy "admins add types" on public.campaign_type_config
  for insert to authenticated
  with check ((select private.is_admin()));

create policy "admins change types" on public.campaign_type_config
  for update to authenticated
  using ((select private.is_admin()))
  with check ((select private.is_admin()));

-- Types are deactivated, never deleted: campaigns keep referring to them.
revoke all on public.campaign_type_config from anon;

revoke delete on public.campaign_type_config from authenticated, service_role;

-- Each catalogue write is one function: permission, the change and its error in one transaction.
-- Security invoker, so the table's RLS applies on top of the explicit admin check.

create or replace function public.create_campaign_type(config jsonb)
returns public.campaign_type_config
language plpgsql set search_path = '' as $$
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

-- Only the keys present in `changes` are written; a JSON null clears an optional field.
create or replace function public.update_campaign_type(type_code text, changes jsonb)
returns public.campaign_type_config
language plpgsql set search_path = '' as $$
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
language plpgsql set search_path = '' as $$
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
