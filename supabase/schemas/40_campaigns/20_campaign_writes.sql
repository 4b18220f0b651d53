-- Each campaign write is one function, so one transaction, whether called by the campaigns function or
-- by `supabase.rpc`. Security invoker: the table's RLS applies on top of the explicit admin check, and
-- the rules trigger raises the field errors. What only a function can do lives here: turning an
-- exclusion violation (23P01) into CAMPAIGN_OVERLAP_CONFLICT, and a batch that changes all or nothing.

create or replace function private.require_campaign_admin()
returns void
language plpgsql stable set search_path = '' as $$
begin
  if not private.is_admin() then
    perform private.raise_api_error(403, 'FORBIDDEN', 'Administrator permission is required to change campaigns',
      jsonb_build_object('field', null, 'value', null, 'constraint', 'administrator'));
  end if;
end
$$;

create or replace function private.campaign_not_found(campaign_id uuid)
returns void
language plpgsql set search_path = '' as $$
begin
  perform private.raise_api_error(404, 'CAMPAIGN_NOT_FOUND', format('Campaign %s does not exist', campaign_id),
    jsonb_build_object('field', 'id', 'value', campaign_id, 'constraint', 'an existing campaign'));
end
$$;

-- The site-wide campaign already active over the dates ({id, name, start_date, end_date}), or null; by the
-- time 23P01 is raised the winner of a concurrent race has committed, so it is visible here. A refusal
-- carries it in its details (`conflicts_with`), so a client names it in its own language.
create or replace function private.campaign_overlapping(campaign_id uuid, start_date date, end_date date)
returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_build_object('id', c.id, 'name', c.name, 'start_date', c.start_date, 'end_date', c.end_date)
  from public.campaigns c
  where c.id <> campaign_overlapping.campaign_id and c.status = 'active' and c.attribution_layer = 'site-wide' and c.deleted_at is null
    and daterange(c.start_date, c.end_date, '[]') && daterange(campaign_overlapping.start_date, campaign_overlapping.end_date, '[]')
  order by c.start_date, c.id
  limit 1
$$;

create or replace function private.campaign_overlap_message(campaign_id uuid, start_date date, end_date date)
returns text
language sql stable set search_path = '' as $$
  select coalesce(
    (select format('Site-wide campaign %s (%s) is already active from %s to %s', o ->> 'id', o ->> 'name',
       o ->> 'start_date', o ->> 'end_date')
     from private.campaign_overlapping(campaign_id, start_date, end_date) o where o is not null),
    'Another site-wide campaign is already active over these dates')
$$;

create or replace function public.create_campaign(campaign jsonb)
returns public.campaigns
language plpgsql set search_path = '' as $$
declare
  created public.campaigns;
begin
  perform private.require_campaign_admin();
  insert into public.campaigns as c (
    name, description, start_date, end_date, budget, target_audience, campaign_type, attribution_weight, priority_score
  )
  values (
    campaign ->> 'name',
    campaign ->> 'description',
    (campaign ->> 'start_date')::date,
    (campaign ->> 'end_date')::date,
    coalesce((campaign ->> 'budget')::numeric, 0),
    campaign ->> 'target_audience',
    campaign ->> 'campaign_type',
    (campaign ->> 'attribution_weight')::numeric,
    (campaign ->> 'priority_score')::smallint
  )
  returning c.* into created;
  return created;
end
$$;

-- Only the keys present in `changes` are written; a JSON null clears description or target_audience.
create or replace function public.update_campaign(campaign_id uuid, changes jsonb)
returns public.campaigns
language plpgsql set search_path = '' as $$
declare
  current public.campaigns;
  updated public.campaigns;
begin
  perform private.require_campaign_admin();
  select * into current from public.campaigns c where c.id = campaign_id and c.deleted_at is null for update;
  if not found then
    perform private.campaign_not_found(campaign_id);
  end if;

  begin
    update public.campaigns as c set
      name = case when changes ? 'name' then changes ->> 'name' else c.name end,
      description = case when changes ? 'description' then changes ->> 'description' else c.description end,
      status = case when changes ? 'status' then (changes ->> 'status')::public.campaign_status else c.status end,
      start_date = case when changes ? 'start_date' then (changes ->> 'start_date')::date else c.start_date end,
      end_date = case when changes ? 'end_date' then (changes ->> 'end_date')::date else c.end_date end,
      budget = case when changes ? 'budget' then (changes ->> 'budget')::numeric else c.budget end,
      target_audience = case when changes ? 'target_audience' then changes ->> 'target_audience' else c.target_audience end,
      attribution_weight = case when changes ? 'attribution_weight'
        then (changes ->> 'attribution_weight')::numeric else c.attribution_weight end,
      priority_score = case when changes ? 'priority_score'
        then (changes ->> 'priority_score')::smallint else c.priority_score end
    where c.id = campaign_id
    returning c.* into updated;
  exception when exclusion_violation then
    perform private.raise_api_error(422, 'CAMPAIGN_OVERLAP_CONFLICT',
      private.campaign_overlap_message(campaign_id,
        coalesce((changes ->> 'start_date')::date, current.start_date),
        coalesce((changes ->> 'end_date')::date, current.end_date)),
      case when changes ? 'status'
        then jsonb_build_object('field', 'status', 'value', changes -> 'status',
          'constraint', 'at most one site-wide campaign active per date')
        else jsonb_build_object('field', case when changes ? 'start_date' then 'start_date' else 'end_date' end,
          'value', coalesce(changes -> 'start_date', changes -> 'end_date'),
          'constraint', 'at most one site-wide campaign active per date')
      end || jsonb_strip_nulls(jsonb_build_object('conflicts_with', private.campaign_overlapping(campaign_id,
        coalesce((changes ->> 'start_date')::date, current.start_date),
        coalesce((changes ->> 'end_date')::date, current.end_date)))));
  end;
  return updated;
end
$$;

create or replace function public.delete_campaign(campaign_id uuid)
returns public.campaigns
language plpgsql set search_path = '' as $$
declare
  deleted public.campaigns;
begin
  perform private.require_campaign_admin();
  update public.campaigns c set deleted_at = private.now()
  where c.id = campaign_id and c.deleted_at is null
  returning c.* into deleted;
  if not found then
    perform private.campaign_not_found(campaign_id);
  end if;
  return deleted;
end
$$;

-- Batch update_status and bulk-status: every campaign moves or none does. Each move runs in its own
-- subtransaction only so that every failure is collected and reported, not just the first; any failure
-- then aborts the whole transaction.
create or replace function public.set_campaign_statuses(campaign_ids uuid[], status text)
returns setof public.campaigns
language plpgsql set search_path = '' as $$
declare
  target public.campaign_status;
  ordered uuid[];
  campaign_id uuid;
  failures jsonb := '[]';
  failed_code text;
  failed_message text;
begin
  perform private.require_campaign_admin();
  if status is null or not status = any (enum_range(null::public.campaign_status)::text[]) then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'Invalid status', 'status', to_jsonb(status),
      'one of draft, active, paused, completed, cancelled');
  end if;
  target := status::public.campaign_status;
  -- Repeated ids count once; failures are reported in the order the ids were sent.
  ordered := array(
    select u from unnest(campaign_ids) with ordinality as t(u, n) where u is not null group by u order by min(n));
  if cardinality(ordered) not between 1 and 500 then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'campaign_ids must name 1 to 500 campaigns',
      'campaign_ids', to_jsonb(cardinality(ordered)), '1 to 500 ids');
  end if;

  -- Locked in id order, the same in every batch, so two concurrent batches cannot deadlock each other.
  perform 1 from public.campaigns c where c.id = any (ordered) and c.deleted_at is null order by c.id for update;
  -- The days these campaigns count on are recomputed once, after the last move, not after each.
  perform private.defer_campaign_attribution(ordered);

  foreach campaign_id in array ordered loop
    begin
      update public.campaigns c set status = target where c.id = campaign_id and c.deleted_at is null;
      if not found then
        failures := failures || jsonb_build_object('campaign_id', campaign_id, 'code', 'CAMPAIGN_NOT_FOUND',
          'message', format('Campaign %s does not exist', campaign_id));
      end if;
    exception
      when exclusion_violation then
        failures := failures || (select jsonb_strip_nulls(jsonb_build_object('campaign_id', campaign_id,
          'code', 'CAMPAIGN_OVERLAP_CONFLICT', 'message', private.campaign_overlap_message(c.id, c.start_date, c.end_date),
          'conflicts_with', private.campaign_overlapping(c.id, c.start_date, c.end_date)))
          from public.campaigns c where c.id = campaign_id);
      when sqlstate 'PT422' or sqlstate 'PT400' then
        get stacked diagnostics failed_code = message_text, failed_message = pg_exception_detail;
        failures := failures || jsonb_build_object('campaign_id', campaign_id, 'code', failed_code, 'message', failed_message);
    end;
  end loop;

  if jsonb_array_length(failures) > 0 then
    perform private.raise_api_error(422, (failures -> 0 ->> 'code')::public.error_code,
      format('%s of %s campaigns cannot move to %s; nothing was changed',
        jsonb_array_length(failures), cardinality(ordered), target),
      jsonb_build_object(
        'field', 'campaign_ids',
        'value', (select jsonb_agg(f -> 'campaign_id') from jsonb_array_elements(failures) f),
        'constraint', format('every campaign must exist and be allowed to move to %s', target),
        'failures', failures));
  end if;

  perform private.flush_campaign_attribution();
  return query
    select c.* from public.campaigns c where c.id = any (ordered) order by array_position(ordered, c.id);
end
$$;

revoke execute on function public.create_campaign(jsonb) from public, anon;

revoke execute on function public.update_campaign(uuid, jsonb) from public, anon;

revoke execute on function public.delete_campaign(uuid) from public, anon;

revoke execute on function public.set_campaign_statuses(uuid[], text) from public, anon;

grant execute on function public.create_campaign(jsonb) to authenticated, service_role;

grant execute on function public.update_campaign(uuid, jsonb) to authenticated, service_role;

grant execute on function public.delete_campaign(uuid) to authenticated, service_role;

grant execute on function public.set_campaign_statuses(uuid[], text) to authenticated, service_role;

revoke execute on function private.require_campaign_admin() from public, anon;

revoke execute on function private.campaign_not_found(uuid) from public, anon;

revoke execute on function private.campaign_overlapping(uuid, date, date) from public, anon;

revoke execute on function private.campaign_overlap_message(uuid, date, date) from public, anon;

revoke execute on function private.campaign_field_error(integer, public.error_code, text, text, jsonb, text) from public, anon;

revoke execute on function private.campaign_status_move_allowed(public.campaign_status, public.campaign_status) from public, anon;

revoke execute on function public.allowed_transitions(public.campaigns) from public, anon;

grant execute on function private.require_campaign_admin() to authenticated, service_role;

grant execute on function private.campaign_not_found(uuid) to authenticated, service_role;

grant execute on function private.campaign_overlapping(uuid, date, date) to authenticated, service_role;

grant execute on function private.campaign_overlap_message(uuid, date, date) to authenticated, service_role;

grant execute on function private.campaign_field_error(integer, public.error_code, text, text, jsonb, text) to authenticated, service_role;

grant execute on function private.campaign_status_move_allowed(public.campaign_status, public.campaign_status)
  to authenticated, service_role;

grant execute on function public.allowed_transitions(public.campaigns) to authenticated, service_role;
