/** Products, lots and stock figures for the inventory tests, made and read over real SQL. */
import { call, type Sql, unique } from './client.ts';

export async function createProduct(sql: Sql, { deleted = false } = {}): Promise<string> {
  const sku = unique('SKU').toUpperCase();
  const [{ id }] = await sql<{ id: string }[]>`
    insert into public.products (sku, name, deleted_at)
    values (${sku}, ${`Test product ${sku}`}, ${deleted ? sql`private.now()` : null})
    returning id`;
  return id;
}

/** Lots received `daysAgo` days back, oldest first, through the real stock-in function. */
export async function stockIn(productId: string, quantity: number, daysAgo = 0): Promise<string> {
  const res = await call('stock-in', {
    method: 'POST',
    body: { product_id: productId, quantity, received_at: new Date(Date.now() - daysAgo * 86_400_000).toISOString() },
  });
  if (res.status !== 201) throw new Error(`stock-in failed: ${res.status} ${res.text}`);
  return res.body.inventory_id;
}

export interface StockFigures {
  current_stock: number;
  sum_available: number;
  sum_deltas: number;
}

/** The three views of a product's stock, which must always agree. */
export async function stockFigures(sql: Sql, productId: string): Promise<StockFigures> {
  const [figures] = await sql<StockFigures[]>`
    select p.current_stock::int,
           (select coalesce(sum(r.available_quantity), 0)::int from public.inventory_records r where r.product_id = p.id)
             as sum_available,
           (select coalesce(sum(m.delta), 0)::int from public.stock_movements m where m.product_id = p.id) as sum_deltas
    from public.products p where p.id = ${productId}`;
  return figures;
}

export async function availableByLot(sql: Sql, productId: string): Promise<Record<string, number>> {
  const rows = await sql<{ id: string; available_quantity: number }[]>`
    select id, available_quantity::int from public.inventory_records where product_id = ${productId}`;
  return Object.fromEntries(rows.map((row) => [row.id, row.available_quantity]));
}
