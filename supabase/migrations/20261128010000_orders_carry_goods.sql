-- Orders carry their goods (issue 41): order lines, reservations (products.reserved_stock and
-- available_stock), shipment drawn from the lots (FIFO, or FEFO where a product is set so; never an
-- expired lot), refunds that put the goods back, and the lots' unit cost. The whole of
-- 30_inventory/50_order_goods.sql is new; the rest is the delta of the files it touches.

alter type public.stock_operation add value if not exists 'sale';
alter type public.stock_operation add value if not exists 'sale_return';

-- Which lot a sale draws first: the oldest received (`fifo`, the seeds' rule) or the one that expires
-- first (`fefo`, for perishables; then the oldest).
create type public.stock_allocation as enum ('fifo', 'fefo');


alter table public.products
  add column reserved_stock bigint not null default 0,
  add column available_stock bigint generated always as (current_stock - reserved_stock) stored,
  add column allocation text not null default 'fifo'
    constraint products_allocation_known check (allocation = any (enum_range(null::public.stock_allocation)::text[])),
  add constraint products_reserved_stock_within_stock check (reserved_stock between 0 and current_stock);

alter table public.inventory_records
  add column unit_cost numeric(12, 2) constraint inventory_records_unit_cost_not_negative check (unit_cost >= 0);

alter table public.orders add column restocked boolean;

grant insert (allocation) on public.products to authenticated, service_role;

grant update (allocation) on public.products to authenticated, service_role;

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


drop function private.draw_fifo(uuid, bigint, uuid, text, jsonb, uuid, text);

-- Takes `quantity` from the product's lots, oldest received first; the caller holds the product lock
-- and has checked that the lots cover it. A sale (`sale_day`, the store day it ships) draws only the lots
-- not expired by that day, and for a product set to FEFO (`first_expiring`) the lot that expires first,
-- then the oldest. Returns [{inventory_id, quantity}] in the order drawn.
create or replace function private.draw_lots(
  product_id uuid, quantity bigint, operation_id uuid, operation text, details jsonb, operator_id uuid,
  operator_role text, sale_day date default null, first_expiring boolean default false
)
returns jsonb
language plpgsql set search_path = '' as $$
declare
  remaining bigint := quantity;
  candidate record;
  taken bigint;
  lot public.inventory_records;
  allocations jsonb := '[]';
begin
  for candidate in
    select r.id, r.available_quantity
    from public.inventory_records r
    where r.product_id = draw_lots.product_id and r.available_quantity > 0
      and (sale_day is null or r.expires_on is null or r.expires_on >= sale_day)
    order by case when first_expiring then r.expires_on end nulls last, r.received_at, r.created_at, r.id
    for update
  loop
    exit when remaining = 0;
    taken := least(remaining, candidate.available_quantity);
    update public.inventory_records r
    set available_quantity = r.available_quantity - taken
    where r.id = candidate.id
    returning r.* into lot;
    perform private.log_movement(operation_id, operation, lot, -taken, details, operator_id, operator_role);
    allocations := allocations || jsonb_build_array(jsonb_build_object('inventory_id', lot.id, 'quantity', taken));
    remaining := remaining - taken;
  end loop;
  if remaining > 0 then
    raise exception 'stock of product % disagrees with its inventory records', product_id;
  end if;
  return allocations;
end
$$;


revoke execute on function private.draw_lots(uuid, bigint, uuid, text, jsonb, uuid, text, date, boolean)
  from public, anon, authenticated, service_role;

create or replace function private.lock_product(product_id uuid)
returns public.products
language plpgsql set search_path = '' as $$
declare
  product public.products;
begin
  select * into product
  from public.products p
  where p.id = lock_product.product_id and p.deleted_at is null
  for no key update;
  if not found then
    perform private.product_not_found(product_id);
  end if;
  return product;
end
$$;


create or replace function public.stock_out(
  product_id uuid,
  quantity bigint,
  reference text default null,
  idempotency_key text default null
)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  operator record;
  replay jsonb;
  product public.products;
  allocations jsonb;
begin
  select * into operator from private.stock_operator();
  if product_id is null then
    perform private.invalid_stock_field('product_id', null, 'required');
  end if;
  perform private.check_stock_quantity('quantity', quantity);
  if char_length(reference) > 200 then
    perform private.invalid_stock_field('reference', to_jsonb(reference), 'at most 200 characters');
  end if;

  replay := private.claim_idempotency_key(operator.operator_key, idempotency_key, 'stock_out', jsonb_build_object(
    'product_id', product_id, 'quantity', quantity, 'reference', reference));
  if replay is not null then
    return replay;
  end if;

  product := private.lock_product(product_id);
  if product.available_stock < quantity then
    perform private.insufficient_stock(product.id, null, quantity, product.available_stock);
  end if;
  allocations := private.draw_lots(product.id, quantity, gen_random_uuid(), 'stock_out',
    jsonb_build_object('reference', reference), operator.operator_id, operator.operator_role);

  return private.remember_response(operator.operator_key, idempotency_key, jsonb_build_object(
    'success', true,
    'product_id', product.id,
    'quantity', quantity,
    'reference', reference,
    'allocations', allocations,
    'previous_available_stock', product.current_stock,
    'current_stock', product.current_stock - quantity,
    'message', format('Stocked out %s units of %s; current stock %s', quantity, product.sku,
      product.current_stock - quantity)
  ));
end
$$;


create or replace function public.stock_adjust(
  adjust_quantity bigint default null,
  reason text default null,
  product_id uuid default null,
  inventory_id uuid default null,
  source text default 'manual_adjustment',
  reason_note text default null,
  idempotency_key text default null
)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  rule public.stock_adjust_reasons;
  operator record;
  replay jsonb;
  product public.products;
  lot public.inventory_records;
  target_product uuid;
  amount bigint := abs(adjust_quantity);
  details jsonb;
  allocations jsonb;
  previous_stock bigint;
  new_stock bigint;
begin
  select * into operator from private.stock_operator();
  if (product_id is null) = (inventory_id is null) then
    perform private.invalid_stock_field(case when product_id is null then 'product_id' else 'inventory_id' end,
      null, 'exactly one of product_id and inventory_id is required', null, 'exactly_one',
      jsonb_build_object('fields', jsonb_build_array('product_id', 'inventory_id')));
  end if;
  if adjust_quantity is null then
    perform private.invalid_stock_field('adjust_quantity', null, 'required');
  elsif adjust_quantity = 0 then
    perform private.invalid_stock_field('adjust_quantity', to_jsonb(adjust_quantity), 'must not be 0');
  elsif amount > 1000000000 then
    perform private.invalid_stock_field('adjust_quantity', to_jsonb(adjust_quantity),
      'must be between -1000000000 and 1000000000');
  end if;
  select * into rule from public.stock_adjust_reasons r where r.reason::text = stock_adjust.reason;
  if reason is null then
    perform private.invalid_stock_field('reason', null, 'required');
  elsif rule.reason is null then
    perform private.invalid_stock_field('reason', to_jsonb(reason), private.one_of(enum_range(null::public.stock_adjust_reason)));
  elsif adjust_quantity > 0 and rule.direction = 'decrease' then
    perform private.invalid_stock_field('reason', to_jsonb(reason), 'is a decrease reason; adjust_quantity is positive',
      null, 'reason_direction', jsonb_build_object('direction', 'decrease'));
  elsif adjust_quantity < 0 and rule.direction = 'increase' then
    perform private.invalid_stock_field('reason', to_jsonb(reason), 'is an increase reason; adjust_quantity is negative',
      null, 'reason_direction', jsonb_build_object('direction', 'increase'));
  end if;
  if rule.needs_note and coalesce(btrim(reason_note), '') = '' then
    perform private.invalid_stock_field('reason_note', to_jsonb(reason_note), 'required when reason is ' || reason,
      null, 'required');
  elsif char_length(reason_note) > 500 then
    perform private.invalid_stock_field('reason_note', to_jsonb(reason_note), 'at most 500 characters');
  end if;
  source := coalesce(source, 'manual_adjustment');
  if not source = any (enum_range(null::public.stock_adjust_source)::text[]) then
    perform private.invalid_stock_field('source', to_jsonb(source), private.one_of(enum_range(null::public.stock_adjust_source)));
  end if;

  replay := private.claim_idempotency_key(operator.operator_key, idempotency_key, 'stock_adjust', jsonb_build_object(
    'product_id', product_id, 'inventory_id', inventory_id, 'adjust_quantity', adjust_quantity, 'reason', reason,
    'reason_note', reason_note, 'source', source));
  if replay is not null then
    return replay;
  end if;

  details := jsonb_build_object('source', source, 'reason', reason, 'reason_note', reason_note);

  if inventory_id is not null then
    select r.product_id into target_product from public.inventory_records r where r.id = stock_adjust.inventory_id;
    if not found then
      perform private.raise_api_error(404, 'INVENTORY_RECORD_NOT_FOUND',
        format('Inventory record %s does not exist', inventory_id), jsonb_build_object('inventory_id', inventory_id));
    end if;
    product := private.lock_product(target_product);
    select * into lot from public.inventory_records r where r.id = stock_adjust.inventory_id for update;
    -- Neither more than the lot holds nor units open orders hold (products.reserved_stock).
    if least(lot.available_quantity, product.available_stock) + adjust_quantity < 0 then
      perform private.insufficient_stock(product.id, lot.id, amount, least(lot.available_quantity, product.available_stock));
    end if;
    previous_stock := lot.available_quantity;
    update public.inventory_records r
    set quantity = r.quantity + greatest(adjust_quantity, 0), available_quantity = r.available_quantity + adjust_quantity
    where r.id = lot.id
    returning r.* into lot;
    perform private.log_movement(gen_random_uuid(), 'stock_adjust', lot, adjust_quantity, details,
      operator.operator_id, operator.operator_role);
    new_stock := lot.available_quantity;
  else
    product := private.lock_product(product_id);
    previous_stock := product.current_stock;
    new_stock := product.current_stock + adjust_quantity;
    if adjust_quantity > 0 then
      select * into lot
      from public.inventory_records r
      where r.product_id = product.id
      order by r.created_at desc, r.id desc
      limit 1
      for update;
      if found then
        update public.inventory_records r
        set quantity = r.quantity + adjust_quantity, available_quantity = r.available_quantity + adjust_quantity
        where r.id = lot.id
        returning r.* into lot;
      else
        insert into public.inventory_records (product_id, quantity, available_quantity, source, note, received_at,
                                              created_by, created_by_role)
        values (product.id, adjust_quantity, adjust_quantity, stock_adjust.source,
                format('Initial stock adjustment: %s', reason), private.now(), operator.operator_id, operator.operator_role)
        returning * into lot;
      end if;
      perform private.log_movement(gen_random_uuid(), 'stock_adjust', lot, adjust_quantity, details,
        operator.operator_id, operator.operator_role);
    else
      if not exists (select 1 from public.inventory_records r where r.product_id = product.id) then
        perform private.raise_api_error(422, 'NO_INVENTORY_RECORD',
          format('Product %s has no inventory record to decrease', product.sku),
          jsonb_build_object('product_id', product.id));
      end if;
      if product.available_stock < amount then
        perform private.insufficient_stock(product.id, null, amount, product.available_stock);
      end if;
      allocations := private.draw_lots(product.id, amount, gen_random_uuid(), 'stock_adjust', details,
        operator.operator_id, operator.operator_role);
      lot.id := (allocations -> 0 ->> 'inventory_id')::uuid;
    end if;
  end if;

  return private.remember_response(operator.operator_key, idempotency_key, jsonb_strip_nulls(jsonb_build_object(
    'success', true,
    'inventory_id', lot.id,
    'product_id', product.id,
    'adjustment_quantity', adjust_quantity,
    'adjustment_type', case when adjust_quantity > 0 then 'increase' else 'decrease' end,
    'previous_available_stock', previous_stock,
    'new_available_stock', new_stock,
    'current_stock', product.current_stock + adjust_quantity,
    'reason', reason,
    'reason_note', reason_note,
    'source', source,
    'allocations', allocations,
    'message', format('Stock of %s %s by %s (%s)', product.sku,
      case when adjust_quantity > 0 then 'increased' else 'decreased' end, amount, reason)
  )));
end
$$;


-- The products function's field rules, for rpc callers: only known fields, each of the right type and
-- range; `required` names the fields that must be present.
create or replace function private.check_product_fields(fields jsonb, required text[])
returns void
language plpgsql set search_path = '' as $$
declare
  field text;
  value jsonb;
  problem text;
begin
  if jsonb_typeof(fields) is distinct from 'object' then
    perform private.raise_api_error(400, 'VALIDATION_ERROR', 'Invalid body: must be a JSON object',
      jsonb_build_object('field', null, 'value', fields, 'constraint', 'must be a JSON object'));
  end if;
  foreach field in array required loop
    if not fields ? field then
      perform private.raise_api_error(400, 'VALIDATION_ERROR', format('Invalid %s: required', field),
        jsonb_build_object('field', field, 'value', null, 'constraint', 'required'));
    end if;
  end loop;
  for field, value in select j.key, j.value from jsonb_each(fields) j loop
    problem := null;
    if field = 'sku' then
      if jsonb_typeof(value) <> 'string' or value #>> '{}' !~ '^[A-Za-z0-9][A-Za-z0-9._-]*$'
         or char_length(value #>> '{}') > 64 then
        problem := 'letters, digits, dot, underscore or hyphen, starting with a letter or digit, at most 64 characters';
      end if;
    elsif field = 'name' then
      if jsonb_typeof(value) <> 'string' or char_length(btrim(value #>> '{}')) not between 1 and 200 then
        problem := 'a string of 1 to 200 characters';
      end if;
    elsif field = 'is_active' then
      if jsonb_typeof(value) <> 'boolean' then
        problem := 'must be true or false';
      end if;
    elsif field = 'allocation' then
      if jsonb_typeof(value) <> 'string' or not value #>> '{}' = any (enum_range(null::public.stock_allocation)::text[]) then
        problem := private.one_of(enum_range(null::public.stock_allocation));
      end if;
    elsif field = 'reorder_level' then
      -- Two statements, so the cast never meets a value that is not a number.
      if jsonb_typeof(value) <> 'number' then
        problem := 'a whole number from 0 to 1000000000';
      elsif (value #>> '{}')::numeric not between 0 and 1000000000
            or (value #>> '{}')::numeric <> trunc((value #>> '{}')::numeric) then
        problem := 'a whole number from 0 to 1000000000';
      end if;
    else
      problem := 'unknown field';
    end if;
    if problem is not null then
      perform private.raise_api_error(400, 'VALIDATION_ERROR', format('Invalid %s: %s', field, problem),
        jsonb_build_object('field', field, 'value', value, 'constraint', problem));
    end if;
  end loop;
end
$$;


-- `product`: sku and name, optionally is_active (default true), reorder_level (default 10, the column's) and
-- allocation (default fifo).
create or replace function public.create_product(product jsonb)
returns public.products
language plpgsql set search_path = '' as $$
declare
  created public.products;
begin
  perform private.require_product_admin();
  perform private.check_product_fields(product, array['sku', 'name']);

  insert into public.products as p (sku, name, is_active, reorder_level, allocation)
  values (product ->> 'sku', btrim(product ->> 'name'), coalesce((product ->> 'is_active')::boolean, true),
          coalesce((product ->> 'reorder_level')::numeric::integer, 10), coalesce(product ->> 'allocation', 'fifo'))
  on conflict (sku) do nothing
  returning p.* into created;
  if not found then
    perform private.duplicate_sku(product ->> 'sku');
  end if;
  return created;
end
$$;


-- Only the keys present in `changes` are written. A deleted product is not found: it cannot be edited.
create or replace function public.update_product(product_id uuid, changes jsonb)
returns public.products
language plpgsql set search_path = '' as $$
declare
  updated public.products;
begin
  perform private.require_product_admin();
  perform private.check_product_fields(changes, array[]::text[]);
  if changes = '{}' then
    perform private.raise_api_error(400, 'VALIDATION_ERROR', 'the body must contain at least one field to change',
      jsonb_build_object('field', null, 'value', changes, 'constraint', 'the body must contain at least one field to change'));
  end if;

  begin
    update public.products p set
      sku = case when changes ? 'sku' then changes ->> 'sku' else p.sku end,
      name = case when changes ? 'name' then btrim(changes ->> 'name') else p.name end,
      is_active = case when changes ? 'is_active' then (changes ->> 'is_active')::boolean else p.is_active end,
      reorder_level = case when changes ? 'reorder_level' then (changes ->> 'reorder_level')::numeric::integer
                           else p.reorder_level end,
      allocation = case when changes ? 'allocation' then changes ->> 'allocation' else p.allocation end
    where p.id = update_product.product_id and p.deleted_at is null
    returning p.* into updated;
  exception when unique_violation then
    perform private.duplicate_sku(changes ->> 'sku');
  end;
  if updated.id is null then
    perform private.product_not_found(product_id);
  end if;
  return updated;
end
$$;


-- Soft delete: the row stays for the ledger and the orders that name it, hidden from customers, inactive,
-- and 404 to every stock operation from then on. So a product still holding stock is refused (422
-- PRODUCT_HAS_STOCK): its units would be stranded where no stock-out or adjustment can reach them. The
-- product row lock orders the check against concurrent stock changes.
create or replace function public.delete_product(product_id uuid)
returns public.products
language plpgsql set search_path = '' as $$
declare
  product public.products;
begin
  perform private.require_product_admin();

  select * into product
  from public.products p
  where p.id = delete_product.product_id and p.deleted_at is null
  for no key update;
  if not found then
    perform private.product_not_found(product_id);
  end if;
  if product.current_stock > 0 then
    perform private.raise_api_error(422, 'PRODUCT_HAS_STOCK',
      format('Product %s still holds %s units: stock them out or write them off first', product.sku,
        product.current_stock),
      jsonb_build_object('product_id', product.id, 'current_stock', product.current_stock));
  end if;

  update public.products p set deleted_at = private.now(), is_active = false
  where p.id = product.id
  returning p.* into product;
  return product;
end
$$;


alter type private.stock_in_line add attribute unit_cost numeric;

drop function private.check_lot(bigint, text, text, date, timestamptz, integer);

-- What one received lot says: its quantity, note, lot number, expiry and unit cost. An expiry is a store day
-- no earlier than the day the goods were received; a cost is TWD a unit, at most 2 decimals.
create or replace function private.check_lot(
  quantity bigint, note text, lot_number text, expires_on date, received_at timestamptz, line integer default null,
  unit_cost numeric default null
)
returns void
language plpgsql set search_path = '' as $$
begin
  perform private.check_stock_quantity('quantity', quantity, line);
  if unit_cost < 0 or unit_cost > 9999999999.99 or unit_cost <> round(unit_cost, 2) then
    perform private.invalid_stock_field('unit_cost', to_jsonb(unit_cost), 'from 0 to 9999999999.99 with at most 2 decimals',
      line);
  end if;
  if char_length(note) > 1000 then
    perform private.invalid_stock_field('note', to_jsonb(note), 'at most 1000 characters', line);
  end if;
  if char_length(lot_number) not between 1 and 64 or lot_number ~ '[[:cntrl:]]' or lot_number <> btrim(lot_number) then
    perform private.invalid_stock_field('lot_number', to_jsonb(lot_number),
      '1 to 64 characters, no control characters, no spaces at either end', line, 'format',
      jsonb_build_object('format', 'lot_number'));
  end if;
  if expires_on < private.store_day(coalesce(received_at, private.now())) then
    perform private.invalid_stock_field('expires_on', to_jsonb(expires_on),
      'not before the day the goods were received', line, 'not_before_received');
  end if;
end
$$;


drop function public.stock_in(uuid, bigint, text, text, timestamptz, text, text, date);

-- Opens a lot per line, for products the caller holds locked: the lots, their stock-in history entries, the
-- products' stock and the ledger rows (one operation), in one statement whatever the number of lines. The
-- delivery's note is a line's when it has none. Returns the answer's lines in their order, each with its
-- product's stock after it. One generic plan, kept: planning each call's own cost a single stock-in about
-- 0.3 ms more (1.31-1.35 against 1.00-1.06 ms a call, one after another, on the bench's data) and planned
-- no better for a delivery.
create or replace function private.receive_lots(
  lines private.stock_in_line[], source text, note text, received_at timestamptz, operator_id uuid, operator_role text
)
returns jsonb
language plpgsql set search_path = '' set plan_cache_mode = 'force_generic_plan' as $$
declare
  ledger_operation uuid := gen_random_uuid();
  answered jsonb;
begin
  with wanted as materialized (
    select l.*, gen_random_uuid() as lot_id from unnest(receive_lots.lines) l
  ), stocked as (
    update public.products p
    set current_stock = p.current_stock + s.quantity
    from (select w.product_id, sum(w.quantity) as quantity from wanted w group by w.product_id) s
    where p.id = s.product_id
    returning p.id, p.current_stock - s.quantity as stock_before
  ), received as (
    select w.*, st.stock_before + sum(w.quantity) over (partition by w.product_id order by w.index) as stock_after
    from wanted w join stocked st on st.id = w.product_id
  ), lots as (
    insert into public.inventory_records (id, product_id, quantity, available_quantity, source, note, received_at,
                                          lot_number, expires_on, created_by, created_by_role, unit_cost)
    select w.lot_id, w.product_id, w.quantity, w.quantity, receive_lots.source, coalesce(w.note, receive_lots.note),
           coalesce(receive_lots.received_at, private.now()), w.lot_number, w.expires_on, receive_lots.operator_id,
           receive_lots.operator_role, w.unit_cost
    from wanted w
    order by w.index
    returning *
  ), history as (
    insert into public.stock_in_history (inventory_record_id, product_id, quantity, source, note, received_at,
                                         operator_id, operator_role, lot_number, expires_on)
    select lot.id, lot.product_id, lot.quantity, lot.source, lot.note, lot.received_at, receive_lots.operator_id,
           receive_lots.operator_role, lot.lot_number, lot.expires_on
    from lots lot
  ), movements as (
    insert into public.stock_movements (operation_id, operation, product_id, inventory_record_id, delta, stock_before,
                                        stock_after, record_available_before, record_available_after, source,
                                        operator_id, operator_role)
    select ledger_operation, 'stock_in', x.product_id, x.lot_id, x.quantity, x.stock_after - x.quantity,
           x.stock_after, 0, x.quantity, receive_lots.source, receive_lots.operator_id, receive_lots.operator_role
    from received x
    order by x.index
  )
  select jsonb_agg(jsonb_build_object(
           'inventory_id', x.lot_id, 'product_id', x.product_id, 'quantity', x.quantity, 'lot_number', x.lot_number,
           'expires_on', x.expires_on, 'unit_cost', x.unit_cost, 'current_stock', x.stock_after) order by x.index)
  into answered
  from received x;
  return answered;
end
$$;


create or replace function public.stock_in(
  product_id uuid,
  quantity bigint,
  source text default 'manual_stock_in',
  note text default null,
  received_at timestamptz default null,
  idempotency_key text default null,
  lot_number text default null,
  expires_on date default null,
  unit_cost numeric default null
)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  operator record;
  replay jsonb;
  product public.products;
  received jsonb;
begin
  select * into operator from private.stock_operator();
  if product_id is null then
    perform private.invalid_stock_field('product_id', null, 'required');
  end if;
  perform private.check_lot(quantity, note, lot_number, expires_on, received_at, null, unit_cost);
  source := coalesce(source, 'manual_stock_in');
  perform private.check_delivery(source, null, received_at);

  -- A request without a lot hashes as it did before lots had numbers, so a retry across that change replays.
  replay := private.claim_idempotency_key(operator.operator_key, idempotency_key, 'stock_in', jsonb_build_object(
    'product_id', product_id, 'quantity', quantity, 'source', source, 'note', note, 'received_at', received_at)
    || jsonb_strip_nulls(jsonb_build_object('lot_number', lot_number, 'expires_on', expires_on, 'unit_cost', unit_cost)));
  if replay is not null then
    return replay;
  end if;

  product := private.lock_product(product_id);
  perform private.refuse_inactive(product);
  received := private.receive_lots(
    array[(0, product.id, quantity, lot_number, expires_on, note, unit_cost)::private.stock_in_line],
    source, null, received_at, operator.operator_id, operator.operator_role) -> 0;

  return private.remember_response(operator.operator_key, idempotency_key, jsonb_build_object(
    'success', true,
    'inventory_id', received -> 'inventory_id',
    'product_id', product.id,
    'quantity', quantity,
    'current_stock', received -> 'current_stock',
    'source', source,
    'received_at', private.api_timestamp(coalesce(received_at, private.now())),
    'lot_number', lot_number,
    'expires_on', expires_on,
    'unit_cost', unit_cost,
    'message', format('Stocked in %s units of %s; current stock %s', quantity, product.sku, received ->> 'current_stock')
  ));
end
$$;


-- Reads a delivery's `items` ([{product_id, quantity, lot_number?, expires_on?, note?, unit_cost?}], 1 to 200 lines),
-- refusing the first line that breaks a rule with the 400 the edge function's zod schema gives.
create or replace function private.read_stock_in_lines(items jsonb, received_at timestamptz)
returns private.stock_in_line[]
language plpgsql set search_path = '' as $$
declare
  item jsonb;
  position integer;
  field text;
  value jsonb;
  line private.stock_in_line;
  lines private.stock_in_line[] := '{}';
begin
  if jsonb_typeof(items) is distinct from 'array' or jsonb_array_length(items) not between 1 and 200 then
    perform private.invalid_stock_field('items', null, 'an array of 1 to 200 lines');
  end if;
  for item, position in select e.value, e.ordinality - 1 from jsonb_array_elements(items) with ordinality e loop
    if jsonb_typeof(item) <> 'object' then
      perform private.invalid_stock_field(null, item, 'must be an object', position);
    end if;
    for field, value in select j.key, j.value from jsonb_each(item) j loop
      if field not in ('product_id', 'quantity', 'lot_number', 'expires_on', 'note', 'unit_cost') then
        perform private.invalid_stock_field(field, value, 'unknown field', position);
      elsif field = 'product_id' and not (jsonb_typeof(value) = 'string' and pg_input_is_valid(value #>> '{}', 'uuid')) then
        perform private.invalid_stock_field(field, value, 'must be a UUID', position);
      elsif field in ('quantity', 'unit_cost') and jsonb_typeof(value) <> 'number' and not (field = 'unit_cost' and jsonb_typeof(value) = 'null') then
        perform private.invalid_stock_field(field, value, 'must be a number', position);
      elsif field = 'quantity' and ((value #>> '{}')::numeric not between 1 and 1000000000
                                    or (value #>> '{}')::numeric <> trunc((value #>> '{}')::numeric)) then
        perform private.invalid_stock_field(field, value, 'must be a whole number from 1 to 1000000000', position);
      elsif field = 'expires_on' and jsonb_typeof(value) <> 'null'
            and not (jsonb_typeof(value) = 'string' and value #>> '{}' ~ '^\d{4}-\d{2}-\d{2}$'
                     and value #>> '{}' !~ '^0000' and pg_input_is_valid(value #>> '{}', 'date')) then
        perform private.invalid_stock_field(field, value, 'must be a date YYYY-MM-DD', position);
      elsif field in ('lot_number', 'note') and jsonb_typeof(value) not in ('string', 'null') then
        perform private.invalid_stock_field(field, value, 'must be a string', position);
      end if;
    end loop;
    if not item ? 'product_id' then
      perform private.invalid_stock_field('product_id', null, 'required', position);
    end if;
    line := (position, (item ->> 'product_id')::uuid, (item ->> 'quantity')::numeric::bigint, item ->> 'lot_number',
             (item ->> 'expires_on')::date, item ->> 'note', (item ->> 'unit_cost')::numeric);
    perform private.check_lot(line.quantity, line.note, line.lot_number, line.expires_on, received_at, position,
      line.unit_cost);
    lines := lines || line;
  end loop;
  return lines;
end
$$;


-- One delivery of several products (POST /stock-in/batch): each line a lot, all or nothing. A line is
-- {product_id, quantity, lot_number?, expires_on?, note?, unit_cost?}; the delivery's note is a line's when it has
-- none. A refused line refuses the delivery, its index in `details.index`. The products are locked in
-- the order of their ids, whatever the order of the lines, so two deliveries of the same products never
-- deadlock.
create or replace function public.stock_in_batch(
  items jsonb,
  source text default 'manual_stock_in',
  note text default null,
  received_at timestamptz default null,
  idempotency_key text default null
)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  operator record;
  replay jsonb;
  lines private.stock_in_line[];
  line private.stock_in_line;
  product public.products;
  answered jsonb;
begin
  select * into operator from private.stock_operator();
  source := coalesce(source, 'manual_stock_in');
  perform private.check_delivery(source, note, received_at);
  lines := private.read_stock_in_lines(items, received_at);

  replay := private.claim_idempotency_key(operator.operator_key, idempotency_key, 'stock_in_batch', jsonb_strip_nulls(
    jsonb_build_object('items', items, 'source', source, 'note', note, 'received_at', received_at)));
  if replay is not null then
    return replay;
  end if;

  for product in
    select p.* from public.products p
    where p.id in (select l.product_id from unnest(lines) l) and p.deleted_at is null
    order by p.id
    for no key update
  loop
    perform private.refuse_inactive(product, (select min(l.index) from unnest(lines) l where l.product_id = product.id));
  end loop;
  select l.* into line
  from unnest(lines) l
  where not exists (select 1 from public.products p where p.id = l.product_id and p.deleted_at is null)
  order by l.index
  limit 1;
  if found then
    perform private.raise_api_error(404, 'PRODUCT_NOT_FOUND', format('Product %s does not exist', line.product_id),
      jsonb_build_object('product_id', line.product_id, 'index', line.index));
  end if;

  answered := private.receive_lots(lines, source, note, received_at, operator.operator_id, operator.operator_role);

  return private.remember_response(operator.operator_key, idempotency_key, jsonb_build_object(
    'success', true,
    'items', answered,
    'source', source,
    'received_at', private.api_timestamp(coalesce(received_at, private.now())),
    'message', format('Stocked in %s units in %s lots', (select sum(l.quantity) from unnest(lines) l), cardinality(lines))
  ));
end
$$;


revoke execute on function private.check_lot(bigint, text, text, date, timestamptz, integer, numeric)
  from public, anon, authenticated, service_role;

revoke execute on function public.stock_in(uuid, bigint, text, text, timestamptz, text, text, date, numeric) from public, anon;

grant execute on function public.stock_in(uuid, bigint, text, text, timestamptz, text, text, date, numeric)
  to authenticated, service_role;

drop index public.stock_movements_stock_out_idx;

-- Business health's products dimension reads a window's goods gone out (stock-outs and sales) once,
-- through an index that holds only them, instead of probing each product's whole ledger.
create index stock_movements_outbound_idx
  on public.stock_movements (created_at) include (product_id)
  where operation in ('stock_out', 'sale');


-- The products dimension's figures: active products (active, not deleted, created before `as_of`), the
-- share of them in stock (some free to sell: available_stock, on hand less what open orders hold), and the
-- share that sold in the window: an order's line shipped (a `sale` movement) or a stock-out booked.
-- Stock is read as it is now, also for a past `as_of`, because lots written outside the stock functions
-- leave no ledger to rewind.
create or replace function private.health_product_figures(as_of timestamptz, days integer)
returns table (products bigint, in_stock_share numeric, sold_share numeric)
language plpgsql stable set search_path = '' as $$
begin
  return query
  with active as (
    select p.id, p.available_stock
    from public.products p
    where p.is_active and p.deleted_at is null and p.created_at < as_of
  ),
  sold as (
    select distinct m.product_id
    from public.stock_movements m
    where m.operation in ('stock_out', 'sale')
      and m.created_at >= as_of - make_interval(hours => 24 * days) and m.created_at < as_of
  )
  select count(*),
         (count(*) filter (where a.available_stock > 0))::numeric / nullif(count(*), 0),
         (count(*) filter (where s.product_id is not null))::numeric / nullif(count(*), 0)
  from active a
  left join sold s on s.product_id = a.id;
end
$$;


-- The figures behind a report's scores, for the staff (the report itself carries scores only, CONTRACT
-- §3B): for the window of `days` days ending at `as_of` (`current`) and the one before it (`previous`),
-- each as it stood at its end, so each equals the orders list's summary of its window at that moment:
-- counted revenue and orders (not refunded, not cancelled by then), orders placed, completed and
-- cancelled by then, refunded (the rest: every order placed is exactly one of counted, cancelled by then and
-- refunded, so placed = counted + cancelled + refunded), average order value, active customers (a counted order in the window: the RFM
-- population), new customers (created in the window), tickets opened in it and resolved by then.
create or replace function private.health_period_figures(as_of timestamptz, days integer)
returns jsonb
language plpgsql stable set search_path = '' as $$
begin
  return (
    select jsonb_object_agg(p.name, jsonb_build_object(
             'from', private.api_timestamp(p.at - make_interval(hours => 24 * days)), 'before', private.api_timestamp(p.at),
             'revenue', o.revenue, 'counted_orders', o.revenue_orders, 'orders', o.orders,
             'completed', o.completed, 'cancelled', o.cancelled, 'refunded', o.orders - o.revenue_orders - o.cancelled,
             'average_order_value', round(o.revenue / nullif(o.revenue_orders, 0), 2),
             'active_customers', c.customers,
             'new_customers', (select count(*) from public.customers u
                               where u.created_at >= p.at - make_interval(hours => 24 * days) and u.created_at < p.at),
             'tickets_opened', t.tickets, 'tickets_resolved', t.resolved,
             'goods', jsonb_build_object('orders', g.orders, 'revenue', g.revenue, 'cost', g.cost,
                                         'margin', g.revenue - g.cost)))
    from (values ('current', as_of), ('previous', as_of - make_interval(hours => 24 * days))) p(name, at)
    cross join lateral private.health_window_order_figures(p.at, days) o
    cross join lateral private.health_window_customer_figures(p.at, days) c
    cross join lateral private.health_ticket_figures(p.at, days) t
    -- The window's shipped orders of known cost (30_inventory/50_order_goods.sql), as they stand now.
    cross join lateral (
      select count(*) as orders, coalesce(sum(s.total_amount), 0) as revenue, coalesce(sum(s.goods_cost), 0) as cost
      from private.shipped_order_costs s
      where s.ordered_at >= p.at - make_interval(hours => 24 * days) and s.ordered_at < p.at
    ) g
  );
end
$$;

-- An order's goods (CONTRACT §4, docs/inventory.md "Orders and stock"): its lines, what they hold of the
-- stock, and the lots they were drawn from. Three stock states per product: on hand (`current_stock`, the
-- lots), reserved (`reserved_stock`, what open orders' lines hold) and available (on hand less reserved).
--   * placing an order (public.place_order) reserves its lines;
--   * its status moves the goods, whoever updates it (the trigger below): shipped draws each line from the
--     lots and releases the reservation, cancelled (or refunded) before shipping releases it, refunded after
--     shipping puts the goods back into their lots when `restocked`;
--   * `products.reserved_stock <= current_stock` is a CHECK, so nothing is oversold under any concurrency:
--     the product row is the one place every order of it meets.
-- Orders stored without lines (before lines existed, or written by a job as an amount) move no goods and
-- keep their `item_count`. Lines are written only by public.place_order (55_order_writes.sql): no API role
-- may write them directly.

-- An open order holds its goods; a shipped one has drawn them.
create table public.order_lines (
  id uuid primary key default gen_random_uuid(),
  -- An order with goods is never deleted: cancelled or refunded, it keeps the trail of what it moved.
  order_id uuid not null references public.orders (id) on delete restrict,
  -- The line's place in the order, from 1.
  line_number smallint not null constraint order_lines_line_number_range check (line_number between 1 and 200),
  product_id uuid not null references public.products (id) on delete restrict,
  quantity integer not null constraint order_lines_quantity_range check (quantity between 1 and 1000000),
  -- TWD a unit, as sold.
  unit_price numeric(12, 2) not null constraint order_lines_unit_price_not_negative check (unit_price >= 0),
  amount numeric(12, 2) generated always as (quantity * unit_price) stored,
  constraint order_lines_line_number_unique unique (order_id, line_number)
);

create index order_lines_product_idx on public.order_lines (product_id);

-- What a shipped line drew from each lot, at the lot's cost then; `returned_quantity` of it came back
-- with a refund. The recall question "who received lot L?" reads it by lot.
create table public.order_line_lots (
  order_line_id uuid not null references public.order_lines (id) on delete restrict,
  inventory_record_id uuid not null references public.inventory_records (id) on delete restrict,
  quantity integer not null constraint order_line_lots_quantity_positive check (quantity > 0),
  unit_cost numeric(12, 2),
  returned_quantity integer not null default 0
    constraint order_line_lots_returned_within_drawn check (returned_quantity between 0 and quantity),
  primary key (order_line_id, inventory_record_id)
);

create index order_line_lots_lot_idx on public.order_line_lots (inventory_record_id);

alter table public.order_lines enable row level security;

alter table public.order_line_lots enable row level security;

create policy "customers see their order lines, admins see all" on public.order_lines
  for select to authenticated
  using (
    (select private.is_admin())
    or order_id in (select o.id from public.orders o
                    join public.customers c on c.id = o.customer_id
                    where c.user_id = (select auth.uid()))
  );

create policy "admins see the lots orders drew" on public.order_line_lots
  for select to authenticated
  using ((select private.is_admin()));

revoke all on public.order_lines, public.order_line_lots from anon;

revoke insert, update, delete, truncate on public.order_lines, public.order_line_lots from authenticated, service_role;

grant select on public.order_lines, public.order_line_lots to authenticated, service_role;

-- The moves an order with goods may make, each with what it does to them: the one table the status trigger
-- enforces and the console offers buttons from. Orders without lines are not held to it.
create or replace view public.order_status_moves with (security_invoker = true) as
select m.from_status::public.order_status as from_status, m.to_status::public.order_status as to_status,
       m.goods
from (values
  ('pending', 'paid', 'none'),
  ('pending', 'shipped', 'draw'),
  ('pending', 'cancelled', 'release'),
  ('paid', 'shipped', 'draw'),
  ('paid', 'cancelled', 'release'),
  ('paid', 'refunded', 'release'),
  ('shipped', 'delivered', 'none'),
  ('shipped', 'completed', 'none'),
  ('shipped', 'refunded', 'return'),
  ('delivered', 'completed', 'none'),
  ('delivered', 'refunded', 'return'),
  ('completed', 'refunded', 'return')
) m (from_status, to_status, goods);

revoke all on public.order_status_moves from anon;

revoke insert, update, delete, truncate on public.order_status_moves from authenticated, service_role;

grant select on public.order_status_moves to authenticated, service_role;

-- Who moves an order's goods, for the ledger: the caller of the request, or, for a job connected to the
-- database itself (no request, so no JWT), the store's job, as the service key is recorded.
create or replace function private.goods_operator(out operator_id uuid, out operator_role text)
language sql stable set search_path = '' as $$
  select case when auth.role() = 'authenticated' then auth.uid() end,
         case when auth.role() = 'authenticated' and auth.uid() is not null then 'authenticated' else 'service_role' end
$$;

-- Locks the products of an order's lines in the order of their ids, the stock functions' lock order.
create or replace function private.lock_order_products(order_id uuid)
returns void
language plpgsql set search_path = '' as $$
begin
  perform from public.products p
  where p.id in (select l.product_id from public.order_lines l where l.order_id = lock_order_products.order_id)
  order by p.id
  for no key update of p;
end
$$;

-- Gives back what an open order's lines hold. The caller holds the products' locks.
create or replace function private.release_order_goods(order_id uuid)
returns void
language sql set search_path = '' as $$
  update public.products p
  set reserved_stock = p.reserved_stock - l.quantity
  from (select l.product_id, sum(l.quantity) as quantity
        from public.order_lines l where l.order_id = release_order_goods.order_id
        group by l.product_id) l
  where p.id = l.product_id
$$;

-- Draws each line of an order from its product's lots (one ledger operation, the order's id its
-- reference) and records what each line drew. Only lots not expired on the store day of shipping are
-- drawn: when those fall short, 422 EXPIRED_STOCK names the line and nothing is drawn. The caller holds the
-- products' locks and has released the reservation.
create or replace function private.ship_order_goods(order_id uuid)
returns void
language plpgsql set search_path = '' as $$
declare
  operator record;
  operation uuid := gen_random_uuid();
  today date := private.store_day(private.now());
  line record;
  drawn jsonb;
begin
  select * into operator from private.goods_operator();
  for line in
    select l.id, l.line_number, l.product_id, l.quantity, p.allocation,
           (select coalesce(sum(r.available_quantity), 0) from public.inventory_records r
            where r.product_id = l.product_id and r.available_quantity > 0
              and (r.expires_on is null or r.expires_on >= today)) as sellable,
           sum(l.quantity) over (partition by l.product_id order by l.line_number) as wanted
    from public.order_lines l
    join public.products p on p.id = l.product_id
    where l.order_id = ship_order_goods.order_id
    order by l.product_id, l.line_number
  loop
    if line.sellable < line.wanted then
      perform private.raise_api_error(422, 'EXPIRED_STOCK',
        format('Only %s units of line %s can ship: the rest of the stock is past its expiry', line.sellable,
          line.line_number),
        jsonb_build_object('order_id', order_id, 'index', line.line_number - 1, 'product_id', line.product_id,
          'requested', line.quantity, 'available', greatest(line.sellable - (line.wanted - line.quantity), 0)));
    end if;
    drawn := private.draw_lots(line.product_id, line.quantity, operation, 'sale',
      jsonb_build_object('reference', order_id::text), operator.operator_id, operator.operator_role, today,
      line.allocation = 'fefo');
    insert into public.order_line_lots (order_line_id, inventory_record_id, quantity, unit_cost)
    select line.id, r.id, (d ->> 'quantity')::integer, r.unit_cost
    from jsonb_array_elements(drawn) d
    join public.inventory_records r on r.id = (d ->> 'inventory_id')::uuid;
  end loop;
end
$$;

-- What an order's drawn goods cost: each unit at its lot's cost (FIFO costing), null when a lot drawn has no
-- cost. The one rule for an order's cost: the order's page reads it, and shipping keeps it for the figures.
create or replace function private.drawn_cost(order_id uuid)
returns numeric
language sql stable set search_path = '' as $$
  select case when bool_and(d.unit_cost is not null) then sum(d.quantity * d.unit_cost) end
  from public.order_line_lots d
  join public.order_lines l on l.id = d.order_line_id
  where l.order_id = drawn_cost.order_id
$$;

-- The shipped orders whose goods' cost is known, with what they came to, while they count as revenue: the
-- figures route sums a window's cost and margin from here (health.business_figures), by when the orders
-- were placed, without reading their lines. Written by the status trigger alone: a row when an order ships
-- with a known cost, gone when it is refunded (an order with goods is never cancelled after shipping).
create table private.shipped_order_costs (
  order_id uuid primary key references public.orders (id) on delete cascade,
  ordered_at timestamptz not null,
  total_amount numeric(12, 2) not null,
  goods_cost numeric(14, 2) not null
);

create index shipped_order_costs_ordered_at_idx on private.shipped_order_costs (ordered_at) include (total_amount, goods_cost);

alter table private.shipped_order_costs enable row level security;

create policy "admins read shipped order costs" on private.shipped_order_costs
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.shipped_order_costs from public, anon, authenticated, service_role;

-- Puts a refunded order's drawn goods back into the lots they came from (one ledger operation). The
-- caller holds the products' locks.
create or replace function private.restock_order_goods(order_id uuid)
returns void
language plpgsql set search_path = '' as $$
declare
  operator record;
  operation uuid := gen_random_uuid();
  drawn record;
  lot public.inventory_records;
begin
  select * into operator from private.goods_operator();
  for drawn in
    select d.order_line_id, d.inventory_record_id, d.quantity - d.returned_quantity as quantity
    from public.order_line_lots d
    join public.order_lines l on l.id = d.order_line_id
    where l.order_id = restock_order_goods.order_id and d.returned_quantity < d.quantity
    order by l.product_id, d.inventory_record_id
  loop
    update public.inventory_records r
    set available_quantity = r.available_quantity + drawn.quantity
    where r.id = drawn.inventory_record_id
    returning r.* into lot;
    perform private.log_movement(operation, 'sale_return', lot, drawn.quantity,
      jsonb_build_object('reference', order_id::text), operator.operator_id, operator.operator_role);
    update public.order_line_lots d
    set returned_quantity = d.quantity
    where d.order_line_id = drawn.order_line_id and d.inventory_record_id = drawn.inventory_record_id;
  end loop;
end
$$;

-- The status trigger: an order with lines moves only as public.order_status_moves allows (422
-- INVALID_STATUS_TRANSITION otherwise, nothing changed), and its goods move with it, in the updating
-- transaction, whoever updates it. The order's row lock (taken by the update) serialises moves of one
-- order: of a ship and a cancel racing, the second sees the first's status and is refused.
create or replace function private.move_order_goods()
returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  goods text;
begin
  if not exists (select 1 from public.order_lines l where l.order_id = new.id) then
    return new;
  end if;
  select m.goods into goods
  from public.order_status_moves m
  where m.from_status::text = old.status and m.to_status::text = new.status;
  if goods is null then
    perform private.raise_api_error(422, 'INVALID_STATUS_TRANSITION',
      format('An order that is %s cannot become %s', old.status, new.status),
      jsonb_build_object('order_id', new.id, 'from', old.status, 'to', new.status,
        'allowed', (select coalesce(jsonb_agg(m.to_status order by m.to_status), '[]')
                    from public.order_status_moves m where m.from_status::text = old.status)));
  end if;
  if new.status = 'refunded' then
    new.restocked := case when goods = 'return' then coalesce(new.restocked, false) end;
    -- A refunded order is never revenue again, so its margin leaves the figures.
    delete from private.shipped_order_costs c where c.order_id = new.id;
  end if;
  if goods = 'none' or (goods = 'return' and not new.restocked) then
    return new;
  end if;
  perform private.lock_order_products(new.id);
  if goods in ('draw', 'release') then
    perform private.release_order_goods(new.id);
  end if;
  if goods = 'draw' then
    perform private.ship_order_goods(new.id);
    insert into private.shipped_order_costs (order_id, ordered_at, total_amount, goods_cost)
    select new.id, new.ordered_at, new.total_amount, c.cost
    from (select private.drawn_cost(new.id) as cost) c
    where c.cost is not null;
  elsif goods = 'return' then
    perform private.restock_order_goods(new.id);
  end if;
  return new;
end
$$;

-- Row level, and only when the status changes: other order writes (the checkout's insert, a payment time)
-- never run it.
create trigger orders_move_goods
  before update of status on public.orders
  for each row
  when (old.status is distinct from new.status)
  execute function private.move_order_goods();

revoke execute on function
  private.goods_operator(), private.lock_order_products(uuid), private.release_order_goods(uuid),
  private.ship_order_goods(uuid), private.restock_order_goods(uuid), private.move_order_goods()
from public, anon, authenticated, service_role;

revoke execute on function private.drawn_cost(uuid) from public, anon;

grant execute on function private.drawn_cost(uuid) to authenticated, service_role;

-- Orders written with their goods (CONTRACT §4, docs/inventory.md "Orders and stock"): placing an order of
-- lines (public.place_order), which reserves them, and moving its status (public.update_order_status),
-- which the status trigger of 50_order_goods.sql turns into stock moves; the answers both give; a
-- product's units sold. Security definer where they write: no API role writes an order's lines.

-- The most an order may come to (orders.total_amount, numeric(12, 2)).
create or replace function private.max_order_total()
returns numeric
language sql immutable set search_path = '' as $$
  select 9999999999.99::numeric
$$;

-- An order's line as read and checked from its JSON; `index` is its place in the request, from 0.
create type private.order_line_input as (index integer, product_id uuid, quantity integer, unit_price numeric);

-- Reads an order's `lines` ([{product_id, quantity, unit_price}], 1 to 200), refusing the first line that
-- breaks a rule with the 400 the edge function's zod schema gives (`lines.<index>.<field>`).
create or replace function private.read_order_lines(lines jsonb)
returns private.order_line_input[]
language plpgsql set search_path = '' as $$
declare
  item jsonb;
  position integer;
  field text;
  value jsonb;
  problem text;
  read private.order_line_input[] := '{}';
begin
  if jsonb_typeof(lines) is distinct from 'array' or jsonb_array_length(lines) not between 1 and 200 then
    perform private.invalid_stock_field('lines', lines, 'an array of 1 to 200 lines');
  end if;
  for item, position in select e.value, e.ordinality - 1 from jsonb_array_elements(lines) with ordinality e loop
    if jsonb_typeof(item) <> 'object' then
      perform private.invalid_stock_field(concat_ws('.', 'lines', position), item, 'must be an object');
    end if;
    foreach field in array array['product_id', 'quantity', 'unit_price'] loop
      if not item ? field then
        perform private.invalid_stock_field(concat_ws('.', 'lines', position, field), null, 'required');
      end if;
    end loop;
    for field, value in select j.key, j.value from jsonb_each(item) j loop
      problem := case
        when field not in ('product_id', 'quantity', 'unit_price') then 'unknown field'
        when field = 'product_id' and not (jsonb_typeof(value) = 'string' and pg_input_is_valid(value #>> '{}', 'uuid'))
          then 'must be a UUID'
        when field <> 'product_id' and jsonb_typeof(value) <> 'number' then 'must be a number'
        when field = 'quantity' and ((value #>> '{}')::numeric not between 1 and 1000000
                                     or (value #>> '{}')::numeric <> trunc((value #>> '{}')::numeric))
          then 'must be a whole number from 1 to 1000000'
        when field = 'unit_price' and ((value #>> '{}')::numeric not between 0 and private.max_order_total()
                                       or (value #>> '{}')::numeric <> round((value #>> '{}')::numeric, 2))
          then 'must be from 0 to 9999999999.99 with at most 2 decimals'
      end;
      if problem is not null then
        perform private.invalid_stock_field(concat_ws('.', 'lines', position, field), value, problem);
      end if;
    end loop;
    read := read || ((position, (item ->> 'product_id')::uuid, (item ->> 'quantity')::numeric::integer,
                      (item ->> 'unit_price')::numeric)::private.order_line_input);
  end loop;
  if (select sum(l.quantity * l.unit_price) from unnest(read) l) > private.max_order_total() then
    perform private.invalid_stock_field('lines', null, 'the order may come to at most 9999999999.99');
  end if;
  return read;
end
$$;

-- Placing and moving orders is for administrators and the store's jobs (the service key).
create or replace function private.require_order_writer()
returns record
language plpgsql stable set search_path = '' as $$
declare
  operator record;
begin
  select * into operator from private.stock_operator();
  if operator.operator_role <> 'service_role' and not private.is_admin() then
    perform private.raise_api_error(403, 'FORBIDDEN', 'Administrator permission is required to place or change orders');
  end if;
  return operator;
end
$$;

-- An order's goods as the answers show them: its lines in order, each with its product's SKU and name, the
-- lots it drew (a shipped line) and its cost where every lot drawn has one, and the order's cost
-- (private.drawn_cost) and margin (null: unknown, or not shipped yet). As the caller: a customer reading their
-- own order sees its lines, not the lots or the costs.
create or replace function private.order_goods(order_id uuid)
returns jsonb
language sql stable set search_path = '' as $$
  with lines as (
    select l.id, l.line_number, l.product_id, p.sku, p.name, l.quantity, l.unit_price, l.amount,
           coalesce(d.lots, '[]') as lots, d.cost
    from public.order_lines l
    left join public.products p on p.id = l.product_id
    left join lateral (
      select jsonb_agg(jsonb_build_object('inventory_id', x.inventory_record_id, 'lot_number', r.lot_number,
               'expires_on', r.expires_on, 'quantity', x.quantity, 'returned_quantity', x.returned_quantity,
               'unit_cost', x.unit_cost) order by r.received_at, r.created_at, r.id) as lots,
             case when bool_and(x.unit_cost is not null) then sum(x.quantity * x.unit_cost) end as cost
      from public.order_line_lots x
      left join public.inventory_records r on r.id = x.inventory_record_id
      where x.order_line_id = l.id
    ) d on true
    where l.order_id = order_goods.order_id
  )
  select jsonb_build_object(
    'lines', coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'line_number', x.line_number,
               'product_id', x.product_id, 'sku', x.sku, 'name', x.name, 'quantity', x.quantity,
               'unit_price', x.unit_price, 'amount', x.amount, 'lots', x.lots, 'cost', x.cost,
               'margin', x.amount - x.cost) order by x.line_number) filter (where x.id is not null), '[]'),
    'cost', c.cost,
    'margin', sum(x.amount) - c.cost)
  from (select private.drawn_cost(order_goods.order_id) as cost) c
  left join lines x on true
  group by c.cost
$$;

-- An order's own fields as the answers give them, instants as every answer writes them (private.api_timestamp).
create or replace function private.order_fields(o public.orders)
returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'id', o.id, 'customer_id', o.customer_id, 'status', o.status, 'total_amount', o.total_amount,
    'item_count', o.item_count, 'ordered_at', private.api_timestamp(o.ordered_at), 'order_date', o.order_date,
    'promised_at', private.api_timestamp(o.promised_at), 'shipped_at', private.api_timestamp(o.shipped_at),
    'delivered_at', private.api_timestamp(o.delivered_at), 'completed_at', private.api_timestamp(o.completed_at),
    'cancelled_at', private.api_timestamp(o.cancelled_at), 'updated_at', private.api_timestamp(o.updated_at),
    'paid_at', private.api_timestamp(o.paid_at), 'refunded_at', private.api_timestamp(o.refunded_at),
    'restocked', o.restocked)
$$;

-- An order with its goods, as PATCH /orders answers it (GET /orders/:id adds its customer and timeline).
create or replace function private.order_answer(order_id uuid)
returns jsonb
language sql stable set search_path = '' as $$
  select private.order_fields(o) || private.order_goods(o.id)
  from public.orders o
  where o.id = order_answer.order_id
$$;

-- The advisory lock space of the products' order queues (private.reserve_order_goods): one number, so no
-- other use of advisory locks can share a queue with them.
create or replace function private.stock_queue()
returns integer
language sql immutable set search_path = '' as $$
  select 4101
$$;

-- Reserves a new order's lines, or refuses the first line whose product is deleted (404), inactive (422
-- PRODUCT_INACTIVE) or has less available than the line asks after the order's earlier lines of it (422
-- INSUFFICIENT_STOCK). Under the products' locks, taken here in the order of their ids.
create or replace function private.reserve_order_goods(wanted private.order_line_input[])
returns void
language plpgsql set search_path = '' as $$
declare
  refused record;
  product uuid;
  products integer := 0;
  reserved uuid[];
begin
  -- The orders of one product queue for it, each granted in turn as the one before commits (a transaction
  -- advisory lock: PostgreSQL's lock queue wakes the next waiter only), rather than all waking at every
  -- commit to race for its row. A flash sale's 32 writers on one product then pass at the pace of its
  -- commits instead of a herd's; the row lock below is then almost always free.
  for product in select distinct l.product_id from unnest(wanted) l order by 1 loop
    perform pg_catalog.pg_advisory_xact_lock(private.stock_queue(), pg_catalog.hashtext(product::text));
    products := products + 1;
  end loop;
  perform from public.products p
  where p.id in (select l.product_id from unnest(wanted) l)
  order by p.id
  for no key update of p;
  -- Every product live, on sale and with enough available: the reservation, in one statement.
  with done as (
    update public.products p
    set reserved_stock = p.reserved_stock + s.quantity
    from (select l.product_id, sum(l.quantity) as quantity from unnest(wanted) l group by l.product_id) s
    where p.id = s.product_id and p.deleted_at is null and p.is_active and p.available_stock >= s.quantity
    returning p.id
  )
  select coalesce(array_agg(done.id), '{}') into reserved from done;
  if cardinality(reserved) = products then
    return;
  end if;
  -- Otherwise the first line of a product not reserved says why (what was reserved is rolled back with it).
  select l.index, l.product_id, l.quantity, p.sku, p.is_active, p.deleted_at,
         greatest(p.available_stock - l.earlier, 0) as available
  into refused
  from (select l.*, coalesce(sum(l.quantity) over (partition by l.product_id order by l.index
                                                   rows between unbounded preceding and 1 preceding), 0) as earlier
        from unnest(wanted) l) l
  join public.products p on p.id = l.product_id
  where not p.id = any(reserved)
    and (p.deleted_at is not null or not p.is_active or p.available_stock < l.earlier + l.quantity)
  order by l.index
  limit 1;
  if refused.deleted_at is not null then
    perform private.raise_api_error(404, 'PRODUCT_NOT_FOUND', format('Product %s does not exist', refused.product_id),
      jsonb_build_object('product_id', refused.product_id, 'index', refused.index));
  elsif not refused.is_active then
    perform private.raise_api_error(422, 'PRODUCT_INACTIVE', format('Product %s is inactive and not for sale', refused.sku),
      jsonb_build_object('product_id', refused.product_id, 'index', refused.index));
  end if;
  perform private.raise_api_error(422, 'INSUFFICIENT_STOCK',
    format('Insufficient stock on line %s: %s requested, %s available', refused.index + 1, refused.quantity,
      refused.available),
    jsonb_build_object('product_id', refused.product_id, 'index', refused.index, 'requested', refused.quantity,
      'available', refused.available));
end
$$;

-- Places an order of lines (POST /orders, or supabase.rpc by the store's jobs): the order, its lines and
-- their reservations, all or nothing. `lines` is [{product_id, quantity, unit_price}]; the total is their
-- sum and item_count their quantities. Refusals: 400 (a field, naming the line), 404 CUSTOMER_NOT_FOUND,
-- 404 PRODUCT_NOT_FOUND and 422 PRODUCT_INACTIVE (with the line's `index`), 422 INSUFFICIENT_STOCK (the
-- line whose quantity is more than is available, with `requested` and `available`). The products are
-- locked last, in the order of their ids, so the lock every order of a product meets is held only from
-- the reservation to the commit.
create or replace function public.place_order(
  customer_id uuid,
  lines jsonb,
  status text default 'pending',
  ordered_at timestamptz default null,
  idempotency_key text default null
)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  operator record;
  replay jsonb;
  wanted private.order_line_input[];
  placed public.orders;
  refused record;
  answer jsonb;
begin
  operator := private.require_order_writer();
  if customer_id is null then
    perform private.invalid_stock_field('customer_id', null, 'required');
  end if;
  status := coalesce(status, 'pending');
  if status not in ('pending', 'paid') then
    perform private.invalid_stock_field('status', to_jsonb(status), 'must be one of pending, paid');
  end if;
  if ordered_at > private.now() + interval '5 minutes' then
    perform private.invalid_stock_field('ordered_at', to_jsonb(private.api_timestamp(ordered_at)),
      'not later than 5 minutes from now', null, 'not_future', jsonb_build_object('minutes', 5));
  end if;
  wanted := private.read_order_lines(lines);

  replay := private.claim_idempotency_key(operator.operator_key, idempotency_key, 'place_order', jsonb_strip_nulls(
    jsonb_build_object('customer_id', customer_id, 'lines', lines, 'status', status, 'ordered_at', ordered_at)));
  if replay is not null then
    return replay;
  end if;

  if not exists (select 1 from public.customers c where c.id = place_order.customer_id) then
    perform private.raise_api_error(404, 'CUSTOMER_NOT_FOUND', format('Customer %s does not exist', customer_id),
      jsonb_build_object('customer_id', customer_id));
  end if;
  select l.index, l.product_id into refused
  from unnest(wanted) l
  where not exists (select 1 from public.products p where p.id = l.product_id and p.deleted_at is null)
  order by l.index limit 1;
  if found then
    perform private.raise_api_error(404, 'PRODUCT_NOT_FOUND', format('Product %s does not exist', refused.product_id),
      jsonb_build_object('product_id', refused.product_id, 'index', refused.index));
  end if;

  insert into public.orders (customer_id, status, total_amount, item_count, ordered_at, paid_at)
  select place_order.customer_id, place_order.status, sum(l.quantity * l.unit_price), sum(l.quantity),
         coalesce(place_order.ordered_at, private.now()),
         case when place_order.status = 'paid' then coalesce(place_order.ordered_at, private.now()) end
  from unnest(wanted) l
  returning * into placed;
  -- The lines, and the answer from them as private.order_goods gives a new order's (nothing drawn, no cost
  -- yet), without reading them back: that was half of what placing an order cost. Built before the
  -- reservation, so the products' locks are held only for the reservation itself and the commit, the
  -- stretch every order of a product waits through in turn.
  with lines as (
    insert into public.order_lines (order_id, line_number, product_id, quantity, unit_price)
    select placed.id, l.index + 1, l.product_id, l.quantity, l.unit_price
    from unnest(wanted) l
    returning *
  )
  select jsonb_build_object('success', true, 'data', private.order_fields(placed) || jsonb_build_object(
           'lines', jsonb_agg(jsonb_build_object('id', x.id, 'line_number', x.line_number,
                      'product_id', x.product_id, 'sku', p.sku, 'name', p.name, 'quantity', x.quantity,
                      'unit_price', x.unit_price, 'amount', x.amount, 'lots', '[]'::jsonb, 'cost', null,
                      'margin', null) order by x.line_number),
           'cost', null, 'margin', null))
  into answer
  from lines x
  join public.products p on p.id = x.product_id;

  perform private.reserve_order_goods(wanted);

  return private.remember_response(operator.operator_key, idempotency_key, answer);
end
$$;

-- Moves an order to `status` (PATCH /orders/:id, or supabase.rpc): as public.order_status_moves allows,
-- stamping the move's time (shipped_at, cancelled_at, ...) unless the order records one already; the
-- goods move with it (the status trigger). `restock` says whether a refund after shipping puts the goods
-- back (default: no, they stay out). Refusals: 400, 404 ORDER_NOT_FOUND, 422 INVALID_STATUS_TRANSITION
-- (with the moves allowed), 422 EXPIRED_STOCK (shipping).
create or replace function public.update_order_status(order_id uuid, status text, restock boolean default null)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  current public.orders;
  stamp timestamptz := private.now();
begin
  perform private.require_order_writer();
  if not status = any (enum_range(null::public.order_status)::text[]) then
    perform private.invalid_stock_field('status', to_jsonb(status), private.one_of(enum_range(null::public.order_status)));
  end if;
  if restock is not null and status <> 'refunded' then
    perform private.invalid_stock_field('restock', to_jsonb(restock), 'only with status refunded');
  end if;
  select * into current from public.orders o where o.id = update_order_status.order_id for no key update;
  if not found then
    perform private.raise_api_error(404, 'ORDER_NOT_FOUND', format('Order %s does not exist', order_id),
      jsonb_build_object('order_id', order_id));
  end if;
  if not exists (select 1 from public.order_status_moves m
                 where m.from_status::text = current.status and m.to_status::text = update_order_status.status) then
    perform private.raise_api_error(422, 'INVALID_STATUS_TRANSITION',
      format('An order that is %s cannot become %s', current.status, status),
      jsonb_build_object('order_id', order_id, 'from', current.status, 'to', status,
        'allowed', (select coalesce(jsonb_agg(m.to_status order by m.to_status), '[]')
                    from public.order_status_moves m where m.from_status::text = current.status)));
  end if;
  update public.orders o set
    status = update_order_status.status,
    paid_at = case when update_order_status.status = 'paid' then coalesce(o.paid_at, stamp) else o.paid_at end,
    shipped_at = case when update_order_status.status = 'shipped' then coalesce(o.shipped_at, stamp) else o.shipped_at end,
    delivered_at = case when update_order_status.status = 'delivered' then coalesce(o.delivered_at, stamp)
                        else o.delivered_at end,
    completed_at = case when update_order_status.status = 'completed' then coalesce(o.completed_at, stamp)
                        else o.completed_at end,
    cancelled_at = case when update_order_status.status = 'cancelled' then coalesce(o.cancelled_at, stamp)
                        else o.cancelled_at end,
    refunded_at = case when update_order_status.status = 'refunded' then coalesce(o.refunded_at, stamp)
                       else o.refunded_at end,
    restocked = case when update_order_status.status = 'refunded' then restock end
  where o.id = update_order_status.order_id;
  return jsonb_build_object('success', true, 'data', private.order_answer(order_id));
end
$$;

revoke execute on function
  private.max_order_total(), private.read_order_lines(jsonb), private.require_order_writer(),
  private.order_answer(uuid), private.order_fields(public.orders), private.stock_queue(),
  private.reserve_order_goods(private.order_line_input[])
from public, anon, authenticated, service_role;

revoke execute on function private.order_goods(uuid) from public, anon;

grant execute on function private.order_goods(uuid) to authenticated, service_role;

revoke execute on function
  public.place_order(uuid, jsonb, text, timestamptz, text), public.update_order_status(uuid, text, boolean)
from public, anon;

grant execute on function
  public.place_order(uuid, jsonb, text, timestamptz, text), public.update_order_status(uuid, text, boolean)
to authenticated, service_role;

-- Units of a product sold, shipped less returned, in the last `days` store days, today's so far included:
-- the product page's figure. Security definer: the ledger's rows are each operator's own to read, the
-- product's sales are not.
create or replace function private.units_sold(product_id uuid, days integer)
returns bigint
language sql stable security definer set search_path = '' as $$
  select coalesce(-sum(m.delta), 0)::bigint
  from public.stock_movements m
  where m.product_id = units_sold.product_id and m.operation in ('sale', 'sale_return')
    and m.created_at >= private.store_day_start(private.store_today() - (days - 1))
$$;

revoke execute on function private.units_sold(uuid, integer) from public, anon;

grant execute on function private.units_sold(uuid, integer) to authenticated, service_role;
