-- An order's goods (CONTRACT §4; docs/inventory.md, "Orders and stock"): its lines, the stock they hold and
-- the lots they were drawn from. Placing reserves (public.place_order, the lines' only writer); the status
-- trigger below moves the goods whoever updates it: shipping draws from the lots, a cancel or refund before
-- shipping releases, a refund after shipping restocks when `restocked`. `reserved_stock <= current_stock` is a
-- CHECK, so nothing is oversold; orders stored without lines move no goods and keep their `item_count`.

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
  unit_price numeric(12, 2) not null
    constraint order_lines_unit_price_not_negative check (unit_price >= 0 and unit_price < 'Infinity'),
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
  unit_cost numeric(12, 2)
    constraint order_line_lots_unit_cost_not_negative check (unit_cost >= 0 and unit_cost < 'Infinity'),
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

-- What an order's drawn goods cost: each unit drawn and not returned at its lot's cost (FIFO costing), null
-- when a lot drawn has no cost; nothing, once a refund put them all back. The one rule for an order's cost:
-- the order's page reads it, and shipping keeps it for the figures.
create or replace function private.drawn_cost(order_id uuid)
returns numeric
language sql stable set search_path = '' as $$
  select case when bool_and(d.unit_cost is not null) then sum((d.quantity - d.returned_quantity) * d.unit_cost) end
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
  total_amount numeric(12, 2) not null
    constraint shipped_order_costs_total_amount_not_negative check (total_amount >= 0 and total_amount < 'Infinity'),
  goods_cost numeric(14, 2) not null
    constraint shipped_order_costs_goods_cost_not_negative check (goods_cost >= 0 and goods_cost < 'Infinity')
);

create index shipped_order_costs_ordered_at_idx on private.shipped_order_costs (ordered_at) include (total_amount, goods_cost);

alter table private.shipped_order_costs enable row level security;

create policy "admins read shipped order costs" on private.shipped_order_costs
  for select to authenticated
  using ((select private.is_admin()));

revoke all on private.shipped_order_costs from public, anon, authenticated, service_role;

-- Checks the kept costs of the orders placed on the store days [first_day, last_day] against their goods and
-- writes again those that disagree (a bug, a restore, an owner's hand edit): one row for each shipped order
-- not refunded whose drawn goods all have a cost. Orders found wrong are locked first, so a ship or a refund
-- racing the check is read as it committed. Returns the orders written; run by the nightly store job.
create or replace function private.repair_kept_costs(first_day date, last_day date)
returns integer
language plpgsql security definer set search_path = '' as $$
declare
  wrong uuid[];
  repaired integer;
begin
  wrong := array(
    select coalesce(e.order_id, k.order_id)
    from (select o.id as order_id, o.ordered_at, o.total_amount, c.goods_cost
          from public.orders o
          cross join lateral (select private.drawn_cost(o.id) as goods_cost) c
          where o.order_date between first_day and last_day and o.shipped_at is not null and o.status <> 'refunded'
            and c.goods_cost is not null) e
    full join (select k.* from private.shipped_order_costs k
               join public.orders o on o.id = k.order_id and o.order_date between first_day and last_day) k
      on k.order_id = e.order_id
    where (k.ordered_at, k.total_amount, k.goods_cost) is distinct from (e.ordered_at, e.total_amount, e.goods_cost));
  perform from public.orders o where o.id = any (wrong) order by o.id for no key update;
  with due as (
    select o.id as order_id, o.ordered_at, o.total_amount, c.goods_cost,
           o.shipped_at is not null and o.status <> 'refunded' and c.goods_cost is not null as kept
    from public.orders o
    cross join lateral (select private.drawn_cost(o.id) as goods_cost) c
    where o.id = any (wrong)
  ), written as (
    insert into private.shipped_order_costs as k (order_id, ordered_at, total_amount, goods_cost)
    select d.order_id, d.ordered_at, d.total_amount, d.goods_cost from due d where d.kept
    on conflict (order_id) do update
      set ordered_at = excluded.ordered_at, total_amount = excluded.total_amount, goods_cost = excluded.goods_cost
    returning k.order_id
  ), gone as (
    delete from private.shipped_order_costs k using due d where d.order_id = k.order_id and not d.kept
    returning k.order_id
  )
  select count(*) into repaired from (select order_id from written union all select order_id from gone) x;
  return repaired;
end
$$;

revoke execute on function private.repair_kept_costs(date, date) from public, anon, authenticated;

grant execute on function private.repair_kept_costs(date, date) to service_role;

-- Puts a refunded order's drawn goods back into the lots they came from (one ledger operation), or refuses
-- (422 PRODUCT_DELETED) when a line's product was deleted: no route could touch its units again. The caller
-- holds the products' locks.
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

-- What moving an order from `from_status` to `to_status` does to its goods (public.order_status_moves), or
-- 422 INVALID_STATUS_TRANSITION naming the moves allowed from where it is: the one refusal of a move, asked
-- by the order writer (public.update_order_status) and by the status trigger below.
create or replace function private.status_move_goods(order_id uuid, from_status text, to_status text)
returns text
language plpgsql stable set search_path = '' as $$
declare
  goods text;
begin
  select m.goods into goods
  from public.order_status_moves m
  where m.from_status::text = status_move_goods.from_status and m.to_status::text = status_move_goods.to_status;
  if goods is null then
    perform private.raise_api_error(422, 'INVALID_STATUS_TRANSITION',
      format('An order that is %s cannot become %s', from_status, to_status),
      jsonb_build_object('order_id', order_id, 'from', from_status, 'to', to_status,
        'allowed', (select coalesce(jsonb_agg(m.to_status order by m.to_status), '[]')
                    from public.order_status_moves m where m.from_status::text = status_move_goods.from_status)));
  end if;
  return goods;
end
$$;

revoke execute on function private.status_move_goods(uuid, text, text) from public, anon, authenticated;

-- The status trigger: an order with lines moves only as public.order_status_moves allows (422
-- INVALID_STATUS_TRANSITION otherwise, nothing changed), and its goods move with it, in the updating
-- transaction, whoever updates it. The order's row lock (taken by the update) serialises moves of one
-- order: of a ship and a cancel racing, the second sees the first's status and is refused.
create or replace function private.move_order_goods()
returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  has_lines boolean := exists (select 1 from public.order_lines l where l.order_id = new.id);
  goods text;
begin
  if has_lines then
    goods := private.status_move_goods(new.id, old.status, new.status);
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

-- Row level, and only when the status changes: other order writes (the checkout's insert, a payment time)
-- never run it.
create trigger orders_move_goods
  before update of status on public.orders
  for each row
  when (old.status is distinct from new.status)
  execute function private.move_order_goods();

-- An order's figures that follow from something else have one writer, whoever updates the row (the table
-- owner included): for an order with lines, its total and item count are its lines' sums, fixed at placing
-- (422 ORDER_LINES_FIXED for any other value); `restocked` is written by the refund that decides it (the
-- status trigger above), never on its own; and a shipped order's kept cost follows its placing time.
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

-- A placed order's lines never change and are never removed, whoever writes (the table owner included): a
-- cancelled or refunded order keeps the trail of what it moved, and its reservation, drawn lots and total
-- were made from them. What an order may do with its goods is its status moves.
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

create trigger order_lines_within_order
  before insert on public.order_lines
  for each row execute function private.check_order_line();

revoke execute on function
  private.goods_operator(), private.lock_order_products(uuid), private.release_order_goods(uuid),
  private.ship_order_goods(uuid), private.restock_order_goods(uuid), private.move_order_goods(),
  private.guard_order_figures(), private.refuse_order_line_changes(), private.check_order_line()
from public, anon, authenticated, service_role;

revoke execute on function private.drawn_cost(uuid) from public, anon;

grant execute on function private.drawn_cost(uuid) to authenticated, service_role;
