-- The three stock operations (seed 02, CONTRACT §2), each one security-definer function, so one transaction
-- whether called by the edge functions or `supabase.rpc`: the same checks, locks, ledger rows and errors. No
-- API role writes the inventory tables; the operator comes from the JWT claims. Stock-in is in 35_stock_in.sql.
-- Locks are taken in docs/inventory.md's order (the idempotency record, the products by id, their lots oldest
-- first, all `for no key update`), so no two operations deadlock; the CHECK constraints are the backstop.

create or replace function private.stock_operator(out operator_id uuid, out operator_role text, out operator_key text)
language plpgsql stable set search_path = '' as $$
begin
  operator_role := auth.role();
  if operator_role = 'service_role' then
    operator_id := null;
    operator_key := 'service_role';
  elsif operator_role = 'authenticated' and auth.uid() is not null then
    operator_id := auth.uid();
    operator_key := operator_id::text;
  else
    perform private.raise_api_error(401, 'UNAUTHORIZED', 'A signed-in user or the service key is required');
  end if;
end
$$;

-- The same 400 the edge functions' zod validation gives, for callers that come through supabase.rpc. `line`
-- is the index of a line of `list` (a delivery's `items`, stock_in_batch; an order's `lines`, place_order):
-- the field is then named `<list>.<line>.<field>`, as zod names it, and `details.index` says which line was
-- refused. `code` and `figures` are the rule as a stable code and its figures (`details.rule`,
-- `details.params`), for the rules a client words itself; `rule` says it in English.
create or replace function private.invalid_stock_field(
  field text, value jsonb, rule text, line integer default null, code text default null, figures jsonb default null,
  list text default 'items'
)
returns void
language plpgsql set search_path = '' as $$
begin
  if line is not null then
    field := concat_ws('.', list, line, field);
  end if;
  perform private.raise_api_error(400, 'VALIDATION_ERROR', format('Invalid %s: %s', field, rule),
    jsonb_strip_nulls(jsonb_build_object('field', field, 'constraint', rule,
      'rule', coalesce(code, case when rule = 'required' then 'required' else 'invalid' end), 'params', figures,
      'index', line)) || jsonb_build_object('value', value));
end
$$;

-- An instant as every answer of the API gives it: ISO 8601 in UTC with milliseconds and `Z`
-- (`2026-11-23T16:00:00.123Z`), what JSON.stringify makes of the JavaScript Date the other functions read
-- from PostgreSQL. Microseconds are truncated, as a JavaScript Date truncates them. For the answers built
-- as jsonb in SQL, where a timestamptz would otherwise come out as `2026-11-23T16:00:00.123456+00:00`.
create or replace function private.api_timestamp(instant timestamptz)
returns text
language sql stable set search_path = '' as $$
  select to_char(instant at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

create or replace function private.check_stock_quantity(field text, value bigint, line integer default null)
returns void
language plpgsql set search_path = '' as $$
begin
  if value is null then
    perform private.invalid_stock_field(field, null, 'required', line);
  elsif value <= 0 or value > private.max_stock_quantity() then
    perform private.invalid_stock_field(field, to_jsonb(value),
      format('must be a whole number from 1 to %s', private.max_stock_quantity()), line);
  end if;
end
$$;

-- How long an idempotency record is honoured: a request repeating a key within this time replays the
-- stored answer; after it, the key is taken over by the next request that uses it.
create or replace function private.idempotency_ttl()
returns interval
language sql immutable set search_path = '' as $$
  select interval '24 hours'
$$;

-- Deletes the idempotency records older than private.idempotency_ttl(). Such a record is never replayed
-- again (the next request with its key takes it over), so deleting it changes no answer. Rows another
-- transaction holds are skipped, never waited for: a purge neither blocks a stock operation nor deadlocks
-- with one. At most `max_rows` rows when given. Returns how many it deleted. Scheduled hourly with pg_cron
-- where the platform has it (below), and run by one keyed stock request in a hundred (claim_idempotency_key).
create or replace function private.purge_idempotency_records(max_rows integer default null)
returns integer
language plpgsql set search_path = '' as $$
declare
  purged integer;
begin
  with expired as (
    select r.operator, r.idempotency_key
    from public.idempotency_records r
    where r.created_at < (select private.now() - private.idempotency_ttl())
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

-- Returns the response to replay, or null when the request is new and must run. The insert waits on a
-- concurrent transaction holding the same key, so two simultaneous retries never both apply: the second
-- sees the first's committed response. A key older than 24 hours is taken over by the new request. One
-- call in a hundred also purges up to 1000 expired records, so they do not pile up where pg_cron is absent.
create or replace function private.claim_idempotency_key(operator text, idempotency_key text, operation text, request jsonb)
returns jsonb
language plpgsql set search_path = '' as $$
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

  if existing.created_at < private.now() - private.idempotency_ttl() then
    update public.idempotency_records r
    set operation = claim_idempotency_key.operation, request_hash = hashed,
        response = null, created_at = private.now()
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

create or replace function private.remember_response(operator text, idempotency_key text, response jsonb)
returns jsonb
language plpgsql set search_path = '' as $$
begin
  if idempotency_key is not null then
    update public.idempotency_records r
    set response = remember_response.response
    where r.operator = remember_response.operator and r.idempotency_key = remember_response.idempotency_key;
  end if;
  return response;
end
$$;

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

-- `lot` is the lot after its change. Keeps products.current_stock in step and writes the ledger row.
create or replace function private.log_movement(
  operation_id uuid, operation text, lot public.inventory_records, delta bigint, details jsonb,
  operator_id uuid, operator_role text
)
returns void
language plpgsql set search_path = '' as $$
declare
  stock_now bigint;
begin
  update public.products p
  set current_stock = p.current_stock + log_movement.delta
  where p.id = lot.product_id
  returning p.current_stock into stock_now;

  insert into public.stock_movements (
    operation_id, operation, product_id, inventory_record_id, delta, stock_before, stock_after,
    record_available_before, record_available_after, source, reason, reason_note, reference, operator_id, operator_role
  )
  values (
    log_movement.operation_id, log_movement.operation, lot.product_id, lot.id, log_movement.delta,
    stock_now - log_movement.delta, stock_now, lot.available_quantity - log_movement.delta, lot.available_quantity,
    details ->> 'source', details ->> 'reason', details ->> 'reason_note', details ->> 'reference',
    log_movement.operator_id, log_movement.operator_role
  );
end
$$;

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

create or replace function private.insufficient_stock(product_id uuid, inventory_id uuid, requested bigint, available bigint)
returns void
language plpgsql set search_path = '' as $$
begin
  perform private.raise_api_error(422, 'INSUFFICIENT_STOCK',
    format('Insufficient stock: %s requested, %s available', requested, available),
    jsonb_strip_nulls(jsonb_build_object('product_id', product_id, 'inventory_id', inventory_id,
      'requested', requested, 'available', available)));
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

-- stock_adjust's checks of its input, each refusal as it names the field, in the order they are answered.
create or replace function private.check_stock_adjust(
  adjust_quantity bigint, reason text, product_id uuid, inventory_id uuid, source text, reason_note text
)
returns void
language plpgsql stable set search_path = '' as $$
declare
  rule public.stock_adjust_reasons;
  amount bigint := abs(adjust_quantity);
begin
  if (product_id is null) = (inventory_id is null) then
    perform private.invalid_stock_field(case when product_id is null then 'product_id' else 'inventory_id' end,
      null, 'exactly one of product_id and inventory_id is required', null, 'exactly_one',
      jsonb_build_object('fields', jsonb_build_array('product_id', 'inventory_id')));
  end if;
  if adjust_quantity is null then
    perform private.invalid_stock_field('adjust_quantity', null, 'required');
  elsif adjust_quantity = 0 then
    perform private.invalid_stock_field('adjust_quantity', to_jsonb(adjust_quantity), 'must not be 0');
  elsif amount > private.max_stock_quantity() then
    perform private.invalid_stock_field('adjust_quantity', to_jsonb(adjust_quantity),
      format('must be between -%s and %s', private.max_stock_quantity(), private.max_stock_quantity()));
  end if;
  select * into rule from public.stock_adjust_reasons r where r.reason::text = check_stock_adjust.reason;
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
  if not coalesce(source, 'manual_adjustment') = any (enum_range(null::public.stock_adjust_source)::text[]) then
    perform private.invalid_stock_field('source', to_jsonb(source), private.one_of(enum_range(null::public.stock_adjust_source)));
  end if;

end
$$;

-- stock_adjust of a product as a whole, its row locked: an increase onto its newest lot (a first lot when it
-- has none), a decrease drawn from its lots first in first out. The lot it names, and the lots drawn.
create or replace function private.adjust_product_stock(
  product public.products, adjust_quantity bigint, source text, reason text, details jsonb, operator_id uuid,
  operator_role text, out lot_id uuid, out allocations jsonb
)
language plpgsql set search_path = '' as $$
declare
  lot public.inventory_records;
  amount bigint := abs(adjust_quantity);
begin
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
      values (product.id, adjust_quantity, adjust_quantity, adjust_product_stock.source,
              format('Initial stock adjustment: %s', reason), private.now(), operator_id, operator_role)
      returning * into lot;
    end if;
    perform private.log_movement(gen_random_uuid(), 'stock_adjust', lot, adjust_quantity, details,
      operator_id, operator_role);
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
      operator_id, operator_role);
    lot.id := (allocations -> 0 ->> 'inventory_id')::uuid;
  end if;
  lot_id := lot.id;
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
  perform private.check_stock_adjust(adjust_quantity, reason, product_id, inventory_id, source, reason_note);
  source := coalesce(source, 'manual_adjustment');

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
    select a.lot_id, a.allocations into lot.id, allocations
    from private.adjust_product_stock(product, adjust_quantity, source, reason, details, operator.operator_id,
                                      operator.operator_role) a;
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

revoke execute on function
  private.check_stock_adjust(bigint, text, uuid, uuid, text, text),
  private.adjust_product_stock(public.products, bigint, text, text, jsonb, uuid, text),
  private.stock_operator(), private.invalid_stock_field(text, jsonb, text, integer, text, jsonb, text),
  private.check_stock_quantity(text, bigint, integer),
  private.api_timestamp(timestamptz), private.idempotency_ttl(), private.purge_idempotency_records(integer),
  private.claim_idempotency_key(text, text, text, jsonb), private.remember_response(text, text, jsonb),
  private.lock_product(uuid),
  private.log_movement(uuid, text, public.inventory_records, bigint, jsonb, uuid, text),
  private.draw_lots(uuid, bigint, uuid, text, jsonb, uuid, text, date, boolean),
  private.insufficient_stock(uuid, uuid, bigint, bigint)
from public, anon, authenticated, service_role;

revoke execute on function
  public.stock_out(uuid, bigint, text, text),
  public.stock_adjust(bigint, text, uuid, uuid, text, text, text)
from public, anon;

grant execute on function
  public.stock_out(uuid, bigint, text, text),
  public.stock_adjust(bigint, text, uuid, uuid, text, text, text)
to authenticated, service_role;
