-- Stock-in (seed 02): goods received into new lots, one product (public.stock_in) or a delivery of several
-- (public.stock_in_batch, all or nothing). A lot may carry the supplier's lot number and an expiry date.
-- Security definer like the other stock operations (30_stock_operations.sql), whose helpers, lock order
-- and idempotency these share.

-- A delivery's line as read and checked from its JSON.
create type private.stock_in_line as (
  index integer, product_id uuid, quantity bigint, lot_number text, expires_on date, note text, unit_cost numeric
);

-- What a delivery says as a whole (stock-in, one line or many): where the goods came from, a note, when
-- they arrived. Goods cannot have been received in the future (received_at orders FIFO and dates the
-- history); five minutes ahead is tolerated as the client's clock skew.
create or replace function private.check_delivery(source text, note text, received_at timestamptz)
returns void
language plpgsql set search_path = '' as $$
begin
  if not source = any (enum_range(null::public.stock_in_source)::text[]) then
    perform private.invalid_stock_field('source', to_jsonb(source), private.one_of(enum_range(null::public.stock_in_source)));
  end if;
  if char_length(note) > 1000 then
    perform private.invalid_stock_field('note', to_jsonb(note), 'at most 1000 characters');
  end if;
  if received_at > private.now() + interval '5 minutes' then
    perform private.invalid_stock_field('received_at', to_jsonb(private.api_timestamp(received_at)),
      'not later than 5 minutes from now', null, 'not_future', jsonb_build_object('minutes', 5));
  end if;
end
$$;

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

-- Refuses a product that takes no goods: an inactive product is off the sales front and receives no more;
-- what it holds can still be stocked out and adjusted. Called under the product lock, so a concurrent
-- deactivation is seen.
create or replace function private.refuse_inactive(product public.products, line integer default null)
returns void
language plpgsql set search_path = '' as $$
begin
  if not product.is_active then
    perform private.raise_api_error(422, 'PRODUCT_INACTIVE',
      format('Product %s is inactive and takes no stock-in', product.sku),
      jsonb_build_object('product_id', product.id)
        || case when line is null then '{}'::jsonb else jsonb_build_object('index', line) end);
  end if;
end
$$;

-- Opens a lot per line, for products the caller holds locked: the lots, their stock-in history entries, the
-- products' stock and the ledger rows (one operation), in one statement whatever the number of lines. The
-- delivery's note is a line's when it has none. Returns the answer's lines in their order, each with its
-- product's stock after it. One generic plan, kept: planning each call's own cost a single stock-in almost
-- a third more and planned no better for a delivery.
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
      elsif field = 'quantity' and ((value #>> '{}')::numeric not between 1 and private.max_stock_quantity()
                                    or (value #>> '{}')::numeric <> trunc((value #>> '{}')::numeric)) then
        perform private.invalid_stock_field(field, value,
          format('must be a whole number from 1 to %s', private.max_stock_quantity()), position);
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

revoke execute on function
  private.check_delivery(text, text, timestamptz), private.check_lot(bigint, text, text, date, timestamptz, integer, numeric),
  private.refuse_inactive(public.products, integer),
  private.receive_lots(private.stock_in_line[], text, text, timestamptz, uuid, text),
  private.read_stock_in_lines(jsonb, timestamptz)
from public, anon, authenticated, service_role;

revoke execute on function
  public.stock_in(uuid, bigint, text, text, timestamptz, text, text, date, numeric),
  public.stock_in_batch(jsonb, text, text, timestamptz, text)
from public, anon;

grant execute on function
  public.stock_in(uuid, bigint, text, text, timestamptz, text, text, date, numeric),
  public.stock_in_batch(jsonb, text, text, timestamptz, text)
to authenticated, service_role;
