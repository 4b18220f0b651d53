-- The statuses an order may be placed in are one list, public.new_order_status, which placing and the order
-- line check read and the API's types are generated from (they were written in each). Whether a refund's
-- goods go back is refused in one place, the status trigger, where it means nothing: public.update_order_status
-- no longer checks it first. The answers are the trigger's: 400 naming `restock`, rule `requires`.

-- The statuses an order may be placed in, awaiting payment or paid: its lines are written then, and only then
-- (private.check_order_line). The API's and the console's list of them is generated from this type.
create type public.new_order_status as enum ('pending', 'paid');

-- A line joins only an open order, and only while the order's lines come to no more than its total and item
-- count (422 ORDER_LINES_FIXED), whoever writes it, the table owner included. One cheap look per line, as
-- placing pays for it (a check of the statement's lines cost 32 concurrent writers a fifth of their orders).
-- public.place_order writes the lines that make the total; an import of history writes with triggers off.
create or replace function private.check_order_line()
returns trigger
language plpgsql set search_path = '' as $$
begin
  if not exists (
    select 1 from public.orders o
    where o.id = new.order_id and o.status = any (enum_range(null::public.new_order_status)::text[])
      and (select coalesce(sum(l.amount), 0) + new.quantity * new.unit_price <= o.total_amount
                  and coalesce(sum(l.quantity), 0) + new.quantity <= o.item_count
           from public.order_lines l where l.order_id = new.order_id)
  ) then
    perform private.raise_api_error(422, 'ORDER_LINES_FIXED',
      format('Order %s cannot take this line: an open order''s lines are written with it, and total it', new.order_id),
      jsonb_build_object('order_id', new.order_id));
  end if;
  return new;
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
