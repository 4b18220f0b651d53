-- Products and their inventory records (lots). A lot remembers what entered it (`quantity`) and what is
-- left (`available_quantity`); a product's stock is the sum of its lots' available quantity, kept also
-- in `products.current_stock` so that every signed-in caller, business health and Realtime subscribers
-- can read it without seeing the lots. The CHECK constraints make negative stock impossible whoever
-- writes; only the stock functions (20261123001020) may write the quantities.

create table if not exists public.products (
  id uuid primary key default gen_random_uuid(),
  -- A deleted product keeps its SKU: movements and orders keep naming it, so it is never reused.
  sku text not null unique
    constraint products_sku_format check (sku ~ '^[A-Za-z0-9][A-Za-z0-9._-]*$' and char_length(sku) <= 64),
  name text not null constraint products_name_length check (char_length(name) between 1 and 200),
  is_active boolean not null default true,
  current_stock bigint not null default 0 constraint products_current_stock_not_negative check (current_stock >= 0),
  deleted_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table if not exists public.inventory_records (
  id uuid primary key default gen_random_uuid(),
  product_id uuid not null references public.products (id) on delete restrict,
  -- What entered the lot: received, plus any increase adjusted onto it.
  quantity bigint not null constraint inventory_records_quantity_positive check (quantity > 0),
  available_quantity bigint not null
    constraint inventory_records_available_within_quantity check (available_quantity between 0 and quantity),
  source text not null
    constraint inventory_records_source_known check (source in (
      'manual_stock_in', 'purchase_order', 'return_goods', 'transfer_in', 'production_complete', 'supplier_direct',
      'other', 'manual_adjustment', 'inventory_count', 'system_correction'
    )),
  note text constraint inventory_records_note_length check (char_length(note) <= 1000),
  received_at timestamptz not null default now(),
  -- clock_timestamp, not now(): lots created in one transaction still have an order ("latest record").
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default now(),
  -- No foreign key to auth.users: the audit trail outlives a deleted user.
  created_by uuid,
  created_by_role text not null
    constraint inventory_records_created_by_role_known check (created_by_role in ('authenticated', 'service_role')),
  constraint inventory_records_user_has_id check (created_by_role <> 'authenticated' or created_by is not null)
);

-- Seed rule 1 (the latest record) and FIFO (the oldest record that still has stock).
create index if not exists inventory_records_latest_idx
  on public.inventory_records (product_id, created_at desc, id desc);
create index if not exists inventory_records_fifo_idx
  on public.inventory_records (product_id, received_at, created_at, id)
  where available_quantity > 0;
create index if not exists inventory_records_created_by_idx on public.inventory_records (created_by);

drop trigger if exists products_touch_updated_at on public.products;
create trigger products_touch_updated_at
  before update on public.products
  for each row execute function private.touch_updated_at();

drop trigger if exists inventory_records_touch_updated_at on public.inventory_records;
create trigger inventory_records_touch_updated_at
  before update on public.inventory_records
  for each row execute function private.touch_updated_at();

alter table public.products enable row level security;
alter table public.inventory_records enable row level security;

-- The catalogue is for every signed-in caller; deleted products only for administrators.
drop policy if exists "signed-in callers see products, admins also deleted ones" on public.products;
create policy "signed-in callers see products, admins also deleted ones" on public.products
  for select to authenticated
  using (deleted_at is null or (select private.is_admin()));

drop policy if exists "admins add products" on public.products;
create policy "admins add products" on public.products
  for insert to authenticated
  with check ((select private.is_admin()));

drop policy if exists "admins change products" on public.products;
create policy "admins change products" on public.products
  for update to authenticated
  using ((select private.is_admin()))
  with check ((select private.is_admin()));

-- Lots carry operators and notes: administrators see all, a customer the lots they created.
drop policy if exists "operators see their lots, admins see all" on public.inventory_records;
create policy "operators see their lots, admins see all" on public.inventory_records
  for select to authenticated
  using (created_by = (select auth.uid()) or (select private.is_admin()));

-- Stock moves only through the stock functions, so no API role writes a quantity directly: products
-- are soft-deleted (deleted_at) and their stock column is not writable; lots are not writable at all.
revoke all on public.products, public.inventory_records from anon;
revoke insert, update, delete, truncate on public.products from authenticated, service_role;
grant insert (id, sku, name, is_active) on public.products to authenticated, service_role;
grant update (sku, name, is_active, deleted_at) on public.products to authenticated, service_role;
revoke insert, update, delete, truncate on public.inventory_records from authenticated, service_role;
