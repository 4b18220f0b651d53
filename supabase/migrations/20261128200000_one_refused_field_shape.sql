-- One shape for a field refused over rpc: private.invalid_stock_field names a line of any list (a delivery's
-- items, an order's lines), so the order lines' own copy of it goes. The kept costs' check asks each order's
-- drawn cost once.

drop function private.invalid_stock_field(text, jsonb, text, integer, text, jsonb);

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

revoke execute on function private.invalid_stock_field(text, jsonb, text, integer, text, jsonb, text)
  from public, anon, authenticated, service_role;

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
  elsif jsonb_array_length(lines) not between 1 and 200 then
    perform private.invalid_stock_field('lines', lines,
      case when jsonb_array_length(lines) = 0 then 'must have at least 1 line' else 'at most 200 lines' end, null,
      case when jsonb_array_length(lines) = 0 then 'min_items' else 'max_items' end,
      case when jsonb_array_length(lines) = 0 then '{"min": 1}'::jsonb else '{"max": 200}' end);
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
          when number > 1000000 then array['must be at most 1000000', 'max', '{"max": 1000000}'] end
        when number < 0 then array['must be at least 0', 'min', '{"min": 0}']
        when number > private.max_order_total() then
          array['must be at most 9999999999.99', 'max', jsonb_build_object('max', private.max_order_total())::text]
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
    perform private.invalid_stock_field('lines', lines, 'the order may come to at most 9999999999.99', null,
      'max_total', jsonb_build_object('max', private.max_order_total()));
  end if;
  return read;
end
$$;

drop function private.invalid_order_line(integer, text, jsonb, text, text, jsonb);

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
