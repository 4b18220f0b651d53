-- Business failures raised by SQL functions, the PostgREST way: SQLSTATE `PTxxx` carries the HTTP
-- status, so `supabase.rpc` callers get the same status as the edge functions' callers. The message is
-- the machine-readable code, `detail` the human message, `hint` a JSON object of details.
create or replace function private.raise_api_error(status integer, code text, message text, details jsonb default null)
returns void
language plpgsql
set search_path = ''
as $$
begin
  raise exception using
    errcode = 'PT' || status::text,
    message = code,
    detail = message,
    hint = coalesce(details::text, '');
end
$$;

revoke execute on function private.raise_api_error(integer, text, text, jsonb) from public, anon;
grant execute on function private.raise_api_error(integer, text, text, jsonb) to authenticated, service_role;
