-- The reorder level's rule writes its bound out again: called in the products' CHECK, private.max_stock_quantity()
-- was evaluated for every update of a product. Read by PL/pgSQL only now, it pins its search_path as the other
-- limits do.

-- Its upper bound is private.max_stock_quantity(), written out (test/database/products.test.ts holds them
-- equal): the CHECK prepares this expression for every update of a product, and a function call there is
-- evaluated each time, a cost every order's reservation paid (docs/performance.md).
create or replace function private.is_reorder_level(level numeric)
returns boolean
language sql immutable parallel safe as $$
  select level between 0 and 1000000000 and level = pg_catalog.trunc(level)
$$;

-- The most units a quantity of stock may be: what one movement moves, and a product's reorder level. `npm run
-- types` generates it into `Limits.stock_quantity` of database.types.ts, which zod and the console read.
create or replace function private.max_stock_quantity()
returns bigint
language sql immutable parallel safe set search_path = '' as $$
  select 1000000000::bigint
$$;
