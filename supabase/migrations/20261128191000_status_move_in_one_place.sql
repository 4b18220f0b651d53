-- The refusal of an order's status move written once (private.status_move_goods), asked by
-- public.update_order_status and by the status trigger (private.move_order_goods).

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
    restocked = case when update_order_status.status = 'refunded' then restock end
  where o.id = update_order_status.order_id;
  return jsonb_build_object('success', true, 'data', private.order_answer(order_id));
end
$$;
