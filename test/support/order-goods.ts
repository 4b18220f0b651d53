/**
 * Orders with goods for the tests, placed and moved through the real SQL functions as the store's job (the
 * service key), each call its own committed transaction, as concurrent checkouts are.
 */
import type postgres from 'postgres';
import { createCustomer, type Sql } from './client.ts';
import { createProduct } from './inventory.ts';

export interface Line {
  product_id: string;
  quantity: number;
  unit_price: number;
}

/** Runs `work` as `caller` would through supabase-js, in one committed transaction. */
export function committedAs<T>(
  sql: Sql,
  caller: { role: 'authenticated' | 'service_role'; sub?: string },
  work: (tx: postgres.TransactionSql) => Promise<T>,
): Promise<T> {
  return sql.begin(async (tx) => {
    await tx`select set_config('role', ${caller.role}, true),
                    set_config('request.jwt.claims', ${JSON.stringify({ role: caller.role, sub: caller.sub })}, true)`;
    return work(tx);
  }) as Promise<T>;
}

/** Runs `work` as the service key in one committed transaction. */
export function asStoreJob<T>(sql: Sql, work: (tx: postgres.TransactionSql) => Promise<T>): Promise<T> {
  return committedAs(sql, { role: 'service_role' }, work);
}

/** The API error a SQL function raised: its code, status and details. */
export function apiError(error: unknown) {
  const e = error as postgres.PostgresError;
  return { code: e.message, status: Number(e.code?.slice(2)), details: e.hint ? JSON.parse(e.hint) : null };
}

export async function placeOrder(sql: Sql, customerId: string, lines: Line[], status = 'pending') {
  const [{ placed }] = await asStoreJob(sql, (tx) =>
    tx`select public.place_order(${customerId}, ${tx.json(lines as never)}, ${status}) as placed`);
  return placed.data as { id: string; lines: { id: string; lots: { inventory_id: string; quantity: number }[] }[] };
}

export async function moveOrder(sql: Sql, orderId: string, status: string, restock: boolean | null = null) {
  const [{ moved }] = await asStoreJob(sql, (tx) =>
    tx`select public.update_order_status(${orderId}, ${status}, ${restock}) as moved`);
  return moved.data;
}

/** A lot received through public.stock_in, `daysAgo` days back, with its number, expiry and unit cost. */
export async function receiveLot(
  sql: Sql,
  productId: string,
  quantity: number,
  { daysAgo = 0, lotNumber = null, expiresOn = null }: {
    daysAgo?: number;
    lotNumber?: string | null;
    expiresOn?: string | null;
  } = {},
) {
  const receivedAt = new Date(Date.now() - daysAgo * 86_400_000).toISOString();
  const [{ received }] = await asStoreJob(sql, (tx) =>
    tx`select public.stock_in(${productId}, ${quantity}, 'purchase_order', null, ${receivedAt}, null, ${lotNumber},
                              ${expiresOn}::date) as received`);
  return received.inventory_id as string;
}

/** A fresh product holding `quantity` units in one lot, and a fresh customer. */
export async function stockedProduct(sql: Sql, quantity: number) {
  const productId = await createProduct(sql);
  if (quantity > 0) await receiveLot(sql, productId, quantity);
  return { productId, customerId: await createCustomer(sql, 'buyer') };
}

/**
 * The stock rules that must hold for a product after anything: on hand is its lots' sum and its ledger's;
 * reserved is what its open orders' lines hold; available is on hand less reserved, never below 0.
 */
export async function stockStates(sql: Sql, productId: string) {
  const [row] = await sql<Record<string, number>[]>`
    select p.current_stock::int as on_hand, p.reserved_stock::int as reserved, p.available_stock::int as available,
           (select coalesce(sum(r.available_quantity), 0)::int from public.inventory_records r
            where r.product_id = p.id) as lots,
           (select coalesce(sum(m.delta), 0)::int from public.stock_movements m where m.product_id = p.id) as ledger,
           (select coalesce(sum(l.quantity), 0)::int from public.order_lines l
            join public.orders o on o.id = l.order_id
            where l.product_id = p.id and o.status in ('pending', 'paid')) as open_lines
    from public.products p where p.id = ${productId}`;
  return row;
}

/** Asserts the rules of stockStates, returning the states for further checks. */
export async function consistentStock(sql: Sql, productId: string) {
  const states = await stockStates(sql, productId);
  const broken = [
    states.on_hand !== states.lots && 'on hand differs from its lots',
    states.on_hand !== states.ledger && 'on hand differs from its ledger',
    states.reserved !== states.open_lines && 'reserved differs from the open orders',
    states.available !== states.on_hand - states.reserved && 'available is not on hand less reserved',
    states.available < 0 && 'available below 0',
  ].filter(Boolean);
  if (broken.length > 0) throw new Error(`stock of ${productId}: ${broken.join('; ')} (${JSON.stringify(states)})`);
  return states;
}

/**
 * The rules an order's derived values keep after anything: an order with lines totals them (amount and item
 * count), and the kept cost of a shipped order (private.shipped_order_costs) is there exactly while it ships
 * with a known cost and is not refunded, with its placing time, total and drawn cost.
 */
export async function consistentOrder(sql: Sql, orderId: string) {
  const [row] = await sql<Record<string, unknown>[]>`
    select o.total_amount::text as total, o.item_count as items, o.ordered_at,
           (select sum(l.amount)::text from public.order_lines l where l.order_id = o.id) as lines_total,
           (select sum(l.quantity)::int from public.order_lines l where l.order_id = o.id) as lines_items,
           to_jsonb(k) - 'order_id' as kept,
           case when o.shipped_at is not null and o.status <> 'refunded' and private.drawn_cost(o.id) is not null
                then jsonb_build_object('ordered_at', o.ordered_at, 'total_amount', o.total_amount,
                                        'goods_cost', private.drawn_cost(o.id)) end as expected_kept
    from public.orders o
    left join private.shipped_order_costs k on k.order_id = o.id
    where o.id = ${orderId}`;
  const broken = [
    row.lines_items !== null && (row.total !== row.lines_total || row.items !== row.lines_items) &&
    'the total or item count differs from the lines',
    JSON.stringify(row.kept) !== JSON.stringify(row.expected_kept) && 'the kept cost differs from a recompute',
  ].filter(Boolean);
  if (broken.length > 0) throw new Error(`order ${orderId}: ${broken.join('; ')} (${JSON.stringify(row)})`);
  return row;
}
