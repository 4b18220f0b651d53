-- The products dimension's figures: active products, the share in stock and the share sold in the
-- window. The product and stock tables belong to the inventory model (issue #3), which has not landed
-- yet; until a later migration replaces this function over them, there is no product to score and the
-- dimension is 0 (docs/business-health.md, "Products").
create or replace function private.health_product_figures(as_of timestamptz, days integer)
returns table (products bigint, in_stock_share numeric, sold_share numeric)
language sql
stable
set search_path = ''
as $$
  select 0::bigint, null::numeric, null::numeric
$$;

revoke execute on function private.health_product_figures(timestamptz, integer) from public, anon, authenticated;
grant execute on function private.health_product_figures(timestamptz, integer) to service_role;
