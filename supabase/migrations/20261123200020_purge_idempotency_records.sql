-- Idempotency records past their 24 hours are purged: private.purge_idempotency_records(), scheduled
-- hourly with pg_cron where the platform has it, and run by one keyed stock request in a hundred.

create index idempotency_records_created_at_idx on public.idempotency_records (created_at);

create or replace function private.idempotency_ttl()
returns interval
language sql
immutable
set search_path = ''
as $$
  select interval '24 hours'
$$;

create or replace function private.purge_idempotency_records(max_rows integer default null)
returns integer
language plpgsql
set search_path = ''
as $$
declare
  purged integer;
begin
  with expired as (
    select r.operator, r.idempotency_key
    from public.idempotency_records r
    where r.created_at < now() - private.idempotency_ttl()
    limit purge_idempotency_records.max_rows
    for update skip locked
  )
  delete from public.idempotency_records r
  using expired e
  where r.operator = e.operator and r.idempotency_key = e.idempotency_key;
  get diagnostics purged = row_count;
  return purged;
end
$$;

create or replace function private.claim_idempotency_key(operator text, idempotency_key text, operation text, request jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  hashed text := encode(
    sha256(convert_to(jsonb_build_object('operation', operation, 'request', request)::text, 'UTF8')), 'hex');
  existing public.idempotency_records;
begin
  if idempotency_key is null then
    return null;
  end if;
  if idempotency_key !~ '^[\x21-\x7e]{1,255}$' then
    perform private.invalid_stock_field('Idempotency-Key', to_jsonb(idempotency_key),
      '1 to 255 visible ASCII characters');
  end if;
  if random() < 0.01 then
    perform private.purge_idempotency_records(1000);
  end if;

  insert into public.idempotency_records (operator, idempotency_key, operation, request_hash)
  values (claim_idempotency_key.operator, claim_idempotency_key.idempotency_key, claim_idempotency_key.operation,
          hashed)
  on conflict do nothing;
  if found then
    return null;
  end if;

  select * into existing
  from public.idempotency_records r
  where r.operator = claim_idempotency_key.operator and r.idempotency_key = claim_idempotency_key.idempotency_key
  for update;

  if existing.created_at < now() - private.idempotency_ttl() then
    update public.idempotency_records r
    set operation = claim_idempotency_key.operation, request_hash = hashed,
        response = null, created_at = now()
    where r.operator = claim_idempotency_key.operator and r.idempotency_key = claim_idempotency_key.idempotency_key;
    return null;
  end if;
  if existing.request_hash <> hashed then
    perform private.raise_api_error(422, 'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was already used with a different request',
      jsonb_build_object('idempotency_key', idempotency_key, 'first_used_at', private.api_timestamp(existing.created_at),
        'first_operation', existing.operation));
  end if;
  return existing.response;
end
$$;

revoke execute on function private.idempotency_ttl(), private.purge_idempotency_records(integer)
from public, anon, authenticated, service_role;

do $$
begin
  if exists (select 1 from pg_available_extensions where name = 'pg_cron') then
    create extension if not exists pg_cron with schema pg_catalog;
    perform cron.schedule('purge-idempotency-records', '17 * * * *', 'select private.purge_idempotency_records()');
  end if;
exception when others then
  raise notice 'pg_cron is not usable here (%): the stock functions purge idempotency records themselves', sqlerrm;
end
$$;
