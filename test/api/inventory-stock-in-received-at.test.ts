// A lot cannot have been received in the future: received_at orders FIFO and dates the stock-in history,
// so a lot "received" in 2099 would be drawn last forever. A few minutes ahead is tolerated as clock skew.
import { describe, expect, it } from 'vitest';
import { asRole, call, database, DEMO_CUSTOMER_ID } from '../support/client.ts';
import { createProduct, stockFigures } from '../support/inventory.ts';

const sql = database();
const customer = { role: 'authenticated', sub: DEMO_CUSTOMER_ID } as const;
const ahead = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('stock-in received_at', () => {
  it.each([
    ['in 2099', '2099-01-01T00:00:00Z'],
    ['an hour ahead', ahead(3_600_000)],
    ['six minutes ahead', ahead(6 * 60_000)],
  ])('a received_at in the future beyond the skew (%s) is refused with 400 VALIDATION_ERROR on received_at and stocks nothing', async (_, receivedAt) => {
    const productId = await createProduct(sql);
    const res = await call('stock-in', { method: 'POST', body: { product_id: productId, quantity: 5, received_at: receivedAt } });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      code: 'VALIDATION_ERROR',
      details: { field: 'received_at', constraint: 'not later than 5 minutes from now' },
    });
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 0, sum_available: 0, sum_deltas: 0 });
  });

  it('holds for supabase.rpc callers too: the SQL function refuses it with PT400', async () => {
    const productId = await createProduct(sql);
    const { error } = await asRole(sql, customer, (tx) =>
      tx`select public.stock_in(${productId}::uuid, 5::bigint, received_at => '2099-01-01T00:00:00Z'::timestamptz)`);
    expect(error?.code).toBe('PT400');
    expect(JSON.parse(error?.hint ?? '{}')).toMatchObject({ field: 'received_at' });
  });

  it('a received_at within the skew (a minute ahead) or in the past is accepted', async () => {
    const productId = await createProduct(sql);
    for (const receivedAt of [ahead(60_000), '2020-01-01T00:00:00.000Z']) {
      const res = await call('stock-in', { method: 'POST', body: { product_id: productId, quantity: 1, received_at: receivedAt } });
      expect(res.status, res.text).toBe(201);
    }
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 2, sum_available: 2, sum_deltas: 2 });
  });
});
