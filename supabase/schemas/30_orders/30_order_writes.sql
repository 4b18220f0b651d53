-- Orders written with their goods (CONTRACT §4, docs/inventory.md "Orders and stock"): placing an order of
-- lines (public.place_order), which reserves them, and moving its status (public.update_order_status),
-- which the status trigger of 20_order_goods.sql turns into stock moves; the answers both give; a
-- product's units sold. Security definer where they write: no API role writes an order's lines.

-- The most an order may come to (orders.total_amount, numeric(12, 2)), the most lines it may have and the most
-- units a line may ask for. `npm run types` generates each `private.max_*()` into `Limits` of
-- database.types.ts, which zod reads: a limit is written here only.
create or replace function private.max_order_total()
returns numeric
language sql immutable set search_path = '' as $$
  select 9999999999.99::numeric
$$;

create or replace function private.max_order_lines()
returns integer
language sql immutable set search_path = '' as $$
  select 200
$$;

create or replace function private.max_line_quantity()
returns integer
language sql immutable set search_path = '' as $$
  select 1000000
$$;

-- An order's line as read and checked from its JSON; `index` is its place in the request, from 0.
create type private.order_line_input as (index integer, product_id uuid, quantity integer, unit_price numeric);

-- Reads an order's `lines` ([{product_id, quantity, unit_price}], 1 to private.max_order_lines()), refusing the
-- first line that breaks a rule with the 400 the edge function's zod schema gives, so rpc callers meet the
-- route's rules.
create or replace function private.read_order_lines(lines jsonb)
returns private.order_line_input[]
language plpgsql set search_path = '' as $$
declare
  item jsonb;
  position integer;
  field text;
  value jsonb;
  number numeric;
  problem text[];
  read private.order_line_input[] := '{}';
begin
  if jsonb_typeof(lines) is distinct from 'array' then
    perform private.invalid_stock_field('lines', lines, 'must be an array of lines', null, 'type',
      '{"expected": "array"}');
  elsif jsonb_array_length(lines) not between 1 and private.max_order_lines() then
    perform private.invalid_stock_field('lines', lines,
      case when jsonb_array_length(lines) = 0 then 'must have at least 1 line'
           else format('at most %s lines', private.max_order_lines()) end, null,
      case when jsonb_array_length(lines) = 0 then 'min_items' else 'max_items' end,
      case when jsonb_array_length(lines) = 0 then '{"min": 1}'::jsonb
           else jsonb_build_object('max', private.max_order_lines()) end);
  end if;
  for item, position in select e.value, e.ordinality - 1 from jsonb_array_elements(lines) with ordinality e loop
    if jsonb_typeof(item) <> 'object' then
      perform private.invalid_stock_field(null, item, 'must be an object', position, 'type', '{"expected": "object"}',
        'lines');
    end if;
    foreach field in array array['product_id', 'quantity', 'unit_price'] loop
      if not item ? field then
        perform private.invalid_stock_field(field, null, 'required', position, null, null, 'lines');
      end if;
    end loop;
    -- The first rule each field breaks, in the order zod checks them, as [words, rule, figures]; a price is
    -- checked exactly, on the decimal the caller sent. Plain expressions, not a query: placing pays for them.
    for field in select k from jsonb_object_keys(item) k
                 order by array_position(array['product_id', 'quantity', 'unit_price'], k) nulls last, k loop
      value := item -> field;
      number := case when jsonb_typeof(value) = 'number' then (value #>> '{}')::numeric end;
      problem := case
        when field not in ('product_id', 'quantity', 'unit_price') then array['unknown field', 'unknown_field', null]
        when field = 'product_id' then case
          when not (jsonb_typeof(value) = 'string' and pg_input_is_valid(value #>> '{}', 'uuid'))
            then array['must be a UUID', 'format', '{"format": "guid"}'] end
        when number is null then array['must be a number', 'type', '{"expected": "number"}']
        when field = 'quantity' then case
          when number <> trunc(number) then array['must be a whole number', 'type', '{"expected": "int"}']
          when number < 1 then array['must be at least 1', 'min', '{"min": 1}']
          when number > private.max_line_quantity() then
            array[format('must be at most %s', private.max_line_quantity()), 'max',
                  jsonb_build_object('max', private.max_line_quantity())::text] end
        when number < 0 then array['must be at least 0', 'min', '{"min": 0}']
        when number > private.max_order_total() then
          array[format('must be at most %s', private.max_order_total()), 'max',
                jsonb_build_object('max', private.max_order_total())::text]
        when number <> round(number, 2) then array['at most 2 decimal places', 'decimals', '{"max": 2}']
      end;
      if problem is not null then
        perform private.invalid_stock_field(field, value, problem[1], position, problem[2], problem[3]::jsonb, 'lines');
      end if;
    end loop;
    read := read || ((position, (item ->> 'product_id')::uuid, (item ->> 'quantity')::numeric::integer,
                      (item ->> 'unit_price')::numeric)::private.order_line_input);
  end loop;
  if (select sum(l.quantity * l.unit_price) from unnest(read) l) > private.max_order_total() then
    perform private.invalid_stock_field('lines', lines,
      format('the order may come to at most %s', private.max_order_total()), null, 'max_total',
      jsonb_build_object('max', private.max_order_total()));
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
-- lots it drew (a shipped line) and the cost of what it kept where every lot drawn has one, and the order's
-- cost (private.drawn_cost) and margin (null: unknown, not shipped yet, or refunded, when there is no revenue
-- to set it against). As the caller: a customer reading their own order sees its lines, not the lots or the
-- costs.
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
             case when bool_and(x.unit_cost is not null) then sum((x.quantity - x.returned_quantity) * x.unit_cost) end
               as cost
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
               'margin', case when not c.refunded then x.amount - x.cost end) order by x.line_number)
               filter (where x.id is not null), '[]'),
    'cost', c.cost,
    'margin', case when not c.refunded then sum(x.amount) - c.cost end)
  from (select private.drawn_cost(order_goods.order_id) as cost,
               exists (select 1 from public.orders o where o.id = order_goods.order_id and o.status = 'refunded')
                 as refunded) c
  left join lines x on true
  group by c.cost, c.refunded
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

-- Places an order of lines (POST /orders, or supabase.rpc): the order, its lines and their reservations, all
-- or nothing; `lines` is [{product_id, quantity, unit_price}]. Refusals name the line (`index`): 400, 404
-- CUSTOMER_NOT_FOUND and PRODUCT_NOT_FOUND, 422 PRODUCT_INACTIVE and INSUFFICIENT_STOCK (`requested`,
-- `available`). The products are locked last, in id order, so the lock every order of a product meets is held
-- only from the reservation to the commit.
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
  if not status = any (enum_range(null::public.new_order_status)::text[]) then
    perform private.invalid_stock_field('status', to_jsonb(status), private.one_of(enum_range(null::public.new_order_status)));
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

-- Moves an order to `status` (PATCH /orders/:id, or supabase.rpc) as public.order_status_moves allows,
-- stamping the move's time unless the order records one; the goods move with it (the status trigger).
-- `restock`: whether a refund after shipping puts the goods back (default no). Refusals: 400, 404
-- ORDER_NOT_FOUND, 422 INVALID_STATUS_TRANSITION (with the moves allowed), EXPIRED_STOCK and PRODUCT_DELETED.
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
  select * into current from public.orders o where o.id = update_order_status.order_id for no key update;
  if not found then
    perform private.raise_api_error(404, 'ORDER_NOT_FOUND', format('Order %s does not exist', order_id),
      jsonb_build_object('order_id', order_id));
  end if;
  -- An order may be placed up to 5 minutes ahead of the clock; its moves are never stamped before it.
  stamp := greatest(stamp, current.ordered_at);
  perform private.status_move_goods(order_id, current.status, status);
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
    -- Whether a refund's goods go back: refused by the status trigger wherever it means nothing.
    restocked = restock
  where o.id = update_order_status.order_id;
  return jsonb_build_object('success', true, 'data', private.order_answer(order_id));
end
$$;

revoke execute on function
  private.max_order_total(), private.max_order_lines(), private.max_line_quantity(), private.read_order_lines(jsonb),
  private.require_order_writer(),
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
