-- The most lines an order may have and the most units a line may ask for are written once, as
-- private.max_order_lines() and private.max_line_quantity() beside private.max_order_total(); `npm run types`
-- generates every private.max_*() into `Limits`, which zod reads. private.read_order_lines refuses by them,
-- with the same words and figures as before.

-- The most an order may come to (orders.total_amount, numeric(12, 2)), the most lines it may have and the most
-- units a line may ask for. `npm run types` generates each `private.max_*()` into `Limits` of
-- database.types.ts, which zod reads: a limit is written here only.
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

revoke execute on function private.max_order_lines(), private.max_line_quantity()
from public, anon, authenticated, service_role;

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
