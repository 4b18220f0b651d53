-- The database's clock, settable in tests: every time the schema reads comes from private.now() (and
-- private.clock_timestamp()), which is now() unless `store.clock_offset` moves it, so `npm run test:at`
-- runs the whole store at a chosen moment. Column defaults, the functions and the views that read the time
-- switch to it; nothing else changes.

create or replace function private.now()
returns timestamptz
language sql stable as $$
  select pg_catalog.now() + coalesce(nullif(pg_catalog.current_setting('store.clock_offset', true), '')::pg_catalog.interval, '0'::pg_catalog.interval)
$$;

create or replace function private.clock_timestamp()
returns timestamptz
language sql as $$
  select pg_catalog.clock_timestamp() + coalesce(nullif(pg_catalog.current_setting('store.clock_offset', true), '')::pg_catalog.interval, '0'::pg_catalog.interval)
$$;

revoke execute on function private.now(), private.clock_timestamp() from public, anon;

grant execute on function private.now(), private.clock_timestamp() to authenticated, service_role;

alter table public.user_roles alter column granted_at set default private.now();
alter table public.campaign_type_config alter column created_at set default private.now();
alter table public.campaign_type_config alter column updated_at set default private.now();
alter table public.customers alter column created_at set default private.now();
alter table public.customers alter column updated_at set default private.now();
alter table public.orders alter column ordered_at set default private.now();
alter table public.orders alter column updated_at set default private.now();
alter table public.products alter column created_at set default private.now();
alter table public.products alter column updated_at set default private.now();
alter table public.inventory_records alter column received_at set default private.now();
alter table public.inventory_records alter column created_at set default private.clock_timestamp();
alter table public.inventory_records alter column updated_at set default private.now();
alter table public.stock_in_history alter column created_at set default private.now();
alter table public.stock_movements alter column created_at set default private.now();
alter table public.idempotency_records alter column created_at set default private.now();
alter table public.campaigns alter column created_at set default private.now();
alter table public.campaigns alter column updated_at set default private.now();
alter table public.campaign_status_history alter column changed_at set default private.now();
alter table public.support_tickets alter column opened_at set default private.now();
alter table public.support_tickets alter column created_at set default private.now();
alter table public.support_tickets alter column updated_at set default private.now();
alter table private.function_requests alter column at set default private.now();

create or replace function private.touch_updated_at()
returns trigger
language plpgsql set search_path = '' as $$
begin
  new.updated_at := private.now();
  return new;
end
$$;

create or replace function private.purge_idempotency_records(max_rows integer default null)
returns integer
language plpgsql set search_path = '' as $$
declare
  purged integer;
begin
  with expired as (
    select r.operator, r.idempotency_key
    from public.idempotency_records r
    where r.created_at < (select private.now() - private.idempotency_ttl())
    limit purge_idempotency_records.max_rows
    for update skip locked
  )
  delete from public.idempotency_records r
  using expired e
  where r.operator = e.operator and r.idempotency_key = e.idempotency_key;
  get diagnostics purged = row_count;
  return purged;
end
$$;

create or replace function private.claim_idempotency_key(operator text, idempotency_key text, operation text, request jsonb)
returns jsonb
language plpgsql set search_path = '' as $$
declare
  hashed text := encode(
    sha256(convert_to(jsonb_build_object('operation', operation, 'request', request)::text, 'UTF8')), 'hex');
  existing public.idempotency_records;
begin
  if idempotency_key is null then
    return null;
  end if;
  if idempotency_key !~ '^[\x21-\x7e]{1,255}$' then
    perform private.invalid_stock_field('Idempotency-Key', to_jsonb(idempotency_key),
      '1 to 255 visible ASCII characters');
  end if;
  if random() < 0.01 then
    perform private.purge_idempotency_records(1000);
  end if;

  insert into public.idempotency_records (operator, idempotency_key, operation, request_hash)
  values (claim_idempotency_key.operator, claim_idempotency_key.idempotency_key, claim_idempotency_key.operation,
          hashed)
  on conflict do nothing;
  if found then
    return null;
  end if;

  select * into existing
  from public.idempotency_records r
  where r.operator = claim_idempotency_key.operator and r.idempotency_key = claim_idempotency_key.idempotency_key
  for update;

  if existing.created_at < private.now() - private.idempotency_ttl() then
    update public.idempotency_records r
    set operation = claim_idempotency_key.operation, request_hash = hashed,
        response = null, created_at = private.now()
    where r.operator = claim_idempotency_key.operator and r.idempotency_key = claim_idempotency_key.idempotency_key;
    return null;
  end if;
  if existing.request_hash <> hashed then
    perform private.raise_api_error(422, 'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was already used with a different request',
      jsonb_build_object('idempotency_key', idempotency_key, 'first_used_at', private.api_timestamp(existing.created_at),
        'first_operation', existing.operation));
  end if;
  return existing.response;
end
$$;

create or replace function public.stock_in(
  product_id uuid,
  quantity bigint,
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
  if received_at > private.now() + interval '5 minutes' then
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
          coalesce(stock_in.received_at, private.now()), operator.operator_id, operator.operator_role)
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
language plpgsql security definer set search_path = '' as $$
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
                format('Initial stock adjustment: %s', reason), private.now(), operator.operator_id, operator.operator_role)
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

create or replace function public.delete_product(product_id uuid)
returns public.products
language plpgsql set search_path = '' as $$
declare
  product public.products;
begin
  perform private.require_product_admin();

  select * into product
  from public.products p
  where p.id = delete_product.product_id and p.deleted_at is null
  for update;
  if not found then
    perform private.product_not_found(product_id);
  end if;
  if product.current_stock > 0 then
    perform private.raise_api_error(422, 'PRODUCT_HAS_STOCK',
      format('Product %s still holds %s units: stock them out or write them off first', product.sku,
        product.current_stock),
      jsonb_build_object('product_id', product.id, 'current_stock', product.current_stock));
  end if;

  update public.products p set deleted_at = private.now(), is_active = false
  where p.id = product.id
  returning p.* into product;
  return product;
end
$$;

create or replace function private.campaigns_record_status()
returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' or new.status <> old.status then
    insert into public.campaign_status_history (campaign_id, from_status, to_status, changed_at, changed_by, changed_by_role)
    values (new.id, case when tg_op = 'UPDATE' then old.status end, new.status,
            greatest(private.now(), (select max(h.changed_at) from public.campaign_status_history h
                               where h.campaign_id = new.id)),
            auth.uid(), coalesce(auth.role(), session_user));
  end if;
  return null;
end
$$;

create or replace function public.delete_campaign(campaign_id uuid)
returns public.campaigns
language plpgsql set search_path = '' as $$
declare
  deleted public.campaigns;
begin
  perform private.require_campaign_admin();
  update public.campaigns c set deleted_at = private.now()
  where c.id = campaign_id and c.deleted_at is null
  returning c.* into deleted;
  if not found then
    perform private.campaign_not_found(campaign_id);
  end if;
  return deleted;
end
$$;

create or replace function private.campaign_metrics(target_campaign uuid)
returns table (
  attributed_revenue numeric,
  attribution_days bigint,
  avg_daily_revenue numeric,
  collaboration_campaigns bigint,
  competition_intensity text,
  daily_attribution jsonb
)
language sql stable set search_path = '' as $$
  with days as materialized (
    select r.attribution_date, r.total_active_campaigns, r.normalized_weight, r.attributed_amount
    from public.campaigns c
    cross join lateral private.campaign_attribution_rows(
      c.start_date, least(c.end_date, (private.now() at time zone 'UTC')::date), null, true, c.id) r
    where c.id = target_campaign and c.deleted_at is null
  ),
  figures as (
    select coalesce(sum(attributed_amount), 0) as attributed_revenue,
           count(*) as attribution_days,
           round(avg(total_active_campaigns)) as typical_competition
    from days
  )
  select f.attributed_revenue,
         f.attribution_days,
         case when f.attribution_days = 0 then 0 else round(f.attributed_revenue / f.attribution_days, 2) end,
         (select count(*)
          from (select o.campaign_id
                from private.campaign_attribution_days o
                where o.attribution_date in (select d.attribution_date from days d)
                  and o.campaign_id <> target_campaign
                group by o.campaign_id) others),
         case when f.typical_competition >= 4 then 'high' when f.typical_competition >= 2 then 'medium' else 'low' end,
         coalesce((select jsonb_agg(jsonb_build_object(
                            'date', d.attribution_date,
                            'attributed_amount', d.attributed_amount,
                            'attribution_percentage', d.normalized_weight * 100)
                          order by d.attribution_date)
                   from days d), '[]')
  from figures f
$$;

create or replace function public.revenue_attribution(from_date date, to_date date)
returns table (
  campaign_id uuid,
  campaign_name text,
  campaign_type text,
  attribution_layer public.attribution_layer,
  analysis_date date,
  active_days integer,
  first_active_date date,
  last_active_date date,
  total_attributed_revenue numeric,
  avg_attribution_weight numeric
)
language plpgsql stable set search_path = '' as $$
#variable_conflict use_column
begin
  perform private.check_analysis_range(from_date, to_date);
  return query
  select r.campaign_id,
         c.name,
         c.campaign_type,
         r.attribution_layer,
         (private.now() at time zone 'UTC')::date,
         count(*)::integer,
         min(r.attribution_date),
         max(r.attribution_date),
         sum(r.attributed_amount),
         round(avg(r.normalized_weight), 4)
  from private.campaign_attribution_rows(from_date, to_date, null, true) r
  join public.campaigns c
    on c.id = r.campaign_id and c.deleted_at is null and c.end_date >= from_date and c.start_date <= to_date
  group by r.campaign_id, c.name, c.campaign_type, r.attribution_layer;
end
$$;

create or replace view public.campaign_overlap_calendar with (security_invoker = true) as
select c.date, c.active_campaign_count, c.active_campaigns, c.active_layers, c.total_revenue, c.competition_intensity
from public.campaign_calendar('-infinity', (private.now() at time zone 'UTC')::date) c;

create or replace view public.revenue_attribution_analysis with (security_invoker = true) as
select a.campaign_id, a.campaign_name, a.campaign_type, a.attribution_layer, a.analysis_date, a.active_days,
       a.first_active_date, a.last_active_date, a.total_attributed_revenue, a.avg_attribution_weight
from public.revenue_attribution('-infinity', (private.now() at time zone 'UTC')::date) a;

create or replace view public.campaign_collaboration_analysis with (security_invoker = true) as
select c.campaign_1_id, c.campaign_1_name, c.campaign_1_layer, c.campaign_2_id, c.campaign_2_name, c.campaign_2_layer,
       c.overlap_days, c.first_overlap_date, c.last_overlap_date, c.same_layer
from public.campaign_collaboration('-infinity', (private.now() at time zone 'UTC')::date) c;

create or replace function private.hit_rate_limit(p_bucket text, p_limit integer)
returns table (hits integer, allowed boolean, retry_after integer)
language plpgsql set search_path = '' as $$
declare
  v_now timestamptz := private.clock_timestamp();
  v_window timestamptz := to_timestamp(floor(extract(epoch from v_now) / 60) * 60);
begin
  if random() < 0.01 then
    delete from private.rate_limit_windows w where w.window_start < v_window - interval '2 minutes';
  end if;
  insert into private.rate_limit_windows as w (bucket, window_start, hits)
  values (p_bucket, v_window, 1)
  on conflict (bucket, window_start) do update set hits = w.hits + 1
  returning w.hits into hits;
  allowed := hits <= p_limit;
  retry_after := greatest(1, ceil(extract(epoch from (v_window + interval '60 seconds') - v_now)))::integer;
  return next;
end
$$;

create or replace function private.record_function_request(p_function text, p_status integer, p_duration_ms integer)
returns void
language plpgsql set search_path = '' as $$
begin
  if random() < 0.01 then
    delete from private.function_requests r where r.at < (select private.now()) - interval '1 day';
  end if;
  insert into private.function_requests (function_name, status, duration_ms)
  values (p_function, p_status, greatest(p_duration_ms, 0));
end
$$;

create or replace function health.business_health(
  period text,
  include_system boolean,
  include_trends boolean,
  include_insights boolean,
  language text default 'zh-TW'
)
returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  banned_until text;
begin
  -- A signed token whose account is gone or banned no longer speaks for anyone.
  if auth.role() = 'authenticated' then
    select to_jsonb(u) ->> 'banned_until' into banned_until from auth.users u where u.id = (select auth.uid());
    if not found or banned_until::timestamptz > private.now() then
      perform private.raise_api_error(403, 'PERMISSION_DENIED', 'This account may not view business health');
    end if;
  elsif coalesce(auth.role(), '') not in ('anon', 'service_role') then
    perform private.raise_api_error(403, 'PERMISSION_DENIED', 'This role may not view business health');
  end if;
  return private.health_report(period, include_system, include_trends, include_insights, private.now(), language);
end
$$;

create or replace function health.business_figures(period text)
returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  days integer := case period when '7d' then 7 when '30d' then 30 when '90d' then 90 end;
begin
  if not private.is_admin() then
    perform private.raise_api_error(403, 'INSUFFICIENT_PERMISSION', 'Administrator permission is required to see the figures');
  end if;
  if days is null then
    perform private.raise_api_error(400, 'INVALID_PARAMETER', 'Invalid period', jsonb_build_object(
      'parameter', 'period', 'provided', period, 'expected', jsonb_build_array('7d', '30d', '90d')));
  end if;
  return jsonb_build_object('period', period, 'as_of', private.api_timestamp(private.now())) || private.health_period_figures(private.now(), days);
end
$$;
