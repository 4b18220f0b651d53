-- A campaign's dates are calendar days, never infinity (docs/attribution.md, "Cost"): attribution keeps a
-- row for every day a campaign counts on. The rules trigger refuses infinity with 400 VALIDATION_ERROR on
-- the field, and a check constraint holds for writes that skip it (replica mode).

alter table public.campaigns
  add constraint campaigns_dates_finite check (isfinite(start_date) and isfinite(end_date));

-- Every rule a single row can break, raised with the area's codes whoever writes the row.
create or replace function private.campaigns_rules()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  type_config public.campaign_type_config;
  final_field text;
begin
  if tg_op = 'INSERT' then
    if new.status <> 'draft' then
      perform private.campaign_field_error(422, 'INVALID_STATUS_TRANSITION', 'A campaign is created as draft',
        'status', to_jsonb(new.status), 'new campaigns start as draft');
    end if;
    select * into type_config from public.campaign_type_config t where t.type_code = new.campaign_type;
    if not found or not type_config.is_active then
      perform private.campaign_field_error(400, 'VALIDATION_ERROR',
        format('Invalid campaign_type: %s is not an active campaign type', new.campaign_type),
        'campaign_type', to_jsonb(new.campaign_type),
        'an active campaign type of the site-wide, target-oriented or category-specific layer');
    end if;
    if type_config.attribution_layer = 'general' then
      perform private.campaign_field_error(400, 'VALIDATION_ERROR',
        format('Invalid campaign_type: %s is a general-layer type; general-layer types are the catalogue''s '
               'catch-all, not campaign types', new.campaign_type),
        'campaign_type', to_jsonb(new.campaign_type),
        'not a general-layer type (the catalogue''s catch-all): a type of the site-wide, target-oriented or '
        'category-specific layer');
    end if;
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
          'allowed from ' || old.status || ': ' || (
            select string_agg(s::text, ', ' order by s)
            from unnest(enum_range(null::public.campaign_status)) s
            where private.campaign_status_move_allowed(old.status, s)),
          old.status || ' is final'));
    end if;
    -- A completed or cancelled campaign is history: attribution has counted it with its weight, priority
    -- and dates, so those stay as they were (its name, description, budget and audience may still change).
    if old.status in ('completed', 'cancelled') then
      select f into final_field
      from unnest(array['attribution_weight', 'priority_score', 'start_date', 'end_date']) f
      where to_jsonb(new) -> f is distinct from to_jsonb(old) -> f
      limit 1;
      if final_field is not null then
        perform private.campaign_field_error(422, 'CAMPAIGN_FINAL',
          format('A %s campaign keeps its %s: attribution has already counted it', old.status, final_field),
          final_field, to_jsonb(new) -> final_field, 'fixed once the campaign is completed or cancelled');
      end if;
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

  -- Every write that leaves a site-wide campaign active (activating it, moving its dates, restoring it,
  -- any edit of it) takes one transaction-level lock first, so such writes run one at a time and the
  -- exclusion constraint never waits on another writer's uncommitted entry. Without it, two batches
  -- activating campaigns of two windows in opposite orders each waited on the other's entry: a deadlock
  -- (the row locks a batch takes in id order cannot cover those waits). Writes to other campaigns, and
  -- reads, are not affected.
  if tg_op = 'UPDATE' and new.status = 'active' and new.attribution_layer = 'site-wide' and new.deleted_at is null then
    perform pg_advisory_xact_lock(hashtext('public.campaigns: one site-wide campaign active per date'));
  end if;
  return new;
end
$$;
