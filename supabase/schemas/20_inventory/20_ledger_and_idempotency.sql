-- The audit side of inventory: the stock-in history (seed 02), the append-only movement ledger (one row
-- per lot touched, so sum(delta) per product always equals its stock) and the idempotency records that
-- let a client retry a stock change safely. Rows are written only by the stock functions; no API role
-- may change or remove one, so the trail cannot be edited after the fact.

create table public.stock_in_history (
  id uuid primary key default gen_random_uuid(),
  inventory_record_id uuid not null unique references public.inventory_records (id) on delete restrict,
  product_id uuid not null references public.products (id) on delete restrict,
  quantity bigint not null constraint stock_in_history_quantity_positive check (quantity > 0),
  source text not null,
  note text,
  received_at timestamptz not null,
  operator_id uuid,
  operator_role text not null
    constraint stock_in_history_operator_role_known check (operator_role in ('authenticated', 'service_role')),
  created_at timestamptz not null default private.now(),
  -- The lot's number and expiry as received (public.inventory_records).
  lot_number text,
  expires_on date
);

create index stock_in_history_product_idx on public.stock_in_history (product_id, created_at desc);

create index stock_in_history_operator_idx on public.stock_in_history (operator_id);

create table public.stock_movements (
  id bigint generated always as identity primary key,
  -- Groups the rows of one request: a FIFO decrease across three lots is one operation, three rows.
  operation_id uuid not null,
  operation text not null
    constraint stock_movements_operation_known check (operation = any (enum_range(null::public.stock_operation)::text[])),
  product_id uuid not null references public.products (id) on delete restrict,
  inventory_record_id uuid not null references public.inventory_records (id) on delete restrict,
  delta bigint not null constraint stock_movements_delta_not_zero check (delta <> 0),
  stock_before bigint not null,
  stock_after bigint not null,
  record_available_before bigint not null,
  record_available_after bigint not null,
  source text,
  reason text,
  reason_note text,
  reference text,
  operator_id uuid,
  operator_role text not null
    constraint stock_movements_operator_role_known check (operator_role in ('authenticated', 'service_role')),
  created_at timestamptz not null default private.now(),
  constraint stock_movements_stock_arithmetic
    check (stock_before >= 0 and stock_after >= 0 and stock_after = stock_before + delta),
  constraint stock_movements_record_arithmetic
    check (record_available_before >= 0 and record_available_after >= 0
      and record_available_after = record_available_before + delta)
);

create index stock_movements_product_idx on public.stock_movements (product_id, id);

create index stock_movements_record_idx on public.stock_movements (inventory_record_id);

create index stock_movements_operator_idx on public.stock_movements (operator_id);

-- Who booked a ledger row, in words: the operator's email, for the admins who read every row and for the
-- operator themself; anyone else gets null. auth.users is not readable by the caller, hence definer.
create or replace function private.operator_email(operator_id uuid)
returns text
language sql stable security definer set search_path = '' as $$
  select u.email::text
  from auth.users u
  where u.id = operator_id
    and (u.id = (select auth.uid()) or (select private.is_admin()))
$$;

revoke execute on function private.operator_email(uuid) from public, anon;

grant execute on function private.operator_email(uuid) to authenticated, service_role;

-- Keyed by caller, not globally: one caller's key can neither collide with nor replay another's.
-- `operator` is the user id, or 'service_role' for the service key.
create table public.idempotency_records (
  operator text not null,
  idempotency_key text not null
    constraint idempotency_records_key_format check (idempotency_key ~ '^[\x21-\x7e]{1,255}$'),
  operation text not null,
  request_hash text not null,
  response jsonb,
  created_at timestamptz not null default private.now(),
  primary key (operator, idempotency_key)
);

-- The purge's way to the records past their 24 hours.
create index idempotency_records_created_at_idx on public.idempotency_records (created_at);

alter table public.stock_in_history enable row level security;

alter table public.stock_movements enable row level security;

alter table public.idempotency_records enable row level security;

create policy "operators see their stock-ins, admins see all" on public.stock_in_history
  for select to authenticated
  using (operator_id = (select auth.uid()) or (select private.is_admin()));

create policy "operators see their movements, admins see all" on public.stock_movements
  for select to authenticated
  using (operator_id = (select auth.uid()) or (select private.is_admin()));

create policy "callers see their own idempotency records" on public.idempotency_records
  for select to authenticated
  using (operator = (select auth.uid())::text);

revoke all on public.stock_in_history, public.stock_movements, public.idempotency_records from anon;

revoke insert, update, delete, truncate on public.stock_in_history, public.stock_movements, public.idempotency_records
  from authenticated, service_role;

-- The ledger's identity sequence is the database's alone: setval by a caller would break every later
-- stock operation.
revoke all on sequence public.stock_movements_id_seq from anon, authenticated, service_role;

-- Realtime: postgres_changes subscribers see every stock change (RLS decides which rows each one gets).
alter publication supabase_realtime
  add table public.products, public.inventory_records, public.stock_in_history, public.stock_movements;

-- Business health's products dimension reads a window's goods gone out (stock-outs and sales) once,
-- through an index that holds only them, instead of probing each product's whole ledger.
create index stock_movements_outbound_idx
  on public.stock_movements (created_at) include (product_id)
  where operation in ('stock_out', 'sale');

-- Idempotency records past their 24 hours are purged hourly by pg_cron where the platform has it (a hosted
-- Supabase project). Where it has not (the local embedded PostgreSQL) or the extension cannot be created
-- (it must be in shared_preload_libraries), the schema applies without it and the stock functions purge
-- on their own, one keyed request in a hundred (private.claim_idempotency_key).
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
