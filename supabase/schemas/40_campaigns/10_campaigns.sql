-- Campaigns (seed 03 area A, CONTRACT §3A): the table and its triggers are the rules, so they hold for
-- supabase-js as for the function. The status machine is a trigger recording every status in
-- campaign_status_history (attribution's "active on a date"); one active site-wide campaign a date is an
-- exclusion constraint (23P01), its writers taking one advisory lock first so they never wait in a cycle;
-- layer, weight and priority are copied from the type at creation, so catalogue changes never rewrite the past.

create extension if not exists btree_gist with schema extensions;

create type public.campaign_status as enum ('draft', 'active', 'paused', 'completed', 'cancelled');

create table public.campaigns (
  id uuid primary key default gen_random_uuid(),
  name text not null constraint campaigns_name_length check (char_length(name) between 1 and 200),
  description text constraint campaigns_description_length check (char_length(description) <= 2000),
  status public.campaign_status not null default 'draft',
  start_date date not null,
  end_date date not null,
  budget numeric(14, 2) not null default 0
    constraint campaigns_budget_not_negative check (budget >= 0 and budget < 'Infinity'),
  target_audience text constraint campaigns_target_audience_length check (char_length(target_audience) <= 500),
  campaign_type text not null references public.campaign_type_config (type_code) on delete restrict,
  -- Campaigns live in the three campaign layers; `general` is the catalogue's catch-all, not a campaign.
  attribution_layer public.attribution_layer not null
    constraint campaigns_attribution_layer_campaign_layers check (attribution_layer <> 'general'),
  -- Unconstrained numeric so an out-of-range or over-precise weight reaches the rules trigger and gets
  -- its own error instead of a numeric overflow or a silent rounding.
  attribution_weight numeric not null
    constraint campaigns_attribution_weight_range check (attribution_weight between 0 and 9.99 and scale(attribution_weight) <= 2),
  priority_score smallint not null constraint campaigns_priority_score_range check (priority_score between 0 and 100),
  created_by uuid,
  created_at timestamptz not null default private.now(),
  updated_at timestamptz not null default private.now(),
  -- Soft delete: the row stays for history, and disappears from every read and from attribution.
  deleted_at timestamptz,
  constraint campaigns_date_range check (start_date <= end_date),
  -- Attribution keeps a row for every day a campaign counts on, so its dates are calendar days.
  constraint campaigns_dates_finite check (isfinite(start_date) and isfinite(end_date)),
  constraint campaigns_one_site_wide_active_per_date
    exclude using gist (daterange(start_date, end_date, '[]') with &&)
    where (status = 'active' and attribution_layer = 'site-wide' and deleted_at is null)
);

create index campaigns_campaign_type_idx on public.campaigns (campaign_type);

create index campaigns_listing_idx on public.campaigns (created_at desc, id desc) where deleted_at is null;

create index campaigns_status_listing_idx
  on public.campaigns (status, created_at desc, id desc) where deleted_at is null;

create index campaigns_period_idx
  on public.campaigns using gist (daterange(start_date, end_date, '[]')) where deleted_at is null;

create index campaigns_name_trgm_idx
  on public.campaigns using gin (name extensions.gin_trgm_ops) where deleted_at is null;

create index campaigns_description_trgm_idx
  on public.campaigns using gin (description extensions.gin_trgm_ops) where deleted_at is null;

create table public.campaign_status_history (
  id bigint generated always as identity primary key,
  campaign_id uuid not null references public.campaigns (id) on delete restrict,
  -- Null for the row written when the campaign is created.
  from_status public.campaign_status,
  to_status public.campaign_status not null,
  changed_at timestamptz not null default private.now(),
  -- No foreign key to auth.users: the trail outlives a deleted user.
  changed_by uuid,
  changed_by_role text not null
);

-- Activity per date walks a campaign's history in order.
create index campaign_status_history_campaign_idx
  on public.campaign_status_history (campaign_id, changed_at, id);

-- The moves of CONTRACT §3A; completed and cancelled are final. Staying in the same status is not a
-- move (see the rules trigger).
create or replace function private.campaign_status_move_allowed(from_status public.campaign_status, to_status public.campaign_status)
returns boolean
language sql immutable set search_path = '' as $$
  select (from_status::text, to_status::text) in (
    ('draft', 'active'), ('draft', 'cancelled'),
    ('active', 'paused'), ('active', 'completed'), ('active', 'cancelled'),
    ('paused', 'active'), ('paused', 'completed'), ('paused', 'cancelled')
  )
$$;

-- The statuses a campaign may move to next, in the enum's order; empty once it is final. It takes the
-- table's row, so it is also a computed field: supabase-js may select `allowed_transitions` beside `*`,
-- and the API answers it with every campaign, so the console offers the moves this rule accepts.
create or replace function public.allowed_transitions(campaign public.campaigns)
returns public.campaign_status[]
language sql stable set search_path = '' as $$
  select coalesce(array_agg(s order by s), '{}')
  from unnest(enum_range(null::public.campaign_status)) s
  where private.campaign_status_move_allowed(campaign.status, s)
$$;

create or replace function private.campaign_field_error(status integer, code public.error_code, message text, field text, value jsonb, rule text)
returns void
language plpgsql set search_path = '' as $$
begin
  perform private.raise_api_error(status, code, message,
    jsonb_build_object('field', field, 'value', value, 'constraint', rule));
end
$$;

-- The campaign type a new campaign names: an active one, of a layer campaigns take (not general, the
-- catalogue's catch-all).
create or replace function private.new_campaign_type(campaign_type text)
returns public.campaign_type_config
language plpgsql stable set search_path = '' as $$
declare
  type_config public.campaign_type_config;
begin
  select * into type_config from public.campaign_type_config t where t.type_code = new_campaign_type.campaign_type;
  if not found or not type_config.is_active then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR',
      format('Invalid campaign_type: %s is not an active campaign type', campaign_type),
      'campaign_type', to_jsonb(campaign_type),
      'an active campaign type of the site-wide, target-oriented or category-specific layer');
  end if;
  if type_config.attribution_layer = 'general' then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR',
      format('Invalid campaign_type: %s is a general-layer type; general-layer types are the catalogue''s '
             'catch-all, not campaign types', campaign_type),
      'campaign_type', to_jsonb(campaign_type),
      'not a general-layer type (the catalogue''s catch-all): a type of the site-wide, target-oriented or '
      'category-specific layer');
  end if;
  return type_config;
end
$$;

-- A completed or cancelled campaign is history: attribution has counted it with its weight, priority and
-- dates, so those stay as they were (its name, description, budget and audience may still change).
create or replace function private.check_final_campaign(new_row jsonb, old_row jsonb, status text)
returns void
language plpgsql immutable set search_path = '' as $$
declare
  final_field text;
begin
  select f into final_field
  from unnest(array['attribution_weight', 'priority_score', 'start_date', 'end_date']) f
  where new_row -> f is distinct from old_row -> f
  limit 1;
  if final_field is not null then
    perform private.campaign_field_error(422, 'CAMPAIGN_FINAL',
      format('A %s campaign keeps its %s: attribution has already counted it', status, final_field),
      final_field, new_row -> final_field, 'fixed once the campaign is completed or cancelled');
  end if;
end
$$;

revoke execute on function private.new_campaign_type(text), private.check_final_campaign(jsonb, jsonb, text)
  from public, anon;

grant execute on function private.new_campaign_type(text), private.check_final_campaign(jsonb, jsonb, text)
  to authenticated, service_role;

-- Every rule a single row can break, raised with the area's codes whoever writes the row.
create or replace function private.campaigns_rules()
returns trigger
language plpgsql set search_path = '' as $$
declare
  type_config public.campaign_type_config;
begin
  if tg_op = 'INSERT' then
    if new.status <> 'draft' then
      perform private.campaign_field_error(422, 'INVALID_STATUS_TRANSITION', 'A campaign is created as draft',
        'status', to_jsonb(new.status), 'new campaigns start as draft');
    end if;
    type_config := private.new_campaign_type(new.campaign_type);
    new.attribution_layer := type_config.attribution_layer;
    new.attribution_weight := coalesce(new.attribution_weight, type_config.default_weight);
    new.priority_score := coalesce(new.priority_score, type_config.default_priority);
    new.created_by := auth.uid();
  else
    if new.campaign_type is distinct from old.campaign_type or new.attribution_layer is distinct from old.attribution_layer then
      perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'A campaign''s type and layer cannot change',
        'campaign_type', to_jsonb(new.campaign_type), 'fixed when the campaign is created');
    end if;
    if new.status <> old.status and not private.campaign_status_move_allowed(old.status, new.status) then
      perform private.campaign_field_error(422, 'INVALID_STATUS_TRANSITION',
        format('A campaign cannot move from %s to %s', old.status, new.status),
        'status', to_jsonb(new.status),
        coalesce(
          'allowed from ' || old.status || ': ' || nullif(array_to_string(public.allowed_transitions(old), ', '), ''),
          old.status || ' is final'));
    end if;
    if old.status in ('completed', 'cancelled') then
      perform private.check_final_campaign(to_jsonb(new), to_jsonb(old), old.status::text);
    end if;
  end if;

  if not isfinite(new.start_date) or not isfinite(new.end_date) then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'start_date and end_date are calendar days',
      case when isfinite(new.start_date) then 'end_date' else 'start_date' end,
      to_jsonb(case when isfinite(new.start_date) then new.end_date else new.start_date end), 'a calendar day, not infinity');
  end if;
  if new.start_date > new.end_date then
    perform private.campaign_field_error(422, 'INVALID_DATE_RANGE', 'start_date must not be later than end_date',
      'end_date', to_jsonb(new.end_date), format('on or after start_date (%s)', new.start_date));
  end if;
  if new.attribution_weight < 0 or new.attribution_weight > 9.99 then
    perform private.campaign_field_error(422, 'ATTRIBUTION_WEIGHT_EXCEEDED', 'attribution_weight must be between 0 and 9.99',
      'attribution_weight', to_jsonb(new.attribution_weight), '0.00-9.99');
  end if;
  if scale(new.attribution_weight) > 2 then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'attribution_weight has at most 2 decimal places',
      'attribution_weight', to_jsonb(new.attribution_weight), 'at most 2 decimal places');
  end if;

  -- A write that leaves a site-wide campaign active takes one lock first, so such writes run one at a time
  -- and the exclusion constraint never waits on another's uncommitted entry: two batches activating campaigns
  -- in opposite orders deadlocked on each other's entries. Other writes and reads do not take it.
  if tg_op = 'UPDATE' and new.status = 'active' and new.attribution_layer = 'site-wide' and new.deleted_at is null then
    perform pg_advisory_xact_lock(hashtext('public.campaigns: one site-wide campaign active per date'));
  end if;
  return new;
end
$$;

-- Security definer: no API role writes the history. Attribution walks it in (changed_at, id) order, which must
-- be the order the changes took effect: one at a time under the campaign's row lock, held while this runs, so
-- `old` is the previous committed row, the id is drawn after its change's, and changed_at is never earlier than
-- the last recorded change (with now() alone, a cancel begun before a concurrent activation was recorded before
-- it, leaving the campaign active forever). Moves in one transaction share its time.
create or replace function private.campaigns_record_status()
returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' or new.status <> old.status then
    insert into public.campaign_status_history (campaign_id, from_status, to_status, changed_at, changed_by, changed_by_role)
    values (new.id, case when tg_op = 'UPDATE' then old.status end, new.status,
            greatest(private.now(), (select max(h.changed_at) from public.campaign_status_history h
                               where h.campaign_id = new.id)),
            auth.uid(), coalesce(auth.role(), session_user));
  end if;
  return null;
end
$$;

revoke execute on function private.campaigns_record_status() from public, anon, authenticated, service_role;

create trigger campaigns_rules
  before insert or update on public.campaigns
  for each row execute function private.campaigns_rules();

create trigger campaigns_touch_updated_at
  before update on public.campaigns
  for each row execute function private.touch_updated_at();

create trigger campaigns_record_status
  after insert or update of status on public.campaigns
  for each row execute function private.campaigns_record_status();

alter table public.campaigns enable row level security;

alter table public.campaign_status_history enable row level security;

create policy "signed-in callers see campaigns, admins also deleted ones" on public.campaigns
  for select to authenticated
  using (deleted_at is null or (select private.is_admin()));

create policy "admins add campaigns" on public.campaigns
  for insert to authenticated
  with check ((select private.is_admin()));

create policy "admins change campaigns" on public.campaigns
  for update to authenticated
  using ((select private.is_admin()))
  with check ((select private.is_admin()));

create policy "signed-in callers see status history" on public.campaign_status_history
  for select to authenticated
  using (true);

-- Campaigns are soft-deleted, never removed; layer, creator and timestamps are the database's to set.
revoke all on public.campaigns, public.campaign_status_history from anon;

revoke insert, update, delete, truncate on public.campaigns from authenticated, service_role;

grant insert (id, name, description, start_date, end_date, budget, target_audience, campaign_type, attribution_weight,
  priority_score) on public.campaigns to authenticated, service_role;

grant update (name, description, status, start_date, end_date, budget, target_audience, attribution_weight,
  priority_score, deleted_at) on public.campaigns to authenticated, service_role;

revoke insert, update, delete, truncate on public.campaign_status_history from authenticated, service_role;

-- Its identity sequence is the database's alone: setval by a caller would break every later move.
revoke all on sequence public.campaign_status_history_id_seq from anon, authenticated, service_role;

-- "Which campaigns overlap these dates" must be answered by a btree: every caller is subject to RLS, and
-- a qual can reach an index under RLS only through a leakproof operator. The date comparisons are; the
-- range operators of the gist index campaigns_period_idx are not, so that index is never used here.
-- end_date leads because attribution asks about recent days: the scan covers the campaigns ending on
-- or after the first day, and start_date is checked within the index.
create index campaigns_attribution_period_idx
  on public.campaigns (end_date, start_date) where deleted_at is null;

-- Campaign search that can use the trigram indexes. ILIKE is not leakproof, so under the campaigns
-- policy PostgreSQL must evaluate it after the policy's own condition, row by row, and never through an
-- index: a search read every campaign. This function finds the matches through
-- the indexes as its owner, among the rows every signed-in caller may see (campaigns not deleted); the
-- caller's query then reads those ids under RLS as usual, so the policy still decides what is returned.
create or replace function private.matching_campaign_ids(pattern text)
returns setof uuid
language sql stable security definer set search_path = '' as $$
  select c.id
  from public.campaigns c
  where c.deleted_at is null
    and (c.name ilike pattern or c.description ilike pattern)
$$;

revoke execute on function private.matching_campaign_ids(text) from public, anon;

grant execute on function private.matching_campaign_ids(text) to authenticated, service_role;

-- The campaigns' figures at a glance (GET /campaigns/stats), as a view so a supabase-js caller reads the
-- same figures under the same RLS as the campaigns function.
create or replace view public.campaign_stats with (security_invoker = true) as
select count(*) as total_campaigns,
       count(*) filter (where status = 'active') as active_campaigns,
       count(*) filter (where status = 'draft') as draft_campaigns,
       count(*) filter (where status = 'completed') as completed_campaigns,
       count(*) filter (where status = 'paused') as paused_campaigns,
       count(*) filter (where status = 'cancelled') as cancelled_campaigns,
       coalesce(sum(budget), 0) as total_budget,
       coalesce(sum(budget) filter (where status = 'active'), 0) as active_budget
from public.campaigns
where deleted_at is null;

revoke all on public.campaign_stats from anon;

revoke insert, update, delete, truncate on public.campaign_stats from authenticated, service_role;

grant select on public.campaign_stats to authenticated, service_role;
