import { describe, expect, it } from 'vitest';
import { call, database, tokens } from '../support/client.ts';
import { availableByLot, createProduct, stockFigures, stockIn } from '../support/inventory.ts';

const sql = database();

function stockOut(body: Record<string, unknown>, token = tokens.admin) {
  return call('stock-out', { method: 'POST', token, body });
}

describe('stock-out', () => {
  it('allocates first-in-first-out by received_at across records and keeps the reference in the ledger', async () => {
    const productId = await createProduct(sql);
    const recent = await stockIn(productId, 6, 2);
    const old = await stockIn(productId, 5, 40);
    const res = await stockOut({ product_id: productId, quantity: 8, reference: 'ORDER-1001' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      product_id: productId,
      quantity: 8,
      reference: 'ORDER-1001',
      previous_available_stock: 11,
      current_stock: 3,
      allocations: [
        { inventory_id: old, quantity: 5 },
        { inventory_id: recent, quantity: 3 },
      ],
    });
    expect(await availableByLot(sql, productId)).toEqual({ [old]: 0, [recent]: 3 });
    const refs =
      await sql`select distinct reference, operation from public.stock_movements where product_id = ${productId} and delta < 0`;
    expect(refs).toEqual([{ reference: 'ORDER-1001', operation: 'stock_out' }]);
  });

  it('a stock-out can empty the product exactly', async () => {
    const productId = await createProduct(sql);
    await stockIn(productId, 4, 1);
    const res = await stockOut({ product_id: productId, quantity: 4 });
    expect(res.status).toBe(200);
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 0, sum_available: 0, sum_deltas: 0 });
  });

  it('is 422 INSUFFICIENT_STOCK when short, also with no records at all, and changes nothing', async () => {
    const productId = await createProduct(sql);
    const none = await stockOut({ product_id: productId, quantity: 1 });
    expect(none.status).toBe(422);
    expect(none.body).toMatchObject({
      success: false,
      code: 'INSUFFICIENT_STOCK',
      details: { requested: 1, available: 0 },
    });
    await stockIn(productId, 2, 1);
    const short = await stockOut({ product_id: productId, quantity: 3 });
    expect(short.status).toBe(422);
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 2, sum_available: 2, sum_deltas: 2 });
  });

  it('answers 404 for an unknown or deleted product and 401 for the anonymous key', async () => {
    const deleted = await createProduct(sql, { deleted: true });
    for (const productId of [deleted, '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11']) {
      const res = await stockOut({ product_id: productId, quantity: 1 });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('PRODUCT_NOT_FOUND');
    }
    const anonymous = await stockOut({ product_id: deleted, quantity: 1 }, tokens.anon);
    expect(anonymous.status).toBe(401);
  });

  it.each([
    ['a zero quantity', { quantity: 0 }, 'quantity'],
    ['a reference over 200 characters', { quantity: 1, reference: 'r'.repeat(201) }, 'reference'],
    ['an unknown field', { quantity: 1, inventory_id: '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11' }, 'inventory_id'],
  ])('refuses %s with 400', async (_, extra, field) => {
    const res = await stockOut({ product_id: '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11', ...extra });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });
});
