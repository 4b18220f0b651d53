-- The campaign-type catalogue (seed 01). The table's constraints are the rules, so they hold for
-- supabase-js table access as much as for the campaign-types function.

do $$
begin
  if not exists (select 1 from pg_type where typname = 'attribution_layer' and typnamespace = 'public'::regnamespace) then
    -- Declared in precedence order, highest first: ordering by the enum is ordering by precedence.
    create type public.attribution_layer as enum ('site-wide', 'target-oriented', 'category-specific', 'general');
  end if;
end
$$;

create table if not exists public.campaign_type_config (
  type_code text primary key
    constraint campaign_type_config_type_code_format
      check (type_code ~ '^[a-z][a-z0-9_]*$' and char_length(type_code) <= 50),
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
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index if not exists campaign_type_config_listing_idx
  on public.campaign_type_config (attribution_layer, default_priority desc, type_code);

drop trigger if exists campaign_type_config_touch_updated_at on public.campaign_type_config;
create trigger campaign_type_config_touch_updated_at
  before update on public.campaign_type_config
  for each row execute function private.touch_updated_at();

alter table public.campaign_type_config enable row level security;

drop policy if exists "authenticated callers read the catalogue" on public.campaign_type_config;
create policy "authenticated callers read the catalogue" on public.campaign_type_config
  for select to authenticated
  using (true);

drop policy if exists "admins add types" on public.campaign_type_config;
create policy "admins add types" on public.campaign_type_config
  for insert to authenticated
  with check ((select private.is_admin()));

drop policy if exists "admins change types" on public.campaign_type_config;
create policy "admins change types" on public.campaign_type_config
  for update to authenticated
  using ((select private.is_admin()))
  with check ((select private.is_admin()));

-- Types are deactivated, never deleted: campaigns keep referring to them.
revoke delete, truncate on public.campaign_type_config from anon, authenticated;
revoke insert, update on public.campaign_type_config from anon;
