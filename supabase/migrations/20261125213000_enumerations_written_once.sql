-- The statuses an order can have, written once. The column stays text, checked against this type: the
-- health and attribution readers compare it with text, and the type is what the API and console generate from.
create type public.order_status as enum ('pending', 'paid', 'shipped', 'delivered', 'completed', 'cancelled', 'refunded');

-- The lists of values the stock operations accept, each written once. The columns stay text, checked
-- against these types, so a lot's source can be either kind and a new value is one `alter type ... add value`;
-- the types are what `database.types.ts` generates into `Constants` for the API and the console.
create type public.stock_in_source as enum (
  'manual_stock_in', 'purchase_order', 'return_goods', 'transfer_in', 'production_complete', 'supplier_direct', 'other'
);
create type public.stock_adjust_source as enum ('manual_adjustment', 'inventory_count', 'system_correction', 'other');
-- Which way each reason may move stock is `public.stock_adjust_reasons`.
create type public.stock_adjust_reason as enum (
  'inventory_audit_increase', 'return_goods', 'supplier_compensation', 'miscount_correction',
  'inventory_audit_decrease', 'damage_writeoff', 'expired_removal', 'loss_theft', 'quality_issue', 'other'
);
create type public.stock_operation as enum ('stock_in', 'stock_adjust', 'stock_out');
create type public.stock_adjust_direction as enum ('increase', 'decrease', 'either');

-- Which way each adjustment reason may move stock, and which reasons need a note: the rule
-- `public.stock_adjust` enforces, served as it stands (GET /stock-adjust/reasons) so a form offers only
-- what will be accepted. A reason added to the type and not listed here may go either way.
create or replace view public.stock_adjust_reasons with (security_invoker = true) as
select
  r.reason,
  case
    when r.reason in ('inventory_audit_increase', 'return_goods', 'supplier_compensation', 'miscount_correction')
      then 'increase'
    when r.reason in ('inventory_audit_decrease', 'damage_writeoff', 'expired_removal', 'loss_theft', 'quality_issue')
      then 'decrease'
    else 'either'
  end::public.stock_adjust_direction as direction,
  r.reason = 'other' as needs_note
from unnest(enum_range(null::public.stock_adjust_reason)) with ordinality as r (reason, position)
order by r.position;

revoke all on public.stock_adjust_reasons from anon;

revoke insert, update, delete, truncate on public.stock_adjust_reasons from authenticated, service_role;

grant select on public.stock_adjust_reasons to authenticated, service_role;

-- The rule a value outside a list breaks, worded as the edge functions' zod schemas word it
-- (`_shared/validation.ts` oneOf), from the enum type that holds the list.
create or replace function private.one_of(allowed anyarray)
returns text
language sql
immutable
set search_path = ''
as $$
  select 'must be one of ' || array_to_string(allowed, ', ')
$$;

revoke execute on function private.one_of(anyarray) from public, anon;

grant execute on function private.one_of(anyarray) to authenticated, service_role;

alter table public.orders drop constraint orders_status_known,
  add constraint orders_status_known check (status = any (enum_range(null::public.order_status)::text[]));

alter table public.inventory_records drop constraint inventory_records_source_known,
  add constraint inventory_records_source_known check (
    source = any (enum_range(null::public.stock_in_source)::text[] || enum_range(null::public.stock_adjust_source)::text[])
  );

alter table public.stock_movements drop constraint stock_movements_operation_known,
  add constraint stock_movements_operation_known check (operation = any (enum_range(null::public.stock_operation)::text[]));

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
  if not source = any (enum_range(null::public.stock_in_source)::text[]) then
    perform private.invalid_stock_field('source', to_jsonb(source), private.one_of(enum_range(null::public.stock_in_source)));
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
  -- An inactive product is off the sales front and receives no more goods; what it holds can still be
  -- stocked out and adjusted. Checked under the product lock, so a concurrent deactivation is seen.
  if not product.is_active then
    perform private.raise_api_error(422, 'PRODUCT_INACTIVE',
      format('Product %s is inactive and takes no stock-in', product.sku), jsonb_build_object('product_id', product.id));
  end if;
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


create or replace function public.stock_adjust(
  adjust_quantity bigint default null,
  reason text default null,
  product_id uuid default null,
  inventory_id uuid default null,
  source text default 'manual_adjustment',
  reason_note text default null,
  idempotency_key text default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  rule public.stock_adjust_reasons;
  operator record;
  replay jsonb;
  product public.products;
  lot public.inventory_records;
  target_product uuid;
  amount bigint := abs(adjust_quantity);
  details jsonb;
  allocations jsonb;
  previous_stock bigint;
  new_stock bigint;
begin
  select * into operator from private.stock_operator();
  if (product_id is null) = (inventory_id is null) then
    perform private.invalid_stock_field(case when product_id is null then 'product_id' else 'inventory_id' end,
      null, 'exactly one of product_id and inventory_id is required');
  end if;
  if adjust_quantity is null then
    perform private.invalid_stock_field('adjust_quantity', null, 'required');
  elsif adjust_quantity = 0 then
    perform private.invalid_stock_field('adjust_quantity', to_jsonb(adjust_quantity), 'must not be 0');
  elsif amount > 1000000000 then
    perform private.invalid_stock_field('adjust_quantity', to_jsonb(adjust_quantity),
      'must be between -1000000000 and 1000000000');
  end if;
  select * into rule from public.stock_adjust_reasons r where r.reason::text = stock_adjust.reason;
  if reason is null then
    perform private.invalid_stock_field('reason', null, 'required');
  elsif rule.reason is null then
    perform private.invalid_stock_field('reason', to_jsonb(reason), private.one_of(enum_range(null::public.stock_adjust_reason)));
  elsif adjust_quantity > 0 and rule.direction = 'decrease' then
    perform private.invalid_stock_field('reason', to_jsonb(reason), 'is a decrease reason; adjust_quantity is positive');
  elsif adjust_quantity < 0 and rule.direction = 'increase' then
    perform private.invalid_stock_field('reason', to_jsonb(reason), 'is an increase reason; adjust_quantity is negative');
  end if;
  if rule.needs_note and coalesce(btrim(reason_note), '') = '' then
    perform private.invalid_stock_field('reason_note', to_jsonb(reason_note), 'required when reason is ' || reason);
  elsif char_length(reason_note) > 500 then
    perform private.invalid_stock_field('reason_note', to_jsonb(reason_note), 'at most 500 characters');
  end if;
  source := coalesce(source, 'manual_adjustment');
  if not source = any (enum_range(null::public.stock_adjust_source)::text[]) then
    perform private.invalid_stock_field('source', to_jsonb(source), private.one_of(enum_range(null::public.stock_adjust_source)));
  end if;

  replay := private.claim_idempotency_key(operator.operator_key, idempotency_key, 'stock_adjust', jsonb_build_object(
    'product_id', product_id, 'inventory_id', inventory_id, 'adjust_quantity', adjust_quantity, 'reason', reason,
    'reason_note', reason_note, 'source', source));
  if replay is not null then
    return replay;
  end if;

  details := jsonb_build_object('source', source, 'reason', reason, 'reason_note', reason_note);

  if inventory_id is not null then
    select r.product_id into target_product from public.inventory_records r where r.id = stock_adjust.inventory_id;
    if not found then
      perform private.raise_api_error(404, 'INVENTORY_RECORD_NOT_FOUND',
        format('Inventory record %s does not exist', inventory_id), jsonb_build_object('inventory_id', inventory_id));
    end if;
    product := private.lock_product(target_product);
    select * into lot from public.inventory_records r where r.id = stock_adjust.inventory_id for update;
    if lot.available_quantity + adjust_quantity < 0 then
      perform private.insufficient_stock(product.id, lot.id, amount, lot.available_quantity);
    end if;
    previous_stock := lot.available_quantity;
    update public.inventory_records r
    set quantity = r.quantity + greatest(adjust_quantity, 0), available_quantity = r.available_quantity + adjust_quantity
    where r.id = lot.id
    returning r.* into lot;
    perform private.log_movement(gen_random_uuid(), 'stock_adjust', lot, adjust_quantity, details,
      operator.operator_id, operator.operator_role);
    new_stock := lot.available_quantity;
  else
    product := private.lock_product(product_id);
    previous_stock := product.current_stock;
    new_stock := product.current_stock + adjust_quantity;
    if adjust_quantity > 0 then
      select * into lot
      from public.inventory_records r
      where r.product_id = product.id
      order by r.created_at desc, r.id desc
      limit 1
      for update;
      if found then
        update public.inventory_records r
        set quantity = r.quantity + adjust_quantity, available_quantity = r.available_quantity + adjust_quantity
        where r.id = lot.id
        returning r.* into lot;
      else
        insert into public.inventory_records (product_id, quantity, available_quantity, source, note, received_at,
                                              created_by, created_by_role)
        values (product.id, adjust_quantity, adjust_quantity, stock_adjust.source,
                format('Initial stock adjustment: %s', reason), now(), operator.operator_id, operator.operator_role)
        returning * into lot;
      end if;
      perform private.log_movement(gen_random_uuid(), 'stock_adjust', lot, adjust_quantity, details,
        operator.operator_id, operator.operator_role);
    else
      if not exists (select 1 from public.inventory_records r where r.product_id = product.id) then
        perform private.raise_api_error(422, 'NO_INVENTORY_RECORD',
          format('Product %s has no inventory record to decrease', product.sku),
          jsonb_build_object('product_id', product.id));
      end if;
      if product.current_stock < amount then
        perform private.insufficient_stock(product.id, null, amount, product.current_stock);
      end if;
      allocations := private.draw_fifo(product.id, amount, gen_random_uuid(), 'stock_adjust', details,
        operator.operator_id, operator.operator_role);
      lot.id := (allocations -> 0 ->> 'inventory_id')::uuid;
    end if;
  end if;

  return private.remember_response(operator.operator_key, idempotency_key, jsonb_strip_nulls(jsonb_build_object(
    'success', true,
    'inventory_id', lot.id,
    'product_id', product.id,
    'adjustment_quantity', adjust_quantity,
    'adjustment_type', case when adjust_quantity > 0 then 'increase' else 'decrease' end,
    'previous_available_stock', previous_stock,
    'new_available_stock', new_stock,
    'current_stock', product.current_stock + adjust_quantity,
    'reason', reason,
    'reason_note', reason_note,
    'source', source,
    'allocations', allocations,
    'message', format('Stock of %s %s by %s (%s)', product.sku,
      case when adjust_quantity > 0 then 'increased' else 'decreased' end, amount, reason)
  )));
end
$$;


-- The statuses a campaign may move to next, in the enum's order; empty once it is final. It takes the
-- table's row, so it is also a computed field: supabase-js may select `allowed_transitions` beside `*`,
-- and the API answers it with every campaign, so the console offers the moves this rule accepts.
create or replace function public.allowed_transitions(campaign public.campaigns)
returns public.campaign_status[]
language sql
stable
set search_path = ''
as $$
  select coalesce(array_agg(s order by s), '{}')
  from unnest(enum_range(null::public.campaign_status)) s
  where private.campaign_status_move_allowed(campaign.status, s)
$$;


revoke execute on function public.allowed_transitions(public.campaigns) from public, anon;

grant execute on function public.allowed_transitions(public.campaigns) to authenticated, service_role;

-- Every rule a single row can break, raised with the area's codes whoever writes the row.
create or replace function private.campaigns_rules()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  type_config public.campaign_type_config;
  final_field text;
begin
  if tg_op = 'INSERT' then
    if new.status <> 'draft' then
      perform private.campaign_field_error(422, 'INVALID_STATUS_TRANSITION', 'A campaign is created as draft',
        'status', to_jsonb(new.status), 'new campaigns start as draft');
    end if;
    select * into type_config from public.campaign_type_config t where t.type_code = new.campaign_type;
    if not found or not type_config.is_active then
      perform private.campaign_field_error(400, 'VALIDATION_ERROR',
        format('Invalid campaign_type: %s is not an active campaign type', new.campaign_type),
        'campaign_type', to_jsonb(new.campaign_type),
        'an active campaign type of the site-wide, target-oriented or category-specific layer');
    end if;
    if type_config.attribution_layer = 'general' then
      perform private.campaign_field_error(400, 'VALIDATION_ERROR',
        format('Invalid campaign_type: %s is a general-layer type; general-layer types are the catalogue''s '
               'catch-all, not campaign types', new.campaign_type),
        'campaign_type', to_jsonb(new.campaign_type),
        'not a general-layer type (the catalogue''s catch-all): a type of the site-wide, target-oriented or '
        'category-specific layer');
    end if;
    new.attribution_layer := type_config.attribution_layer;
    new.attribution_weight := coalesce(new.attribution_weight, type_config.default_weight);
    new.priority_score := coalesce(new.priority_score, type_config.default_priority);
    new.created_by := auth.uid();
  else
    if new.campaign_type is distinct from old.campaign_type or new.attribution_layer is distinct from old.attribution_layer then
      perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'A campaign''s type and layer cannot change',
        'campaign_type', to_jsonb(new.campaign_type), 'fixed when the campaign is created');
    end if;
    if new.status <> old.status and not private.campaign_status_move_allowed(old.status, new.status) then
      perform private.campaign_field_error(422, 'INVALID_STATUS_TRANSITION',
        format('A campaign cannot move from %s to %s', old.status, new.status),
        'status', to_jsonb(new.status),
        coalesce(
          'allowed from ' || old.status || ': ' || nullif(array_to_string(public.allowed_transitions(old), ', '), ''),
          old.status || ' is final'));
    end if;
    -- A completed or cancelled campaign is history: attribution has counted it with its weight, priority
    -- and dates, so those stay as they were (its name, description, budget and audience may still change).
    if old.status in ('completed', 'cancelled') then
      select f into final_field
      from unnest(array['attribution_weight', 'priority_score', 'start_date', 'end_date']) f
      where to_jsonb(new) -> f is distinct from to_jsonb(old) -> f
      limit 1;
      if final_field is not null then
        perform private.campaign_field_error(422, 'CAMPAIGN_FINAL',
          format('A %s campaign keeps its %s: attribution has already counted it', old.status, final_field),
          final_field, to_jsonb(new) -> final_field, 'fixed once the campaign is completed or cancelled');
      end if;
    end if;
  end if;

  if not isfinite(new.start_date) or not isfinite(new.end_date) then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'start_date and end_date are calendar days',
      case when isfinite(new.start_date) then 'end_date' else 'start_date' end,
      to_jsonb(case when isfinite(new.start_date) then new.end_date else new.start_date end), 'a calendar day, not infinity');
  end if;
  if new.start_date > new.end_date then
    perform private.campaign_field_error(422, 'INVALID_DATE_RANGE', 'start_date must not be later than end_date',
      'end_date', to_jsonb(new.end_date), format('on or after start_date (%s)', new.start_date));
  end if;
  if new.attribution_weight < 0 or new.attribution_weight > 9.99 then
    perform private.campaign_field_error(422, 'ATTRIBUTION_WEIGHT_EXCEEDED', 'attribution_weight must be between 0 and 9.99',
      'attribution_weight', to_jsonb(new.attribution_weight), '0.00-9.99');
  end if;
  if scale(new.attribution_weight) > 2 then
    perform private.campaign_field_error(400, 'VALIDATION_ERROR', 'attribution_weight has at most 2 decimal places',
      'attribution_weight', to_jsonb(new.attribution_weight), 'at most 2 decimal places');
  end if;

  -- Every write that leaves a site-wide campaign active (activating it, moving its dates, restoring it,
  -- any edit of it) takes one transaction-level lock first, so such writes run one at a time and the
  -- exclusion constraint never waits on another writer's uncommitted entry. Without it, two batches
  -- activating campaigns of two windows in opposite orders each waited on the other's entry: a deadlock
  -- (the row locks a batch takes in id order cannot cover those waits). Writes to other campaigns, and
  -- reads, are not affected.
  if tg_op = 'UPDATE' and new.status = 'active' and new.attribution_layer = 'site-wide' and new.deleted_at is null then
    perform pg_advisory_xact_lock(hashtext('public.campaigns: one site-wide campaign active per date'));
  end if;
  return new;
end
$$;

