-- A derived value has one writer: an order's lines are fixed once placed and reserve their goods as they are
-- written, its total and item count are their sums, `restocked` is the refund's, a deleted product holds no
-- stock; moves are stamped no earlier than the order; rpc callers meet the route's rules for the lines.
alter table public.products
  add constraint products_deleted_without_stock check (deleted_at is null or current_stock = 0);

create or replace function private.restock_order_goods(order_id uuid)
returns void
language plpgsql set search_path = '' as $$
declare
  operator record;
  operation uuid := gen_random_uuid();
  drawn record;
  deleted record;
  lot public.inventory_records;
begin
  select * into operator from private.goods_operator();
  select p.id, p.sku into deleted
  from public.order_lines l
  join public.products p on p.id = l.product_id
  where l.order_id = restock_order_goods.order_id and p.deleted_at is not null
  limit 1;
  if found then
    perform private.raise_api_error(422, 'PRODUCT_DELETED',
      format('Product %s was deleted: its goods cannot go back into stock, refund without restock', deleted.sku),
      jsonb_build_object('order_id', order_id, 'product_id', deleted.id, 'sku', deleted.sku));
  end if;
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

create or replace function private.move_order_goods()
returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  has_lines boolean := exists (select 1 from public.order_lines l where l.order_id = new.id);
  goods text;
begin
  if has_lines then
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
  end if;
  -- Whether goods went back means something only for a refund that returns shipped goods: refused anywhere
  -- else (a refund before shipping, an order without lines), where it would record a restock never made.
  if new.restocked is not null and goods is distinct from 'return' then
    perform private.invalid_stock_field('restock', to_jsonb(new.restocked),
      'only when a refund returns shipped goods', null, 'requires', jsonb_build_object('field', 'status'));
  end if;
  if not has_lines then
    return new;
  end if;
  if new.status = 'refunded' then
    if goods = 'return' then
      new.restocked := coalesce(new.restocked, false);
    end if;
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

create or replace function private.guard_order_figures()
returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  lines record;
begin
  if (new.total_amount, new.item_count) is distinct from (old.total_amount, old.item_count) then
    select sum(l.amount) as total, sum(l.quantity)::integer as items into lines
    from public.order_lines l where l.order_id = new.id;
    if lines.items is not null and (new.total_amount, new.item_count) is distinct from (lines.total, lines.items) then
      perform private.raise_api_error(422, 'ORDER_LINES_FIXED',
        format('Order %s totals its lines: %s for %s items', new.id, lines.total, lines.items),
        jsonb_build_object('order_id', new.id, 'total_amount', lines.total, 'item_count', lines.items));
    end if;
  end if;
  if new.restocked is distinct from old.restocked and new.status = old.status then
    perform private.invalid_stock_field('restocked', to_jsonb(new.restocked),
      'recorded by the refund that puts the goods back', null, 'derived');
  end if;
  if new.ordered_at is distinct from old.ordered_at then
    update private.shipped_order_costs c set ordered_at = new.ordered_at where c.order_id = new.id;
  end if;
  return new;
end
$$;

create trigger orders_guard_figures
  before update of total_amount, item_count, restocked, ordered_at on public.orders
  for each row
  when (old.total_amount is distinct from new.total_amount or old.item_count is distinct from new.item_count
        or old.restocked is distinct from new.restocked or old.ordered_at is distinct from new.ordered_at)
  execute function private.guard_order_figures();

create or replace function private.refuse_order_line_changes()
returns trigger
language plpgsql set search_path = '' as $$
begin
  perform private.raise_api_error(422, 'ORDER_LINES_FIXED',
    format('The lines of order %s are fixed once it is placed: cancel or refund it instead', old.order_id),
    jsonb_build_object('order_id', old.order_id));
end
$$;

create trigger order_lines_fixed
  before update or delete on public.order_lines
  for each row execute function private.refuse_order_line_changes();

revoke execute on function private.guard_order_figures(), private.refuse_order_line_changes()
  from public, anon, authenticated, service_role;

create or replace function private.invalid_order_line(
  index integer, field text, value jsonb, words text, rule text, figures jsonb default null
)
returns void
language plpgsql set search_path = '' as $$
declare
  path text := concat_ws('.', 'lines', index, field);
begin
  perform private.raise_api_error(400, 'VALIDATION_ERROR', format('Invalid %s: %s', path, words),
    jsonb_strip_nulls(jsonb_build_object('field', path, 'constraint', words, 'rule', rule, 'params', figures,
      'index', index)) || jsonb_build_object('value', value));
end
$$;

create or replace function private.order_line_field_problem(field text, value jsonb, out words text, out rule text,
  out figures jsonb)
language sql immutable set search_path = '' as $$
  select p.words, p.rule, p.figures
  from (select value #>> '{}' as text, case when jsonb_typeof(value) = 'number' then (value #>> '{}')::numeric end as n) v
  cross join lateral (values
    (1, field not in ('product_id', 'quantity', 'unit_price'), 'unknown field', 'unknown_field', null::jsonb),
    (2, field = 'product_id' and not (jsonb_typeof(value) = 'string' and pg_input_is_valid(v.text, 'uuid')),
      'must be a UUID', 'format', '{"format": "guid"}'),
    (3, field in ('quantity', 'unit_price') and v.n is null, 'must be a number', 'type', '{"expected": "number"}'),
    (4, field = 'quantity' and v.n <> trunc(v.n), 'must be a whole number', 'type', '{"expected": "int"}'),
    (5, field = 'quantity' and v.n < 1, 'must be at least 1', 'min', '{"min": 1}'),
    (6, field = 'quantity' and v.n > 1000000, 'must be at most 1000000', 'max', '{"max": 1000000}'),
    (7, field = 'unit_price' and v.n < 0, 'must be at least 0', 'min', '{"min": 0}'),
    (8, field = 'unit_price' and v.n > private.max_order_total(), 'must be at most 9999999999.99', 'max',
      jsonb_build_object('max', private.max_order_total())),
    (9, field = 'unit_price' and v.n <> round(v.n, 2), 'at most 2 decimal places', 'decimals', '{"max": 2}')
  ) p (position, broken, words, rule, figures)
  where p.broken
  order by p.position
  limit 1
$$;

create or replace function private.read_order_lines(lines jsonb)
returns private.order_line_input[]
language plpgsql set search_path = '' as $$
declare
  item jsonb;
  position integer;
  field text;
  problem record;
  read private.order_line_input[] := '{}';
begin
  if jsonb_typeof(lines) is distinct from 'array' then
    perform private.invalid_stock_field('lines', lines, 'must be an array of lines', null, 'type',
      '{"expected": "array"}');
  elsif jsonb_array_length(lines) not between 1 and 200 then
    perform private.invalid_stock_field('lines', lines,
      case when jsonb_array_length(lines) = 0 then 'must have at least 1 line' else 'at most 200 lines' end, null,
      case when jsonb_array_length(lines) = 0 then 'min_items' else 'max_items' end,
      case when jsonb_array_length(lines) = 0 then '{"min": 1}'::jsonb else '{"max": 200}' end);
  end if;
  for item, position in select e.value, e.ordinality - 1 from jsonb_array_elements(lines) with ordinality e loop
    if jsonb_typeof(item) <> 'object' then
      perform private.invalid_order_line(position, null, item, 'must be an object', 'type', '{"expected": "object"}');
    end if;
    foreach field in array array['product_id', 'quantity', 'unit_price'] loop
      if not item ? field then
        perform private.invalid_order_line(position, field, null, 'required', 'required');
      end if;
    end loop;
    for field in select k from jsonb_object_keys(item) k
                 order by array_position(array['product_id', 'quantity', 'unit_price'], k) nulls last, k loop
      select * into problem from private.order_line_field_problem(field, item -> field);
      if problem.rule is not null then
        perform private.invalid_order_line(position, field, item -> field, problem.words, problem.rule, problem.figures);
      end if;
    end loop;
    read := read || ((position, (item ->> 'product_id')::uuid, (item ->> 'quantity')::numeric::integer,
                      (item ->> 'unit_price')::numeric)::private.order_line_input);
  end loop;
  if (select sum(l.quantity * l.unit_price) from unnest(read) l) > private.max_order_total() then
    perform private.invalid_stock_field('lines', lines, 'the order may come to at most 9999999999.99', null,
      'max_total', jsonb_build_object('max', private.max_order_total()));
  end if;
  return read;
end
$$;

revoke execute on function
  private.invalid_order_line(integer, text, jsonb, text, text, jsonb), private.order_line_field_problem(text, jsonb)
from public, anon, authenticated, service_role;

create or replace function private.reserve_placed_lines()
returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  refused uuid;
begin
  select n.order_id into refused
  from (select l.order_id, sum(l.amount) as total, sum(l.quantity) as items, count(*) as lines
        from new_lines l group by l.order_id) n
  join public.orders o on o.id = n.order_id
  where o.status not in ('pending', 'paid') or o.total_amount <> n.total or o.item_count <> n.items
     or (select count(*) from public.order_lines l where l.order_id = n.order_id) <> n.lines
  limit 1;
  if found then
    perform private.raise_api_error(422, 'ORDER_LINES_FIXED',
      format('Order %s cannot take these lines: an open order''s lines are written with it, and total it', refused),
      jsonb_build_object('order_id', refused));
  end if;
  perform private.reserve_order_goods(array(
    select (l.line_number - 1, l.product_id, l.quantity, l.unit_price)::private.order_line_input
    from new_lines l order by l.order_id, l.line_number));
  return null;
end
$$;

create trigger order_lines_reserve
  after insert on public.order_lines
  referencing new table as new_lines
  for each statement execute function private.reserve_placed_lines();

revoke execute on function private.reserve_placed_lines() from public, anon, authenticated, service_role;

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
  -- The lines, which reserve their goods as they are written (order_lines_reserve), and the answer from them
  -- as private.order_goods gives a new order's (nothing drawn, no cost yet), without reading them back: that
  -- was half of what placing an order cost. The reservation comes last, at the statement's end, so the
  -- products' locks are held only for it and the commit, the stretch every order of a product waits through
  -- in turn.
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

  return private.remember_response(operator.operator_key, idempotency_key, answer);
end
$$;

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
  -- An order may be placed up to 5 minutes ahead of the clock; its moves are never stamped before it.
  stamp := greatest(stamp, current.ordered_at);
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
