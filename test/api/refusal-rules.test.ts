// Every field refusal names its rule by a stable code and its figures (details.rule, details.params), so a
// client words it in its own language; the English `constraint` stays beside them. Whether zod refuses
// (before the database) or the database does (rules only it can check), the shape is the same.
import { describe, expect, it } from 'vitest';
import { call } from '../support/client.ts';
import { createProduct } from '../support/inventory.ts';
import { database } from '../support/client.ts';

const sql = database();
const someId = '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11';

describe('a refused field names its rule and figures', () => {
  it.each([
    ['a missing quantity', 'stock-in', { product_id: someId }, 'quantity', 'required', undefined],
    ['a quantity of 0', 'stock-in', { product_id: someId, quantity: 0 }, 'quantity', 'min', { min: 1 }],
    ['a quantity over the limit', 'stock-in', { product_id: someId, quantity: 1_000_000_001 }, 'quantity', 'max', { max: 1_000_000_000 }],
    ['a fractional quantity', 'stock-in', { product_id: someId, quantity: 1.5 }, 'quantity', 'type', { expected: 'int' }],
    ['an unknown source', 'stock-in', { product_id: someId, quantity: 1, source: 'gift' }, 'source', 'one_of', undefined],
    ['a note of 1001 characters', 'stock-in', { product_id: someId, quantity: 1, note: 'x'.repeat(1001) }, 'note', 'max_length', { max: 1000 }],
    ['a lot number of 65 characters', 'stock-in', { product_id: someId, quantity: 1, lot_number: 'L'.repeat(65) }, 'lot_number', 'max_length', { max: 64 }],
    ['a day that does not exist', 'stock-in', { product_id: someId, quantity: 1, expires_on: '2027-02-30' }, 'expires_on', 'real_date', undefined],
    ['a field the route does not take', 'stock-in', { product_id: someId, quantity: 1, price: 3 }, 'price', 'unknown_field', undefined],
    ['a malformed id', 'stock-in', { product_id: 'nope', quantity: 1 }, 'product_id', 'format', { format: 'guid' }],
    ['an adjustment of 0', 'stock-adjust', { product_id: someId, adjust_quantity: 0, reason: 'other' }, 'adjust_quantity', 'not_zero', undefined],
    ['a SKU with a space', 'products', { sku: 'A B', name: 'x' }, 'sku', 'format', { format: 'pattern' }],
    ['an empty name', 'products', { sku: 'EMPTY-NAME', name: ' ' }, 'name', 'min_length', { min: 1 }],
    ['a line of a delivery', 'stock-in/batch', { items: [{ product_id: someId, quantity: 0 }] }, 'items.0.quantity', 'min', { min: 1 }],
    ['a delivery of no lines', 'stock-in/batch', { items: [] }, 'items', 'min_items', { min: 1 }],
  ])('%s', async (_, path, body, field, rule, params) => {
    const res = await call(path, { method: 'POST', body });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field, rule, ...(params ? { params } : {}) });
    expect(typeof res.body.details.constraint).toBe('string');
    if (rule === 'one_of') expect(res.body.details.params.values).toContain('purchase_order');
  });

  it('the campaigns area names them too, in its own envelope', async () => {
    const res = await call('campaigns', {
      method: 'POST',
      body: { name: 'x', campaign_type: 'brand_week', start_date: '2027-01-01', end_date: '2027-01-02', budget: 1.005 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ field: 'budget', rule: 'decimals', params: { max: 2 } });
  });

  it.each([
    ['goods received tomorrow', { quantity: 1, received_at: new Date(Date.now() + 86_400_000).toISOString() }, 'received_at', 'not_future', { minutes: 5 }],
    ['an expiry before the day received', { quantity: 1, expires_on: '2001-01-01' }, 'expires_on', 'not_before_received', undefined],
  ])('the database names the rules only it checks: %s', async (_, body, field, rule, params) => {
    const productId = await createProduct(sql);
    const res = await call('stock-in', { method: 'POST', body: { product_id: productId, ...body } });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field, rule, ...(params ? { params } : {}) });
  });

  it('an adjustment whose reason points the other way names the direction', async () => {
    const productId = await createProduct(sql);
    const res = await call('stock-adjust', { method: 'POST', body: { product_id: productId, adjust_quantity: 5, reason: 'damage_writeoff' } });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field: 'reason', rule: 'reason_direction', params: { direction: 'decrease' } });
  });
});
