-- The products dimension's figures, over the inventory model (20261123001000, 20261123001010): active
-- products (active, not deleted, created before `as_of`), the share of them in stock, and the share
-- with an outbound shipment (`stock_out` movement) in the window. Stock is `products.current_stock`, the
-- sum of the lots' available quantity kept by the stock functions: it is read as it is now, also for a
-- past `as_of`, because lots written outside the stock functions leave no ledger to rewind.
-- plpgsql, whose body is resolved when it runs: the migrations apply whichever of the inventory
-- migrations has landed first.
create or replace function private.health_product_figures(as_of timestamptz, days integer)
returns table (products bigint, in_stock_share numeric, sold_share numeric)
language plpgsql
stable
set search_path = ''
as $$
begin
  return query
  with active as (
    select p.id, p.current_stock
    from public.products p
    where p.is_active and p.deleted_at is null and p.created_at < as_of
  )
  select count(*),
         (count(*) filter (where a.current_stock > 0))::numeric / nullif(count(*), 0),
         (count(*) filter (where exists (
            select 1 from public.stock_movements m
            where m.product_id = a.id and m.operation = 'stock_out'
              and m.created_at >= as_of - make_interval(days => days) and m.created_at < as_of
          )))::numeric / nullif(count(*), 0)
  from active a;
end
$$;

revoke execute on function private.health_product_figures(timestamptz, integer) from public, anon, authenticated;
grant execute on function private.health_product_figures(timestamptz, integer) to service_role;
