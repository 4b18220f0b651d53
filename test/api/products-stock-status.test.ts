// Where each product's stock stands (stock_status: out of stock apart from low), the lots about to expire
// (GET /products/expiring) and the counts the console's navigation shows (GET /products/summary). On a
// database of its own, so every count is exact while the other files write theirs.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startFunctions } from '../../scripts/lib/stack.mjs';
import { call, scratchDatabase, tokens } from '../support/client.ts';
import { addDays } from '../support/campaigns.ts';

const scratch = scratchDatabase('stock_status');
let functions: Awaited<ReturnType<typeof startFunctions>>;
let sql: postgres.Sql;
let today: string;

const request = (method: string, path: string, body?: unknown, token = tokens.admin) =>
  call(path, { method, body, token, base: functions.url });

async function product(sku: string, stock: number, reorderLevel: number, isActive = true) {
  const created = await request('POST', 'products', { sku, name: `Product ${sku}`, reorder_level: reorderLevel });
  if (stock > 0) await request('POST', 'stock-in', { product_id: created.body.data.id, quantity: stock });
  if (!isActive) await request('PUT', `products/${created.body.data.id}`, { is_active: false });
  return created.body.data.id as string;
}

beforeAll(async () => {
  await scratch.createMigrated();
  sql = postgres(scratch.url, { max: 2, onnotice: () => {} });
  functions = await startFunctions({ dbUrl: scratch.url, port: await freePort(), env: { DB_POOL_SIZE: '3' } });
  [{ today }] = await sql<{ today: string }[]>`select private.store_today()::text as today`;
}, 120_000);

afterAll(async () => {
  await functions?.stop();
  await sql?.end();
});

describe('stock_status', () => {
  it('is out_of_stock at 0, low_stock at or below the reorder level, in_stock above, and the list filters by it', async () => {
    const ids = {
      empty: await product('STATUS-EMPTY', 0, 5),
      emptyNoLevel: await product('STATUS-EMPTY-0', 0, 0),
      atLevel: await product('STATUS-AT', 5, 5),
      above: await product('STATUS-ABOVE', 6, 5),
    };
    const statuses = Object.fromEntries(
      await Promise.all(Object.entries(ids).map(async ([name, id]) => [name, (await request('GET', `products/${id}`)).body.data.stock_status])),
    );
    expect(statuses).toEqual({ empty: 'out_of_stock', emptyNoLevel: 'out_of_stock', atLevel: 'low_stock', above: 'in_stock' });

    const [counts] = await sql<{ out: number; low: number }[]>`
      select count(*) filter (where current_stock = 0)::int as out,
             count(*) filter (where current_stock > 0 and current_stock <= reorder_level)::int as low
      from public.products where deleted_at is null`;
    const out = await request('GET', 'products?stock_status=out_of_stock&per_page=200');
    expect(out.body.pagination.total_count).toBe(counts.out);
    expect(out.body.data.every((p: { current_stock: number }) => p.current_stock === 0)).toBe(true);
    const low = await request('GET', 'products?stock_status=low_stock&per_page=200');
    expect(low.body.pagination.total_count).toBe(counts.low);
    expect(low.body.data.map((p: { sku: string }) => p.sku)).toContain('STATUS-AT');
    expect(low.body.data.map((p: { sku: string }) => p.sku)).not.toContain('STATUS-EMPTY');
    expect((await request('GET', 'products?stock_status=sold_out')).status).toBe(400);
  });
});

describe('GET /products/expiring', () => {
  it('lists the lots with stock left expiring within N store days or already expired, soonest first', async () => {
    const id = await product('EXPIRY-A', 0, 0);
    const lot = async (quantity: number, expires_on: string, receivedDaysAgo = 0) =>
      (await request('POST', 'stock-in', {
        product_id: id,
        quantity,
        expires_on,
        lot_number: `L-${expires_on}`,
        received_at: new Date(Date.now() - receivedDaysAgo * 86_400_000).toISOString(),
      })).body.inventory_id as string;
    const expired = await lot(2, addDays(today, -1), 20);
    const emptied = await lot(1, addDays(today, 1), 10);
    const soon = await lot(3, addDays(today, 10));
    const todayLot = await lot(4, today);
    const later = await lot(5, addDays(today, 45));
    await request('POST', 'stock-adjust', { inventory_id: emptied, adjust_quantity: -1, reason: 'expired_removal' });

    const within30 = await request('GET', 'products/expiring');
    const rows = within30.body.data.filter((r: { product_id: string }) => r.product_id === id);
    expect(rows.map((r: { inventory_id: string }) => r.inventory_id)).toEqual([expired, todayLot, soon]);
    expect(rows.map((r: { days_left: number }) => r.days_left)).toEqual([-1, 0, 10]);
    expect(rows[2]).toMatchObject({ sku: 'EXPIRY-A', lot_number: `L-${addDays(today, 10)}`, available_quantity: 3 });

    const within60 = await request('GET', 'products/expiring?within_days=60');
    expect(within60.body.data.map((r: { inventory_id: string }) => r.inventory_id)).toContain(later);
    const none = await request('GET', 'products/expiring?within_days=0');
    expect(none.body.data.filter((r: { product_id: string }) => r.product_id === id).map((r: { inventory_id: string }) => r.inventory_id))
      .toEqual([expired, todayLot]);
    // Soonest first across products too: the seeded lots' expiries and these in one order.
    const days = within30.body.data.map((r: { expires_on: string }) => r.expires_on);
    expect(days).toEqual([...days].sort());
    expect((await request('GET', 'products/expiring?within_days=-1')).status).toBe(400);
  });

  it('a customer sees only the lots they received', async () => {
    const id = await product('EXPIRY-CUSTOMER', 0, 0);
    await request('POST', 'stock-in', { product_id: id, quantity: 1, expires_on: addDays(today, 2) }, tokens.customer);
    await request('POST', 'stock-in', { product_id: id, quantity: 1, expires_on: addDays(today, 3) });
    const seen = await request('GET', 'products/expiring', undefined, tokens.customer);
    expect(seen.body.data.filter((r: { product_id: string }) => r.product_id === id)).toHaveLength(1);
  });
});

describe('GET /products/summary', () => {
  it('counts the active products out of stock and low, and the lots expiring within 30 days, as the lists do', async () => {
    await product('SUMMARY-INACTIVE-EMPTY', 0, 5, false);
    const summary = await request('GET', 'products/summary');
    const [expected] = await sql<{ out: number; low: number; expiring: number }[]>`
      select count(*) filter (where current_stock = 0 and is_active)::int as out,
             count(*) filter (where current_stock > 0 and current_stock <= reorder_level and is_active)::int as low,
             (select count(*)::int from public.inventory_records
              where available_quantity > 0 and expires_on <= private.store_today() + 30) as expiring
      from public.products where deleted_at is null`;
    expect(summary.body.data).toEqual({ out_of_stock: expected.out, low_stock: expected.low, expiring_lots: expected.expiring, within_days: 30 });
    expect(expected.out).toBeGreaterThan(0);
    expect(expected.expiring).toBeGreaterThan(0);
    const listed = await request('GET', 'products/expiring?per_page=200');
    expect(summary.body.data.expiring_lots).toBe(listed.body.pagination.total_count);
    expect((await request('GET', 'products/summary?x=1')).status).toBe(400);
  });
});
