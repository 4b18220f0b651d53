-- Administrators are a database fact: a row in public.user_roles. One function reads it, for RLS
-- policies and for the SQL functions behind the edge functions alike, so revoking the row takes effect
-- on the caller's next statement.

create schema if not exists private;

-- What the API roles hold on new tables and sequences in `public`. Supabase grants them everything and leaves
-- the gatekeeping to RLS, but TRUNCATE bypasses RLS, TRIGGER runs a caller's code as the writer, and setval
-- breaks later inserts. So `authenticated` and `service_role` get select, insert, update and delete (RLS and
-- revokes narrow them), `anon` nothing, and a sequence nobody anything; test/database/privileges.test.ts holds
-- every relation × role × privilege.
alter default privileges in schema public revoke all on tables from anon;

alter default privileges in schema public
  revoke truncate, references, trigger, maintain on tables from authenticated, service_role;

alter default privileges in schema public revoke all on sequences from anon, authenticated, service_role;

grant usage on schema private to authenticated, service_role;

-- The database's clock: every time the schema reads comes from here, so `npm run test:at` can run the whole
-- store at a chosen moment through `store.clock_offset` (docs/architecture.md, "The clock"); unset, it is
-- now(). No `set search_path` (every name is qualified), so it is inlined into the query that reads it rather
-- than called with its settings saved and restored on every insert's default: with the other clock function,
-- the only ones the house style lets go without it.
create or replace function private.now()
returns timestamptz
language sql stable as $$
  select pg_catalog.now() + coalesce(nullif(pg_catalog.current_setting('store.clock_offset', true), '')::pg_catalog.interval, '0'::pg_catalog.interval)
$$;

-- clock_timestamp() on the same clock: the moment of the call, not of the transaction's start.
create or replace function private.clock_timestamp()
returns timestamptz
language sql as $$
  select pg_catalog.clock_timestamp() + coalesce(nullif(pg_catalog.current_setting('store.clock_offset', true), '')::pg_catalog.interval, '0'::pg_catalog.interval)
$$;

revoke execute on function private.now(), private.clock_timestamp() from public, anon;

grant execute on function private.now(), private.clock_timestamp() to authenticated, service_role;

-- The store's time zone, an IANA name, written on this one line: every day the back office computes is a day
-- there, as the staff live it; instants stay instants (UTC on the API). A running store changes it with
-- private.change_store_time_zone (70_store_days.sql), which rewrites this and every day derived from it
-- (docs/architecture.md, "The store's day"). Immutable, as order_date is stored from it; no `set search_path`,
-- like the clock, so it is inlined and folded to a constant where it is read.
create or replace function private.store_time_zone()
returns text
language sql immutable parallel safe as $$
  select 'Asia/Taipei'::text
$$;

-- The store's day an instant falls on.
create or replace function private.store_day(instant timestamptz)
returns date
language sql immutable parallel safe as $$
  select pg_catalog.date(pg_catalog.timezone(private.store_time_zone(), instant))
$$;

-- The instant a store day begins (its midnight there; a day in a zone with daylight saving may last 23 or
-- 25 hours).
create or replace function private.store_day_start(day date)
returns timestamptz
language sql immutable parallel safe as $$
  select pg_catalog.timezone(private.store_time_zone(), day::pg_catalog.timestamp)
$$;

-- Today, in the store, by the database's clock.
create or replace function private.store_today()
returns date
language sql stable parallel safe as $$
  select private.store_day(private.now())
$$;

revoke execute on function private.store_time_zone(), private.store_day(timestamptz), private.store_day_start(date),
  private.store_today() from public, anon;

grant execute on function private.store_time_zone(), private.store_day(timestamptz), private.store_day_start(date),
  private.store_today() to authenticated, service_role;

-- Names sorted as people read them: "Product 2" before "Product 10" (ICU's numeric ordering), the same
-- for every language; lists that sort by a name or code use it.
create collation if not exists private.natural_order (provider = icu, locale = 'und-u-kn-true');

create table public.user_roles (
  user_id uuid not null references auth.users (id) on delete cascade,
  role text not null constraint user_roles_role_known check (role in ('admin')),
  granted_at timestamptz not null default private.now(),
  primary key (user_id, role)
);

alter table public.user_roles enable row level security;

-- A role is granted or revoked, never edited (its policies are select, insert and delete).
revoke all on public.user_roles from anon;

revoke update on public.user_roles from authenticated, service_role;

-- Kept out of the API schema: it is a building block for policies, not an endpoint. Security definer so
-- a policy on user_roles itself can call it without recursing through that policy.
create or replace function private.is_admin()
returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(auth.role() = 'service_role', false)
      or exists (
        select 1
        from public.user_roles
        where user_id = (select auth.uid())
          and role = 'admin'
      )
$$;

revoke execute on function private.is_admin() from public, anon;

grant execute on function private.is_admin() to authenticated, service_role;

-- Whether a signed-in user may still act, as Supabase Auth records it: 'gone' when the account is deleted
-- (or soft-deleted, which keeps the row), 'banned' while `banned_until` lies ahead, else 'active'. A signed
-- token outlives its user until it expires; this is the one reading of the user's standing, for the
-- functions' token check (_shared/auth.ts) and for SQL that supabase-js reaches directly.
create or replace function private.user_standing(user_id uuid)
returns text
language sql stable security definer set search_path = '' as $$
  select case when u.id is null then 'gone' when u.banned_until > private.now() then 'banned' else 'active' end
  from (select) one
  left join auth.users u on u.id = user_standing.user_id and u.deleted_at is null
$$;

revoke execute on function private.user_standing(uuid) from public, anon, authenticated;

create policy "users see their own roles, admins see all" on public.user_roles
  for select to authenticated
  using (user_id = (select auth.uid()) or (select private.is_admin()));

create policy "admins grant roles" on public.user_roles
  for insert to authenticated
  with check ((select private.is_admin()));

create policy "admins revoke roles" on public.user_roles
  for delete to authenticated
  using ((select private.is_admin()));

-- Keeps `updated_at` honest whoever writes the row.
create or replace function private.touch_updated_at()
returns trigger
language plpgsql set search_path = '' as $$
begin
  new.updated_at := private.now();
  return new;
end
$$;

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

-- The rule a value outside a list breaks, worded as the edge functions' zod schemas word it
-- (`_shared/validation.ts` oneOf), from the enum type that holds the list.
create or replace function private.one_of(allowed anyarray)
returns text
language sql immutable set search_path = '' as $$
  select 'must be one of ' || array_to_string(allowed, ', ')
$$;

revoke execute on function private.one_of(anyarray) from public, anon;

grant execute on function private.one_of(anyarray) to authenticated, service_role;

