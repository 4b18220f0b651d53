-- The most units a quantity of stock may be, written once: private.max_stock_quantity(), which the stock
-- checks, the reorder level's rule and (through the generated types) zod and the console read.

-- The most units a quantity of stock may be: what one movement moves, and a product's reorder level. `npm run
-- types` generates it into `Limits.stock_quantity` of database.types.ts, which zod and the console read.
create or replace function private.max_stock_quantity()
returns bigint
language sql immutable parallel safe as $$
  select 1000000000::bigint
$$;

create or replace function private.is_reorder_level(level numeric)
returns boolean
language sql immutable parallel safe as $$
  select level between 0 and private.max_stock_quantity() and level = pg_catalog.trunc(level)
$$;

revoke execute on function private.max_stock_quantity() from public, anon;

grant execute on function private.max_stock_quantity() to authenticated, service_role;

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

-- The products function's field rules, for rpc callers: only known fields, each of the right type and
-- range; `required` names the fields that must be present.
create or replace function private.check_product_fields(fields jsonb, required text[])
returns void
language plpgsql set search_path = '' as $$
declare
  field text;
  value jsonb;
  problem text;
begin
  if jsonb_typeof(fields) is distinct from 'object' then
    perform private.raise_api_error(400, 'VALIDATION_ERROR', 'Invalid body: must be a JSON object',
      jsonb_build_object('field', null, 'value', fields, 'constraint', 'must be a JSON object'));
  end if;
  foreach field in array required loop
    if not fields ? field then
      perform private.raise_api_error(400, 'VALIDATION_ERROR', format('Invalid %s: required', field),
        jsonb_build_object('field', field, 'value', null, 'constraint', 'required'));
    end if;
  end loop;
  for field, value in select j.key, j.value from jsonb_each(fields) j loop
    problem := null;
    if field = 'sku' then
      if jsonb_typeof(value) <> 'string' or not private.is_product_sku(value #>> '{}') then
        problem := 'letters, digits, dot, underscore or hyphen, starting with a letter or digit, at most 64 characters';
      end if;
    elsif field = 'name' then
      if jsonb_typeof(value) <> 'string' or not private.is_product_name(value #>> '{}') then
        problem := 'a string of 1 to 200 characters';
      end if;
    elsif field = 'is_active' then
      if jsonb_typeof(value) <> 'boolean' then
        problem := 'must be true or false';
      end if;
    elsif field = 'allocation' then
      if jsonb_typeof(value) <> 'string' or not value #>> '{}' = any (enum_range(null::public.stock_allocation)::text[]) then
        problem := private.one_of(enum_range(null::public.stock_allocation));
      end if;
    elsif field = 'reorder_level' then
      -- Two statements, so the cast never meets a value that is not a number.
      if jsonb_typeof(value) <> 'number' then
        problem := format('a whole number from 0 to %s', private.max_stock_quantity());
      elsif not private.is_reorder_level((value #>> '{}')::numeric) then
        problem := format('a whole number from 0 to %s', private.max_stock_quantity());
      end if;
    else
      problem := 'unknown field';
    end if;
    if problem is not null then
      perform private.raise_api_error(400, 'VALIDATION_ERROR', format('Invalid %s: %s', field, problem),
        jsonb_build_object('field', field, 'value', value, 'constraint', problem));
    end if;
  end loop;
end
$$;
