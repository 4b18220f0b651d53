import { createClient } from '@supabase/supabase-js';
import { describe, expect, it } from 'vitest';
import {
  ANON_KEY,
  apiUrl,
  call,
  createUser,
  database,
  DEMO_ADMIN_ID,
  DEMO_CUSTOMER_ID,
  tokens,
} from '../support/client.ts';
import { createProduct, stockFigures } from '../support/inventory.ts';

const sql = database();

describe('stock-in', () => {
  it('creates a lot, its stock-in history and a ledger row, and answers 201 with the current stock', async () => {
    const productId = await createProduct(sql);
    // A delivery a few weeks back, whenever the suite runs (a received_at ahead of now is refused).
    const receivedAt = new Date(Math.floor((Date.now() - 26 * 86_400_000) / 1000) * 1000).toISOString();
    const res = await call('stock-in', {
      method: 'POST',
      body: { product_id: productId, quantity: 12, source: 'purchase_order', note: 'PO-42', received_at: receivedAt },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, product_id: productId, quantity: 12, current_stock: 12 });
    expect(res.body.inventory_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof res.body.message).toBe('string');

    const [lot] = await sql`select * from public.inventory_records where id = ${res.body.inventory_id}`;
    expect(lot).toMatchObject({ product_id: productId, source: 'purchase_order', note: 'PO-42' });
    expect(Number(lot.quantity)).toBe(12);
    expect(Number(lot.available_quantity)).toBe(12);
    expect(lot.received_at.toISOString()).toBe(receivedAt);
    const history = await sql`select * from public.stock_in_history where inventory_record_id = ${lot.id}`;
    expect(history).toHaveLength(1);
    expect(Number(history[0].quantity)).toBe(12);
    const second = await call('stock-in', { method: 'POST', body: { product_id: productId, quantity: 3 } });
    expect(second.body.current_stock).toBe(15);
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 15, sum_available: 15, sum_deltas: 15 });
  });

  it('defaults source to manual_stock_in and received_at to now', async () => {
    const productId = await createProduct(sql);
    const res = await call('stock-in', { method: 'POST', body: { product_id: productId, quantity: 1 } });
    expect(res.status).toBe(201);
    const [lot] = await sql`
      select source, private.now() - received_at < interval '1 minute' as recent from public.inventory_records
      where id = ${res.body.inventory_id}`;
    expect(lot).toEqual({ source: 'manual_stock_in', recent: true });
  });

  it.each([
    ['missing product_id', { quantity: 1 }, 'product_id'],
    ['malformed product_id', { product_id: 'not-a-uuid', quantity: 1 }, 'product_id'],
    ['missing quantity', { product_id: '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11' }, 'quantity'],
    ['zero quantity', { product_id: '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11', quantity: 0 }, 'quantity'],
    ['negative quantity', { product_id: '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11', quantity: -5 }, 'quantity'],
    ['fractional quantity', { product_id: '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11', quantity: 1.5 }, 'quantity'],
    ['quantity as a string', { product_id: '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11', quantity: '5' }, 'quantity'],
    [
      'quantity over 1,000,000,000',
      { product_id: '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11', quantity: 1_000_000_001 },
      'quantity',
    ],
    ['unknown source', { product_id: '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11', quantity: 1, source: 'gift' }, 'source'],
    ['received_at not ISO 8601', {
      product_id: '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11',
      quantity: 1,
      received_at: 'yesterday',
    }, 'received_at'],
    ['note over 1000 characters', {
      product_id: '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11',
      quantity: 1,
      note: 'x'.repeat(1001),
    }, 'note'],
    ['an unknown field', {
      product_id: '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11',
      quantity: 1,
      operator_id: DEMO_ADMIN_ID,
    }, 'operator_id'],
  ])('refuses %s with 400 VALIDATION_ERROR naming the field', async (_, body, field) => {
    const res = await call('stock-in', { method: 'POST', body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', details: { field } });
    expect(typeof res.body.error).toBe('string');
  });

  it('refuses a request without a JSON body with 400', async () => {
    const res = await call('stock-in', { method: 'POST' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
  });

  it('answers 404 PRODUCT_NOT_FOUND for an unknown product and for a deleted one, and stores nothing', async () => {
    const deleted = await createProduct(sql, { deleted: true });
    for (const productId of [deleted, '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11']) {
      const res = await call('stock-in', { method: 'POST', body: { product_id: productId, quantity: 5 } });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'PRODUCT_NOT_FOUND' });
    }
    const [{ count }] = await sql`select count(*)::int from public.inventory_records where product_id = ${deleted}`;
    expect(count).toBe(0);
  });

  it('refuses the anonymous key, no token and a forged token with 401', async () => {
    const productId = await createProduct(sql);
    for (const token of [tokens.anon, null, `${tokens.admin.slice(0, -4)}AAAA`]) {
      const res = await call('stock-in', { method: 'POST', token, body: { product_id: productId, quantity: 1 } });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    }
    expect((await stockFigures(sql, productId)).current_stock).toBe(0);
  });

  it('records the operator from the token (admin, customer, service role), never from the body', async () => {
    const productId = await createProduct(sql);
    const other = await createUser(sql);
    const expected = [
      [tokens.admin, DEMO_ADMIN_ID, 'authenticated'],
      [tokens.customer, DEMO_CUSTOMER_ID, 'authenticated'],
      [other.token, other.id, 'authenticated'],
      [tokens.service, null, 'service_role'],
    ] as const;
    for (const [token, operatorId, role] of expected) {
      const res = await call('stock-in', { method: 'POST', token, body: { product_id: productId, quantity: 1 } });
      expect(res.status).toBe(201);
      const [lot] =
        await sql`select created_by, created_by_role from public.inventory_records where id = ${res.body.inventory_id}`;
      expect(lot).toEqual({ created_by: operatorId, created_by_role: role });
      const [movement] = await sql`
        select operator_id, operator_role, operation from public.stock_movements where inventory_record_id = ${res.body.inventory_id}`;
      expect(movement).toEqual({ operator_id: operatorId, operator_role: role, operation: 'stock_in' });
      const [history] = await sql`
        select operator_id, operator_role from public.stock_in_history where inventory_record_id = ${res.body.inventory_id}`;
      expect(history).toEqual({ operator_id: operatorId, operator_role: role });
    }
  });
});

describe('the stock functions over HTTP', () => {
  it('answer a wrong method with 405 and Allow: POST, in the inventory envelope', async () => {
    for (const name of ['stock-in', 'stock-adjust', 'stock-out']) {
      const res = await call(name, { method: 'GET' });
      expect(res.status, name).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.body).toMatchObject({ success: false, code: 'METHOD_NOT_ALLOWED' });
    }
  });

  it('let a browser send Idempotency-Key (CORS preflight)', async () => {
    for (const name of ['stock-in', 'stock-adjust', 'stock-out']) {
      const res = await call(name, { method: 'OPTIONS', token: null });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-headers')).toContain('idempotency-key');
    }
  });

  it('work from supabase-js functions.invoke, Idempotency-Key included', async () => {
    const productId = await createProduct(sql);
    const client = createClient(apiUrl, ANON_KEY, {
      auth: { persistSession: false, autoRefreshToken: false },
      accessToken: async () => tokens.customer,
    });
    const invoke = () =>
      client.functions.invoke('stock-in', {
        body: { product_id: productId, quantity: 2 },
        headers: { 'Idempotency-Key': `js-${productId}` },
      });
    const first = await invoke();
    const retry = await invoke();
    expect(first.error).toBeNull();
    expect(first.data).toMatchObject({ success: true, current_stock: 2 });
    expect(retry.data).toEqual(first.data);
    expect((await stockFigures(sql, productId)).current_stock).toBe(2);
  });
});
