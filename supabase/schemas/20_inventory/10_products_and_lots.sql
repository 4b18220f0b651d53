-- Products and their inventory records (lots). A lot remembers what entered it (`quantity`) and what is
-- left (`available_quantity`); a product's stock is the sum of its lots' available quantity, kept also
-- in `products.current_stock` so that every signed-in caller, business health and Realtime subscribers
-- can read it without seeing the lots. The CHECK constraints make negative stock impossible whoever
-- writes; only the stock functions (below) may write the quantities.

-- The lists of values the stock operations accept, each written once. The columns stay text, checked
-- against these types, so a lot's source can be either kind and a new value is one `alter type ... add value`;
-- the types are what `database.types.ts` generates into `Constants` for the API and the console.
create type public.stock_in_source as enum (
  'manual_stock_in', 'purchase_order', 'return_goods', 'transfer_in', 'production_complete', 'supplier_direct', 'other'
);
create type public.stock_adjust_source as enum ('manual_adjustment', 'inventory_count', 'system_correction', 'other');
-- Which way each reason may move stock is `public.stock_adjust_reasons`.
create type public.stock_adjust_reason as enum (
  'inventory_audit_increase', 'return_goods', 'supplier_compensation', 'miscount_correction',
  'inventory_audit_decrease', 'damage_writeoff', 'expired_removal', 'loss_theft', 'quality_issue', 'other'
);
-- `sale` is an order's goods drawn when it ships, `sale_return` a refunded order's goods put back
-- (30_orders/20_order_goods.sql).
create type public.stock_operation as enum ('stock_in', 'stock_adjust', 'stock_out', 'sale', 'sale_return');
create type public.stock_adjust_direction as enum ('increase', 'decrease', 'either');
-- Where a product's stock stands against its reorder level (public.product_stock.stock_status).
create type public.stock_status as enum ('out_of_stock', 'low_stock', 'in_stock');
-- Which lot a sale draws first: the oldest received (`fifo`, the seeds' rule) or the one that expires
-- first (`fefo`, for perishables; then the oldest).
create type public.stock_allocation as enum ('fifo', 'fefo');

-- Which way each adjustment reason may move stock, and which reasons need a note: the rule
-- `public.stock_adjust` enforces, served as it stands (GET /stock-adjust/reasons) so a form offers only
-- what will be accepted. A reason added to the type and not listed here may go either way.
create or replace view public.stock_adjust_reasons with (security_invoker = true) as
select
  r.reason,
  case
    when r.reason in ('inventory_audit_increase', 'return_goods', 'supplier_compensation', 'miscount_correction')
      then 'increase'
    when r.reason in ('inventory_audit_decrease', 'damage_writeoff', 'expired_removal', 'loss_theft', 'quality_issue')
      then 'decrease'
    else 'either'
  end::public.stock_adjust_direction as direction,
  r.reason = 'other' as needs_note
from unnest(enum_range(null::public.stock_adjust_reason)) with ordinality as r (reason, position)
order by r.position;

revoke all on public.stock_adjust_reasons from anon;

revoke insert, update, delete, truncate on public.stock_adjust_reasons from authenticated, service_role;

grant select on public.stock_adjust_reasons to authenticated, service_role;

-- A product's field rules, written once: the table's CHECKs and private.check_product_fields (its refusals for
-- rpc callers, 40_product_writes.sql) ask these; zod and the console read supabase/functions/products/fields.ts,
-- which test/database/products.test.ts holds to them. A name counts without its surrounding spaces. No `set
-- search_path`, so they are inlined into the CHECKs every stock movement's product update runs.
create or replace function private.is_product_sku(sku text)
returns boolean
language sql immutable parallel safe as $$
  select sku operator(pg_catalog.~) '^[A-Za-z0-9][A-Za-z0-9._-]*$' and pg_catalog.char_length(sku) <= 64
$$;

create or replace function private.is_product_name(name text)
returns boolean
language sql immutable parallel safe as $$
  select pg_catalog.char_length(pg_catalog.btrim(name)) between 1 and 200
$$;

-- The most units a quantity of stock may be: what one movement moves, and a product's reorder level. `npm run
-- types` generates it into `Limits.stock_quantity` of database.types.ts, which zod and the console read.
create or replace function private.max_stock_quantity()
returns bigint
language sql immutable parallel safe set search_path = '' as $$
  select 1000000000::bigint
$$;

-- Its upper bound is private.max_stock_quantity(), written out (test/database/products.test.ts holds them
-- equal): the CHECK prepares this expression for every update of a product, and a function call there is
-- evaluated each time, a cost every order's reservation paid (docs/performance.md).
create or replace function private.is_reorder_level(level numeric)
returns boolean
language sql immutable parallel safe as $$
  select level between 0 and 1000000000 and level = pg_catalog.trunc(level)
$$;

revoke execute on function private.is_product_sku(text), private.is_product_name(text), private.is_reorder_level(numeric),
  private.max_stock_quantity()
  from public, anon;

-- The products' writers (administrators and the store's jobs) meet them in the CHECKs.
grant execute on function private.is_product_sku(text), private.is_product_name(text), private.is_reorder_level(numeric),
  private.max_stock_quantity()
  to authenticated, service_role;

create table public.products (
  id uuid primary key default gen_random_uuid(),
  -- A deleted product keeps its SKU: movements and orders keep naming it, so it is never reused.
  sku text not null unique constraint products_sku_format check (private.is_product_sku(sku)),
  name text not null constraint products_name_length check (private.is_product_name(name)),
  is_active boolean not null default true,
  current_stock bigint not null default 0 constraint products_current_stock_not_negative check (current_stock >= 0),
  deleted_at timestamptz,
  created_at timestamptz not null default private.now(),
  updated_at timestamptz not null default private.now(),
  -- Low on stock when what is free to sell, available_stock, is at most reorder_level
  -- (public.product_stock.low_stock and stock_status). The default, 10, is also public.create_product's.
  reorder_level integer not null default 10
    constraint products_reorder_level_range check (private.is_reorder_level(reorder_level)),
  -- What open orders (placed, not yet shipped or cancelled) hold of current_stock: their lines' quantities,
  -- kept by the order functions and the order status trigger (30_orders/20_order_goods.sql). Never more than on
  -- hand, so no order can take what another holds: the CHECK is the never-oversold rule, for every writer.
  reserved_stock bigint not null default 0,
  -- On hand and free to sell: what a new order or a decrease may take.
  available_stock bigint generated always as (current_stock - reserved_stock) stored,
  allocation text not null default 'fifo'
    constraint products_allocation_known check (allocation = any (enum_range(null::public.stock_allocation)::text[])),
  constraint products_reserved_stock_within_stock check (reserved_stock between 0 and current_stock),
  -- A deleted product holds nothing: no route can touch its units again (public.delete_product refuses one
  -- with stock, and a refund does not restock it), so neither may a direct write.
  constraint products_deleted_without_stock check (deleted_at is null or current_stock = 0)
);

create table public.inventory_records (
  id uuid primary key default gen_random_uuid(),
  product_id uuid not null references public.products (id) on delete restrict,
  -- What entered the lot: received, plus any increase adjusted onto it.
  quantity bigint not null constraint inventory_records_quantity_positive check (quantity > 0),
  available_quantity bigint not null
    constraint inventory_records_available_within_quantity check (available_quantity between 0 and quantity),
  -- A lot is opened by a stock-in or by an increase adjusted onto a product without lots.
  source text not null
    constraint inventory_records_source_known check (
      source = any (enum_range(null::public.stock_in_source)::text[] || enum_range(null::public.stock_adjust_source)::text[])
    ),
  note text constraint inventory_records_note_length check (char_length(note) <= 1000),
  received_at timestamptz not null default private.now(),
  -- clock_timestamp, not now(): lots created in one transaction still have an order ("latest record").
  created_at timestamptz not null default private.clock_timestamp(),
  updated_at timestamptz not null default private.now(),
  -- No foreign key to auth.users: the audit trail outlives a deleted user.
  created_by uuid,
  created_by_role text not null
    constraint inventory_records_created_by_role_known check (created_by_role in ('authenticated', 'service_role')),
  -- The supplier's lot (batch) number and the goods' expiry date, as the delivery gives them. An expiry is a
  -- store day, never before the day the lot was received (checked by the stock functions, which alone
  -- write lots: a CHECK would be read again on every later change of the lot, on a day a zone change may
  -- have moved).
  lot_number text
    constraint inventory_records_lot_number_format check (
      char_length(lot_number) between 1 and 64 and lot_number !~ '[[:cntrl:]]' and lot_number = btrim(lot_number)
    ),
  expires_on date,
  -- What one unit of the lot cost the store (TWD), when the delivery says: a shipped line's cost is what
  -- the lots it drew cost (FIFO costing).
  unit_cost numeric(12, 2) constraint inventory_records_unit_cost_not_negative check (unit_cost >= 0 and unit_cost < 'Infinity'),
  constraint inventory_records_user_has_id check (created_by_role <> 'authenticated' or created_by is not null)
);

-- Seed rule 1 (the latest record) and FIFO (the oldest record that still has stock).
create index inventory_records_latest_idx
  on public.inventory_records (product_id, created_at desc, id desc);

create index inventory_records_fifo_idx
  on public.inventory_records (product_id, received_at, created_at, id)
  where available_quantity > 0;

create index inventory_records_created_by_idx on public.inventory_records (created_by);

-- The lots about to expire (GET /products/expiring): only those with an expiry and stock left.
create index inventory_records_expiring_idx
  on public.inventory_records (expires_on, product_id)
  where available_quantity > 0 and expires_on is not null;

create trigger products_touch_updated_at
  before update on public.products
  for each row execute function private.touch_updated_at();

create trigger inventory_records_touch_updated_at
  before update on public.inventory_records
  for each row execute function private.touch_updated_at();

alter table public.products enable row level security;

alter table public.inventory_records enable row level security;

create policy "signed-in callers see products, admins also deleted ones" on public.products
  for select to authenticated
  using (deleted_at is null or (select private.is_admin()));

create policy "admins add products" on public.products
  for insert to authenticated
  with check ((select private.is_admin()));

create policy "admins change products" on public.products
  for update to authenticated
  using ((select private.is_admin()))
  with check ((select private.is_admin()));

create policy "operators see their lots, admins see all" on public.inventory_records
  for select to authenticated
  using (created_by = (select auth.uid()) or (select private.is_admin()));

-- Stock moves only through the stock functions, so no API role writes a quantity directly: products
-- are soft-deleted (deleted_at) and their stock column is not writable; lots are not writable at all.
revoke all on public.products, public.inventory_records from anon;

revoke insert, update, delete, truncate on public.products from authenticated, service_role;

grant insert (id, sku, name, is_active, reorder_level, allocation) on public.products to authenticated, service_role;

grant update (sku, name, is_active, deleted_at, reorder_level, allocation) on public.products to authenticated, service_role;

revoke insert, update, delete, truncate on public.inventory_records from authenticated, service_role;

-- The product list (GET /products) as a view, so a supabase-js caller reads the same rows under the same
-- RLS as the products function, and `low_stock` and `stock_status` have one definition each, both of the
-- stock free to sell (available_stock: on hand less what open orders hold): low is at or below the
-- product's reorder level; out of stock is none free at all, apart from low.
create or replace view public.product_stock with (security_invoker = true) as
select p.id,
       p.sku,
       p.name,
       p.is_active,
       p.current_stock,
       p.reorder_level,
       p.available_stock <= p.reorder_level as low_stock,
       p.deleted_at,
       p.created_at,
       p.updated_at,
       case
         when p.available_stock = 0 then 'out_of_stock'
         when p.available_stock <= p.reorder_level then 'low_stock'
         else 'in_stock'
       end::public.stock_status as stock_status,
       p.reserved_stock,
       p.available_stock,
       p.allocation
from public.products p;

revoke all on public.product_stock from anon;

revoke insert, update, delete, truncate on public.product_stock from authenticated, service_role;

grant select on public.product_stock to authenticated, service_role;
