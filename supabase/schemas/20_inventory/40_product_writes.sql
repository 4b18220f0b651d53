-- Products managed (POST, PUT and DELETE /products, or supabase.rpc): administrators and the service key
-- only, each change one function, so one transaction. Security invoker, like the catalogue's writes: the
-- table's column grants and RLS apply on top of the explicit check. Failures: 403 FORBIDDEN, 400
-- VALIDATION_ERROR (the function's own field rules, for rpc callers), 404 PRODUCT_NOT_FOUND (unknown or
-- deleted), 409 DUPLICATE_SKU, 422 PRODUCT_HAS_STOCK (a delete that would strand stock).

create or replace function private.require_product_admin()
returns void
language plpgsql set search_path = '' as $$
begin
  if not private.is_admin() then
    perform private.raise_api_error(403, 'FORBIDDEN', 'Administrator permission is required to manage products');
  end if;
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
      if jsonb_typeof(value) <> 'string' or not private.is_product_sku(value #>> '{}') then
        problem := 'letters, digits, dot, underscore or hyphen, starting with a letter or digit, at most 64 characters';
      end if;
    elsif field = 'name' then
      if jsonb_typeof(value) <> 'string' or not private.is_product_name(value #>> '{}') then
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
        problem := format('a whole number from 0 to %s', private.max_stock_quantity());
      elsif not private.is_reorder_level((value #>> '{}')::numeric) then
        problem := format('a whole number from 0 to %s', private.max_stock_quantity());
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
language plpgsql set search_path = '' as $$
begin
  perform private.raise_api_error(409, 'DUPLICATE_SKU',
    format('SKU %s is already taken (by a live or a deleted product: SKUs are never reused)', sku),
    jsonb_build_object('sku', sku, 'product_id', (select p.id from public.products p where p.sku = duplicate_sku.sku)));
end
$$;

create or replace function private.product_not_found(product_id uuid)
returns void
language plpgsql set search_path = '' as $$
begin
  perform private.raise_api_error(404, 'PRODUCT_NOT_FOUND', format('Product %s does not exist', product_id),
    jsonb_build_object('product_id', product_id));
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
