import { describe, expect, it } from 'vitest';
import { call, createUser, database, tokens, unique } from '../support/client.ts';
import { createProduct, stockFigures, stockIn } from '../support/inventory.ts';

const sql = database();

function post(name: string, body: Record<string, unknown>, key: string, token = tokens.admin) {
  return call(name, { method: 'POST', token, body, headers: { 'idempotency-key': key } });
}

describe('Idempotency-Key', () => {
  it('a retried stock-in replays the first response (status and body) and stocks in once', async () => {
    const productId = await createProduct(sql);
    const key = unique('retry');
    const first = await post('stock-in', { product_id: productId, quantity: 5 }, key);
    const again = await post('stock-in', { product_id: productId, quantity: 5 }, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 5, sum_available: 5, sum_deltas: 5 });
    const [{ count }] = await sql`select count(*)::int from public.stock_in_history where product_id = ${productId}`;
    expect(count).toBe(1);
  });

  it('a retried stock-adjust and stock-out replay their first response even after the stock has moved', async () => {
    const productId = await createProduct(sql);
    await stockIn(productId, 10, 3);
    const adjustKey = unique('adjust');
    const outKey = unique('out');
    const adjustBody = { product_id: productId, adjust_quantity: -2, reason: 'damage_writeoff' };
    const outBody = { product_id: productId, quantity: 3, reference: 'ORDER-7' };
    const adjusted = await post('stock-adjust', adjustBody, adjustKey);
    const out = await post('stock-out', outBody, outKey);
    await stockIn(productId, 100);
    const adjustedAgain = await post('stock-adjust', adjustBody, adjustKey);
    const outAgain = await post('stock-out', outBody, outKey);
    expect(adjustedAgain).toMatchObject({ status: 200, body: adjusted.body });
    expect(outAgain).toMatchObject({ status: 200, body: out.body });
    expect(out.body.current_stock).toBe(5);
    expect((await stockFigures(sql, productId)).current_stock).toBe(105);
  });

  it('the same key with another body is 422 IDEMPOTENCY_KEY_REUSED and changes nothing', async () => {
    const productId = await createProduct(sql);
    const key = unique('reuse');
    await post('stock-in', { product_id: productId, quantity: 5 }, key);
    const changed = await post('stock-in', { product_id: productId, quantity: 6 }, key);
    expect(changed.status).toBe(422);
    expect(changed.body).toMatchObject({ success: false, code: 'IDEMPOTENCY_KEY_REUSED' });
    const otherEndpoint = await post('stock-out', { product_id: productId, quantity: 5 }, key);
    expect(otherEndpoint.status).toBe(422);
    expect(otherEndpoint.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 5, sum_available: 5, sum_deltas: 5 });
  });

  it('sending a default explicitly is the same request as leaving it out', async () => {
    const productId = await createProduct(sql);
    const key = unique('default');
    const first = await post('stock-in', { product_id: productId, quantity: 1 }, key);
    const explicit = await post('stock-in', { product_id: productId, quantity: 1, source: 'manual_stock_in' }, key);
    expect(explicit.body).toEqual(first.body);
  });

  it("keys belong to their caller: another user's identical key neither replays nor collides", async () => {
    const productId = await createProduct(sql);
    const other = await createUser(sql);
    const key = unique('shared');
    const mine = await post('stock-in', { product_id: productId, quantity: 2 }, key);
    const theirs = await post('stock-in', { product_id: productId, quantity: 2 }, key, other.token);
    expect(theirs.status).toBe(201);
    expect(theirs.body.inventory_id).not.toBe(mine.body.inventory_id);
    expect((await stockFigures(sql, productId)).current_stock).toBe(4);
  });

  it('a key older than 24 hours no longer replays: the request runs again', async () => {
    const productId = await createProduct(sql);
    const key = unique('stale');
    const first = await post('stock-in', { product_id: productId, quantity: 3 }, key);
    await sql`update public.idempotency_records set created_at = private.now() - interval '25 hours' where idempotency_key = ${key}`;
    const later = await post('stock-in', { product_id: productId, quantity: 3 }, key);
    expect(later.status).toBe(201);
    expect(later.body.inventory_id).not.toBe(first.body.inventory_id);
    expect((await stockFigures(sql, productId)).current_stock).toBe(6);
  });

  it('a refused request is not remembered: its retry runs once the stock is there', async () => {
    const productId = await createProduct(sql);
    const key = unique('short');
    const refused = await post('stock-out', { product_id: productId, quantity: 2 }, key);
    expect(refused.status).toBe(422);
    await stockIn(productId, 2);
    const retried = await post('stock-out', { product_id: productId, quantity: 2 }, key);
    expect(retried.status).toBe(200);
    expect((await stockFigures(sql, productId)).current_stock).toBe(0);
  });

  it('fifty simultaneous retries of one stock-out apply it once and all get the same response', async () => {
    const productId = await createProduct(sql);
    await stockIn(productId, 100);
    const key = unique('burst');
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => post('stock-out', { product_id: productId, quantity: 7 }, key)),
    );
    expect(responses.map((res) => res.status)).toEqual(Array(50).fill(200));
    for (const res of responses) expect(res.body).toEqual(responses[0].body);
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 93, sum_available: 93, sum_deltas: 93 });
  });

  it('refuses a malformed key with 400 before touching stock', async () => {
    const productId = await createProduct(sql);
    for (const key of ['has space', 'x'.repeat(256)]) {
      const res = await post('stock-in', { product_id: productId, quantity: 1 }, key);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'Idempotency-Key' } });
    }
    expect((await stockFigures(sql, productId)).current_stock).toBe(0);
  });
});
