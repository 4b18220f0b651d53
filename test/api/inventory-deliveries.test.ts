// A delivery received as a store receives one (POST /stock-in/batch): several products at once, each line
// a lot with its lot number and expiry, all or nothing, retried safely, and never deadlocking another
// delivery of the same products.
import { describe, expect, it } from 'vitest';
import { asRole, call, database, tokens, unique } from '../support/client.ts';
import { createProduct, stockFigures } from '../support/inventory.ts';
import { addDays } from '../support/campaigns.ts';

const sql = database(6);

async function today(): Promise<string> {
  const [{ day }] = await sql<{ day: string }[]>`select private.store_today()::text as day`;
  return day;
}

/** How many lots, stock-in entries and ledger rows the products have: all zero after a refused delivery. */
async function written(productIds: string[]) {
  const [counts] = await sql<{ lots: number; stock_ins: number; movements: number }[]>`
    select (select count(*)::int from public.inventory_records where product_id = any(${productIds}::uuid[])) as lots,
           (select count(*)::int from public.stock_in_history where product_id = any(${productIds}::uuid[])) as stock_ins,
           (select count(*)::int from public.stock_movements where product_id = any(${productIds}::uuid[])) as movements`;
  return counts;
}

describe('POST /stock-in/batch', () => {
  it('books a lot per line, with its history entry and ledger row, and answers each product\'s stock', async () => {
    const [tea, sauce] = [await createProduct(sql), await createProduct(sql)];
    const expiry = addDays(await today(), 180);
    const res = await call('stock-in/batch', {
      method: 'POST',
      token: tokens.customer,
      body: {
        source: 'purchase_order',
        note: 'PO-7781',
        items: [
          { product_id: tea, quantity: 24, lot_number: ' A-1126 ', expires_on: expiry },
          { product_id: sauce, quantity: 12, note: 'one carton dented' },
          { product_id: tea, quantity: 6, lot_number: 'A-1127' },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, source: 'purchase_order' });
    expect(res.body.items).toMatchObject([
      { product_id: tea, quantity: 24, lot_number: 'A-1126', expires_on: expiry, current_stock: 24 },
      { product_id: sauce, quantity: 12, lot_number: null, expires_on: null, current_stock: 12 },
      { product_id: tea, quantity: 6, lot_number: 'A-1127', expires_on: null, current_stock: 30 },
    ]);
    expect(res.body.message).toMatch(/42/);

    const lots = await sql`
      select r.id, r.lot_number, r.expires_on::text, r.note, r.source, r.created_by_role, h.lot_number as history_lot,
             h.expires_on::text as history_expiry, h.note as history_note
      from public.inventory_records r join public.stock_in_history h on h.inventory_record_id = r.id
      where r.id = any(${res.body.items.map((i: { inventory_id: string }) => i.inventory_id)}::uuid[])
      order by r.created_at`;
    expect(lots).toMatchObject([
      { lot_number: 'A-1126', expires_on: expiry, note: 'PO-7781', history_lot: 'A-1126', history_expiry: expiry },
      { lot_number: null, note: 'one carton dented', history_note: 'one carton dented' },
      { lot_number: 'A-1127', expires_on: null, note: 'PO-7781' },
    ]);
    expect(lots.every((lot) => lot.source === 'purchase_order' && lot.created_by_role === 'authenticated')).toBe(true);
    // One delivery, one operation in the ledger; each product's rows chain its stock line by line.
    const ledger = await sql`
      select operation_id, product_id, delta::int, stock_before::int, stock_after::int from public.stock_movements
      where product_id in (${tea}, ${sauce}) order by id`;
    expect(new Set(ledger.map((m) => m.operation_id)).size).toBe(1);
    expect(ledger.map(({ operation_id: _, ...m }) => m)).toEqual([
      { product_id: tea, delta: 24, stock_before: 0, stock_after: 24 },
      { product_id: sauce, delta: 12, stock_before: 0, stock_after: 12 },
      { product_id: tea, delta: 6, stock_before: 24, stock_after: 30 },
    ]);
    expect(await stockFigures(sql, tea)).toEqual({ current_stock: 30, sum_available: 30, sum_deltas: 30 });
    expect(await stockFigures(sql, sauce)).toEqual({ current_stock: 12, sum_available: 12, sum_deltas: 12 });
  });

  it.each([
    ['an unknown product', (p: string[]) => [{ product_id: p[0], quantity: 1 }, { product_id: crypto.randomUUID(), quantity: 1 }], 404, 'PRODUCT_NOT_FOUND', 1],
    ['a deleted product', (p: string[]) => [{ product_id: p[0], quantity: 1 }, { product_id: p[1], quantity: 1 }, { product_id: p[3], quantity: 1 }], 404, 'PRODUCT_NOT_FOUND', 2],
    ['an inactive product', (p: string[]) => [{ product_id: p[0], quantity: 1 }, { product_id: p[2], quantity: 1 }], 422, 'PRODUCT_INACTIVE', 1],
    ['a zero quantity', (p: string[]) => [{ product_id: p[0], quantity: 5 }, { product_id: p[1], quantity: 0 }], 400, 'VALIDATION_ERROR', 1],
    ['a fractional quantity', (p: string[]) => [{ product_id: p[0], quantity: 1.5 }], 400, 'VALIDATION_ERROR', 0],
    ['a lot number of 65 characters', (p: string[]) => [{ product_id: p[0], quantity: 1 }, { product_id: p[1], quantity: 1, lot_number: 'L'.repeat(65) }], 400, 'VALIDATION_ERROR', 1],
    ['a lot number with a control character', (p: string[]) => [{ product_id: p[0], quantity: 1, lot_number: 'A\u0007B' }], 400, 'VALIDATION_ERROR', 0],
    ['an expiry in year 0000', (p: string[]) => [{ product_id: p[0], quantity: 1, expires_on: '0000-01-01' }], 400, 'VALIDATION_ERROR', 0],
    ['an expiry that is not a day', (p: string[]) => [{ product_id: p[0], quantity: 1, expires_on: '2027-02-30' }], 400, 'VALIDATION_ERROR', 0],
    ['an unknown field in a line', (p: string[]) => [{ product_id: p[0], quantity: 1 }, { product_id: p[1], quantity: 1, price: 3 }], 400, 'VALIDATION_ERROR', 1],
  ])('a line with %s refuses the whole delivery, names its index and writes nothing', async (_, lines, status, code, index) => {
    const products = [await createProduct(sql), await createProduct(sql), await createProduct(sql), await createProduct(sql, { deleted: true })];
    await sql`update public.products set is_active = false where id = ${products[2]}`;
    const res = await call('stock-in/batch', { method: 'POST', body: { items: lines(products) } });
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ success: false, code, details: { index } });
    if (status === 400) expect(res.body.details.field).toMatch(new RegExp(`^items\\.${index}\\.`));
    expect(await written(products)).toEqual({ lots: 0, stock_ins: 0, movements: 0 });
  });

  it('an expiry before the day the goods were received is refused by the database, naming the line', async () => {
    const products = [await createProduct(sql), await createProduct(sql)];
    const day = await today();
    const accepted = await call('stock-in/batch', {
      method: 'POST',
      body: { items: [{ product_id: products[0], quantity: 1, expires_on: day }] },
    });
    expect(accepted.status).toBe(201);
    const res = await call('stock-in/batch', {
      method: 'POST',
      body: {
        received_at: new Date(Date.now() - 3 * 86_400_000).toISOString(),
        items: [
          { product_id: products[1], quantity: 1, expires_on: day },
          { product_id: products[0], quantity: 1, expires_on: addDays(day, -5) },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { index: 1, field: 'items.1.expires_on', constraint: 'not before the day the goods were received' },
    });
    expect(await written([products[1]])).toEqual({ lots: 0, stock_ins: 0, movements: 0 });
  });

  it.each([
    ['no lines', []],
    ['201 lines', Array.from({ length: 201 }, () => ({ product_id: crypto.randomUUID(), quantity: 1 }))],
    ['lines that are not objects', [3]],
  ])('a delivery of %s is a 400', async (_, items) => {
    const res = await call('stock-in/batch', { method: 'POST', body: { items } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.field).toMatch(/^items/);
  });

  it('through supabase.rpc the database holds the same line rules and names the same index', async () => {
    const productId = await createProduct(sql);
    const lines = [{ product_id: productId, quantity: 2 }, { product_id: productId, quantity: '2' }];
    const { error } = await asRole(sql, { role: 'service_role' }, (tx) => tx`select public.stock_in_batch(${tx.json(lines)})`);
    expect(error).toMatchObject({ code: 'PT400', message: 'VALIDATION_ERROR' });
    expect(JSON.parse(error!.hint!)).toMatchObject({ index: 1, field: 'items.1.quantity', constraint: 'must be a number' });
    const accepted = await asRole(sql, { role: 'service_role' }, (tx) =>
      tx`select public.stock_in_batch(${tx.json(lines.slice(0, 1))}) as answer`);
    expect(accepted.result?.[0].answer.items).toMatchObject([{ product_id: productId, quantity: 2, current_stock: 2 }]);
  });

  it('the same Idempotency-Key and body replay the answer and book nothing twice; another body is a 422', async () => {
    const products = [await createProduct(sql), await createProduct(sql)];
    const key = unique('delivery');
    const body = { items: [{ product_id: products[0], quantity: 4, lot_number: 'K-1' }, { product_id: products[1], quantity: 2 }] };
    const first = await call('stock-in/batch', { method: 'POST', body, headers: { 'Idempotency-Key': key } });
    const again = await call('stock-in/batch', { method: 'POST', body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await written(products)).toEqual({ lots: 2, stock_ins: 2, movements: 2 });
    const other = await call('stock-in/batch', {
      method: 'POST',
      body: { items: [{ ...body.items[0], quantity: 5 }, body.items[1]] },
      headers: { 'Idempotency-Key': key },
    });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await stockFigures(sql, products[0])).toEqual({ current_stock: 4, sum_available: 4, sum_deltas: 4 });
  });

  it('two deliveries touching the same products in opposite orders never deadlock', async () => {
    const products = await Promise.all(Array.from({ length: 12 }, () => createProduct(sql)));
    const forward = { items: products.map((product_id) => ({ product_id, quantity: 1 })) };
    const backward = { items: [...forward.items].reverse() };
    const responses = await Promise.all(
      Array.from({ length: 16 }, (_, i) => call('stock-in/batch', { method: 'POST', body: i % 2 ? backward : forward })),
    );
    expect(responses.map((res) => res.status)).toEqual(responses.map(() => 201));
    for (const productId of products) {
      expect(await stockFigures(sql, productId)).toEqual({ current_stock: 16, sum_available: 16, sum_deltas: 16 });
    }
  });
});

describe('a lot\'s number and expiry', () => {
  it('stock-in takes them, and the product\'s lots, its stock-in history and its ledger show them', async () => {
    const productId = await createProduct(sql);
    const expiry = addDays(await today(), 90);
    const res = await call('stock-in', {
      method: 'POST',
      body: { product_id: productId, quantity: 7, lot_number: 'LOT-77', expires_on: expiry },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ lot_number: 'LOT-77', expires_on: expiry });
    const product = await call(`products/${productId}`);
    expect(product.body.data.lots).toMatchObject([{ lot_number: 'LOT-77', expires_on: expiry }]);
    const history = await call(`products/${productId}/stock-ins`);
    expect(history.body.data).toMatchObject([{ lot_number: 'LOT-77', expires_on: expiry }]);
    const ledger = await call(`products/${productId}/movements`);
    expect(ledger.body.data).toMatchObject([{ operation: 'stock_in', lot_number: 'LOT-77', expires_on: expiry }]);
  });

  it('a single stock-in with an expiry before its received day is a 400 on expires_on', async () => {
    const productId = await createProduct(sql);
    const res = await call('stock-in', {
      method: 'POST',
      body: { product_id: productId, quantity: 1, expires_on: addDays(await today(), -1) },
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field: 'expires_on' });
    expect(await written([productId])).toEqual({ lots: 0, stock_ins: 0, movements: 0 });
  });

  it('a product-level decrease still draws the oldest received lot first, whatever the expiry', async () => {
    const productId = await createProduct(sql);
    const day = await today();
    const older = await call('stock-in', {
      method: 'POST',
      body: { product_id: productId, quantity: 3, expires_on: addDays(day, 60), received_at: new Date(Date.now() - 86_400_000).toISOString() },
    });
    await call('stock-in', { method: 'POST', body: { product_id: productId, quantity: 3, expires_on: addDays(day, 10) } });
    const out = await call('stock-out', { method: 'POST', body: { product_id: productId, quantity: 2 } });
    expect(out.body.allocations).toEqual([{ inventory_id: older.body.inventory_id, quantity: 2 }]);
  });
});
