-- Products managed and read (the products function): a per-product reorder level, the list view
-- public.product_stock, the write functions create_product, update_product and delete_product, and an
-- inactive product takes no stock-in.

alter table public.products
  add column reorder_level integer not null default 10
    constraint products_reorder_level_range check (reorder_level between 0 and 1000000000);

grant insert (id, sku, name, is_active, reorder_level) on public.products to authenticated, service_role;

grant update (sku, name, is_active, deleted_at, reorder_level) on public.products to authenticated, service_role;

create or replace view public.product_stock with (security_invoker = true) as
select p.id,
       p.sku,
       p.name,
       p.is_active,
       p.current_stock,
       p.reorder_level,
       p.current_stock <= p.reorder_level as low_stock,
       p.deleted_at,
       p.created_at,
       p.updated_at
from public.products p;

revoke all on public.product_stock from anon;

revoke insert, update, delete, truncate on public.product_stock from authenticated, service_role;

grant select on public.product_stock to authenticated, service_role;

create or replace function public.stock_in(
  product_id uuid,
  quantity bigint,
  source text default 'manual_stock_in',
  note text default null,
  received_at timestamptz default null,
  idempotency_key text default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  operator record;
  replay jsonb;
  product public.products;
  lot public.inventory_records;
begin
  select * into operator from private.stock_operator();
  if product_id is null then
    perform private.invalid_stock_field('product_id', null, 'required');
  end if;
  perform private.check_stock_quantity('quantity', quantity);
  source := coalesce(source, 'manual_stock_in');
  if source not in ('manual_stock_in', 'purchase_order', 'return_goods', 'transfer_in', 'production_complete',
                    'supplier_direct', 'other') then
    perform private.invalid_stock_field('source', to_jsonb(source), 'must be one of manual_stock_in, purchase_order, '
      'return_goods, transfer_in, production_complete, supplier_direct, other');
  end if;
  if char_length(note) > 1000 then
    perform private.invalid_stock_field('note', to_jsonb(note), 'at most 1000 characters');
  end if;
  -- Goods cannot have been received in the future (received_at orders FIFO and dates the history); five
  -- minutes ahead is tolerated as the client's clock skew.
  if received_at > now() + interval '5 minutes' then
    perform private.invalid_stock_field('received_at', to_jsonb(private.api_timestamp(received_at)),
      'not later than 5 minutes from now');
  end if;

  replay := private.claim_idempotency_key(operator.operator_key, idempotency_key, 'stock_in', jsonb_build_object(
    'product_id', product_id, 'quantity', quantity, 'source', source, 'note', note, 'received_at', received_at));
  if replay is not null then
    return replay;
  end if;

  product := private.lock_product(product_id);
  -- An inactive product is off the sales front and receives no more goods; what it holds can still be
  -- stocked out and adjusted. Checked under the product lock, so a concurrent deactivation is seen.
  if not product.is_active then
    perform private.raise_api_error(422, 'PRODUCT_INACTIVE',
      format('Product %s is inactive and takes no stock-in', product.sku), jsonb_build_object('product_id', product.id));
  end if;
  insert into public.inventory_records (product_id, quantity, available_quantity, source, note, received_at,
                                        created_by, created_by_role)
  values (product.id, stock_in.quantity, stock_in.quantity, stock_in.source, stock_in.note,
          coalesce(stock_in.received_at, now()), operator.operator_id, operator.operator_role)
  returning * into lot;

  insert into public.stock_in_history (inventory_record_id, product_id, quantity, source, note, received_at,
                                       operator_id, operator_role)
  values (lot.id, lot.product_id, lot.quantity, lot.source, lot.note, lot.received_at,
          operator.operator_id, operator.operator_role);

  perform private.log_movement(gen_random_uuid(), 'stock_in', lot, lot.quantity,
    jsonb_build_object('source', lot.source), operator.operator_id, operator.operator_role);

  return private.remember_response(operator.operator_key, idempotency_key, jsonb_build_object(
    'success', true,
    'inventory_id', lot.id,
    'product_id', lot.product_id,
    'quantity', lot.quantity,
    'current_stock', product.current_stock + lot.quantity,
    'source', lot.source,
    'received_at', private.api_timestamp(lot.received_at),
    'message', format('Stocked in %s units of %s; current stock %s', lot.quantity, product.sku,
      product.current_stock + lot.quantity)
  ));
end
$$;

create or replace function private.require_product_admin()
returns void
language plpgsql
set search_path = ''
as $$
begin
  if not private.is_admin() then
    perform private.raise_api_error(403, 'FORBIDDEN', 'Administrator permission is required to manage products');
  end if;
end
$$;

create or replace function private.check_product_fields(fields jsonb, required text[])
returns void
language plpgsql
set search_path = ''
as $$
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

create or replace function private.duplicate_sku(sku text)
returns void
language plpgsql
set search_path = ''
as $$
begin
  perform private.raise_api_error(409, 'DUPLICATE_SKU',
    format('SKU %s is already taken (by a live or a deleted product: SKUs are never reused)', sku),
    jsonb_build_object('sku', sku, 'product_id', (select p.id from public.products p where p.sku = duplicate_sku.sku)));
end
$$;

create or replace function private.product_not_found(product_id uuid)
returns void
language plpgsql
set search_path = ''
as $$
begin
  perform private.raise_api_error(404, 'PRODUCT_NOT_FOUND', format('Product %s does not exist', product_id),
    jsonb_build_object('product_id', product_id));
end
$$;

create or replace function public.create_product(product jsonb)
returns public.products
language plpgsql
set search_path = ''
as $$
declare
  created public.products;
begin
  perform private.require_product_admin();
  perform private.check_product_fields(product, array['sku', 'name']);

  insert into public.products as p (sku, name, is_active, reorder_level)
  values (product ->> 'sku', btrim(product ->> 'name'), coalesce((product ->> 'is_active')::boolean, true),
          coalesce((product ->> 'reorder_level')::numeric::integer, 10))
  on conflict (sku) do nothing
  returning p.* into created;
  if not found then
    perform private.duplicate_sku(product ->> 'sku');
  end if;
  return created;
end
$$;

create or replace function public.update_product(product_id uuid, changes jsonb)
returns public.products
language plpgsql
set search_path = ''
as $$
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
                           else p.reorder_level end
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

create or replace function public.delete_product(product_id uuid)
returns public.products
language plpgsql
set search_path = ''
as $$
declare
  product public.products;
begin
  perform private.require_product_admin();

  select * into product
  from public.products p
  where p.id = delete_product.product_id and p.deleted_at is null
  for update;
  if not found then
    perform private.product_not_found(product_id);
  end if;
  if product.current_stock > 0 then
    perform private.raise_api_error(422, 'PRODUCT_HAS_STOCK',
      format('Product %s still holds %s units: stock them out or write them off first', product.sku,
        product.current_stock),
      jsonb_build_object('product_id', product.id, 'current_stock', product.current_stock));
  end if;

  update public.products p set deleted_at = now(), is_active = false
  where p.id = product.id
  returning p.* into product;
  return product;
end
$$;

revoke execute on function
  private.require_product_admin(), private.check_product_fields(jsonb, text[]), private.duplicate_sku(text),
  private.product_not_found(uuid),
  public.create_product(jsonb), public.update_product(uuid, jsonb), public.delete_product(uuid)
from public, anon;

grant execute on function
  private.require_product_admin(), private.check_product_fields(jsonb, text[]), private.duplicate_sku(text),
  private.product_not_found(uuid),
  public.create_product(jsonb), public.update_product(uuid, jsonb), public.delete_product(uuid)
to authenticated, service_role;
