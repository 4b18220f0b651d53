// The parts of the benchmark data set that seed:demo does not make: products with lots, written through
// public.stock_in itself (as the service role) so the ledger and the stock agree from the start.
import postgres from 'postgres';

export async function generateInventory(url, { products, lotsPerProduct }) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      await tx`
        insert into public.products (id, sku, name)
        select md5('bench:product:' || i)::uuid, 'BENCH-' || lpad(i::text, 6, '0'), 'Bench product ' || i
        from generate_series(1, ${products}::int) i
        on conflict do nothing`;
      await tx`select set_config('role', 'service_role', true),
                      set_config('request.jwt.claims', '{"role":"service_role"}', true)`;
      await tx`
        select public.stock_in(
          product_id => p.id,
          quantity => 50 + (lot * 37 + i) % 200,
          source => 'purchase_order',
          received_at => now() - make_interval(days => 90 - lot * 20)
        )
        from generate_series(1, ${products}::int) i
        cross join generate_series(1, ${lotsPerProduct}::int) lot
        join public.products p on p.id = md5('bench:product:' || i)::uuid
        where not exists (select 1 from public.inventory_records r where r.product_id = p.id)
        order by lot, i`;
    });
  } finally {
    await sql.end();
  }
}

/**
 * The stock invariants, for every product: never negative, the lots add up to the product's stock, and
 * the ledger's deltas add up to it too. Returns the number of products breaking any of them.
 */
export async function stockInvariantViolations(url) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`
      with lots as (
        select product_id, sum(available_quantity) as available, min(available_quantity) as lowest
        from public.inventory_records group by product_id
      ), ledger as (
        select product_id, sum(delta) as total from public.stock_movements group by product_id
      )
      select count(*) filter (where p.current_stock < 0 or coalesce(l.lowest, 0) < 0
                                 or p.current_stock <> coalesce(l.available, 0)
                                 or p.current_stock <> coalesce(g.total, 0))::int as violations,
             count(*)::int as products
      from public.products p
      left join lots l on l.product_id = p.id
      left join ledger g on g.product_id = p.id`;
    return row;
  } finally {
    await sql.end();
  }
}
