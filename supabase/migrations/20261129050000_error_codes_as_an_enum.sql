-- The error codes' catalogue becomes a database enum (public.error_code), read by the edge functions and
-- the console through the generated types; the two functions that raise a code take it as that type.
-- Every code the API answers a refusal or a failure with (the `code` or `error_code` of each envelope):
-- the one catalogue. SQL raises only these (private.raise_api_error takes this type), the edge functions'
-- ApiError only these (the generated types), and the console words each in Traditional Chinese and English.
create type public.error_code as enum (
  -- Who is asking, and what they may do.
  'UNAUTHORIZED', 'FORBIDDEN', 'INSUFFICIENT_PERMISSION', 'PERMISSION_DENIED', 'RATE_LIMIT_EXCEEDED',
  -- The request itself.
  'VALIDATION_ERROR', 'INVALID_PARAMETER', 'NOT_FOUND', 'METHOD_NOT_ALLOWED', 'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_VERSION', 'IDEMPOTENCY_KEY_REUSED',
  -- Campaigns and their types.
  'CAMPAIGN_NOT_FOUND', 'CAMPAIGN_OVERLAP_CONFLICT', 'CAMPAIGN_FINAL', 'INVALID_STATUS_TRANSITION',
  'INVALID_DATE_RANGE', 'ATTRIBUTION_WEIGHT_EXCEEDED', 'SPEND_OUTSIDE_CAMPAIGN', 'TYPE_NOT_FOUND',
  'DUPLICATE_TYPE_CODE', 'INVALID_WEIGHT_RANGE', 'INVALID_ATTRIBUTION_LAYER',
  -- Products and stock.
  'PRODUCT_NOT_FOUND', 'PRODUCT_INACTIVE', 'PRODUCT_HAS_STOCK', 'PRODUCT_DELETED', 'DUPLICATE_SKU',
  'INSUFFICIENT_STOCK', 'EXPIRED_STOCK', 'NO_INVENTORY_RECORD', 'INVENTORY_RECORD_NOT_FOUND',
  -- Orders.
  'ORDER_NOT_FOUND', 'CUSTOMER_NOT_FOUND', 'ORDER_LINES_FIXED',
  -- The service.
  'LOCK_TIMEOUT', 'SERVICE_UNAVAILABLE', 'CALCULATION_ERROR', 'DB_ERROR', 'INTERNAL_ERROR'
);

drop function private.raise_api_error(integer, text, text, jsonb);

-- Business failures raised by SQL functions, the PostgREST way: SQLSTATE `PTxxx` carries the HTTP
-- status, so `supabase.rpc` callers get the same status as the edge functions' callers. The message is
-- the machine-readable code, `detail` the human message, `hint` a JSON object of details.
create or replace function private.raise_api_error(status integer, code public.error_code, message text, details jsonb default null)
returns void
language plpgsql set search_path = '' as $$
begin
  raise exception using
    errcode = 'PT' || status::text,
    message = code,
    detail = message,
    hint = coalesce(details::text, '');
end
$$;

revoke execute on function private.raise_api_error(integer, public.error_code, text, jsonb) from public, anon;

grant execute on function private.raise_api_error(integer, public.error_code, text, jsonb) to authenticated, service_role;

drop function private.campaign_field_error(integer, text, text, text, jsonb, text);

create or replace function private.campaign_field_error(status integer, code public.error_code, message text, field text, value jsonb, rule text)
returns void
language plpgsql set search_path = '' as $$
begin
  perform private.raise_api_error(status, code, message,
    jsonb_build_object('field', field, 'value', value, 'constraint', rule));
end
$$;

revoke execute on function private.campaign_field_error(integer, public.error_code, text, text, jsonb, text) from public, anon;

grant execute on function private.campaign_field_error(integer, public.error_code, text, text, jsonb, text) to authenticated, service_role;

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
