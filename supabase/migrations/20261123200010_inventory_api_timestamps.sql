-- Inventory answers give instants in the API's one format, ISO 8601 in UTC with milliseconds and `Z`
-- (`2026-11-23T16:00:00.123Z`, as the catalogue and campaigns give them), no longer PostgreSQL's
-- `2026-11-23T16:00:00.123456+00:00`: stock-in's received_at, IDEMPOTENCY_KEY_REUSED's first_used_at and a
-- refused received_at.

create or replace function private.api_timestamp(instant timestamptz)
returns text
language sql
stable
set search_path = ''
as $$
  select to_char(instant at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
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

  if existing.created_at < now() - interval '24 hours' then
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

revoke execute on function private.api_timestamp(timestamptz) from public, anon, authenticated, service_role;
