import { describe, expect, it } from 'vitest';
import { call, database, tokens } from '../support/client.ts';
import { availableByLot, createProduct, stockFigures, stockIn } from '../support/inventory.ts';

const sql = database();
const UNKNOWN_ID = '7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11';

function adjust(body: Record<string, unknown>, token = tokens.admin) {
  return call('stock-adjust', { method: 'POST', token, body });
}

describe('stock-adjust, product mode', () => {
  it('rule 1: an increase goes onto the record with the latest created_at', async () => {
    const productId = await createProduct(sql);
    const older = await stockIn(productId, 5, 1);
    // Received earlier but created later: "latest" is by creation, not by receipt.
    const latest = await stockIn(productId, 5, 30);
    const res = await adjust({ product_id: productId, adjust_quantity: 4, reason: 'inventory_audit_increase' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      inventory_id: latest,
      adjustment_quantity: 4,
      adjustment_type: 'increase',
      previous_available_stock: 10,
      new_available_stock: 14,
      reason: 'inventory_audit_increase',
    });
    expect(await availableByLot(sql, productId)).toEqual({ [older]: 5, [latest]: 9 });
    const [lot] = await sql`select quantity::int from public.inventory_records where id = ${latest}`;
    expect(lot.quantity).toBe(9);
  });

  it('rule 2: an increase on a product without records creates one with the initial-adjustment note', async () => {
    const productId = await createProduct(sql);
    const res = await adjust({ product_id: productId, adjust_quantity: 7, reason: 'supplier_compensation' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      adjustment_type: 'increase',
      previous_available_stock: 0,
      new_available_stock: 7,
    });
    const [lot] = await sql`
      select product_id, quantity::int, available_quantity::int, note, source,
             private.now() - received_at < interval '1 minute' as received_now
      from public.inventory_records where id = ${res.body.inventory_id}`;
    expect(lot).toEqual({
      product_id: productId,
      quantity: 7,
      available_quantity: 7,
      note: 'Initial stock adjustment: supplier_compensation',
      source: 'manual_adjustment',
      received_now: true,
    });
  });

  it('rule 3: a decrease on a product without records is 422 NO_INVENTORY_RECORD', async () => {
    const productId = await createProduct(sql);
    const res = await adjust({ product_id: productId, adjust_quantity: -1, reason: 'damage_writeoff' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, code: 'NO_INVENTORY_RECORD' });
  });

  it('a decrease draws from the oldest records first, across records, and lists the allocations', async () => {
    const productId = await createProduct(sql);
    const newest = await stockIn(productId, 10, 1);
    const oldest = await stockIn(productId, 3, 20);
    const middle = await stockIn(productId, 4, 10);
    const res = await adjust({ product_id: productId, adjust_quantity: -9, reason: 'expired_removal' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      inventory_id: oldest,
      adjustment_quantity: -9,
      adjustment_type: 'decrease',
      previous_available_stock: 17,
      new_available_stock: 8,
      allocations: [
        { inventory_id: oldest, quantity: 3 },
        { inventory_id: middle, quantity: 4 },
        { inventory_id: newest, quantity: 2 },
      ],
    });
    expect(await availableByLot(sql, productId)).toEqual({ [oldest]: 0, [middle]: 0, [newest]: 8 });
    const movements = await sql`
      select inventory_record_id, delta::int, stock_before::int, stock_after::int, reason
      from public.stock_movements where product_id = ${productId} and operation = 'stock_adjust' order by id`;
    expect(movements).toEqual([
      { inventory_record_id: oldest, delta: -3, stock_before: 17, stock_after: 14, reason: 'expired_removal' },
      { inventory_record_id: middle, delta: -4, stock_before: 14, stock_after: 10, reason: 'expired_removal' },
      { inventory_record_id: newest, delta: -2, stock_before: 10, stock_after: 8, reason: 'expired_removal' },
    ]);
  });

  it('rule 6: a decrease larger than the available stock is 422 INSUFFICIENT_STOCK and changes nothing', async () => {
    const productId = await createProduct(sql);
    await stockIn(productId, 3, 2);
    await stockIn(productId, 2, 1);
    const res = await adjust({ product_id: productId, adjust_quantity: -6, reason: 'loss_theft' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      success: false,
      code: 'INSUFFICIENT_STOCK',
      details: { requested: 6, available: 5 },
    });
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 5, sum_available: 5, sum_deltas: 5 });
  });

  it('answers 404 PRODUCT_NOT_FOUND for an unknown or deleted product', async () => {
    const deleted = await createProduct(sql, { deleted: true });
    for (const productId of [deleted, UNKNOWN_ID]) {
      const res = await adjust({ product_id: productId, adjust_quantity: 1, reason: 'miscount_correction' });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'PRODUCT_NOT_FOUND' });
    }
  });
});

describe('stock-adjust, record mode', () => {
  it("changes only the named record; previous/new are that record's figures", async () => {
    const productId = await createProduct(sql);
    const oldest = await stockIn(productId, 10, 5);
    const newest = await stockIn(productId, 10, 1);
    const down = await adjust({ inventory_id: newest, adjust_quantity: -4, reason: 'quality_issue' });
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({
      inventory_id: newest,
      adjustment_type: 'decrease',
      previous_available_stock: 10,
      new_available_stock: 6,
      current_stock: 16,
    });
    const up = await adjust({ inventory_id: oldest, adjust_quantity: 2, reason: 'return_goods' });
    expect(up.body).toMatchObject({
      inventory_id: oldest,
      adjustment_type: 'increase',
      previous_available_stock: 10,
      new_available_stock: 12,
    });
    expect(await availableByLot(sql, productId)).toEqual({ [oldest]: 12, [newest]: 6 });
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 18, sum_available: 18, sum_deltas: 18 });
  });

  it('rule 4: an unknown inventory_id is 404 INVENTORY_RECORD_NOT_FOUND, for a decrease and an increase', async () => {
    for (const [adjust_quantity, reason] of [[-1, 'damage_writeoff'], [1, 'return_goods']] as const) {
      const res = await adjust({ inventory_id: UNKNOWN_ID, adjust_quantity, reason });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'INVENTORY_RECORD_NOT_FOUND' });
    }
  });

  it("rule 6: a decrease beyond the record's available quantity is 422, even when the product has more elsewhere", async () => {
    const productId = await createProduct(sql);
    const small = await stockIn(productId, 2, 5);
    await stockIn(productId, 50, 1);
    const res = await adjust({ inventory_id: small, adjust_quantity: -3, reason: 'damage_writeoff' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      code: 'INSUFFICIENT_STOCK',
      details: { inventory_id: small, requested: 3, available: 2 },
    });
  });

  it('a record of a deleted product is 404 PRODUCT_NOT_FOUND', async () => {
    const productId = await createProduct(sql);
    const lot = await stockIn(productId, 5);
    // Written off first: a product holding stock cannot be deleted.
    expect((await adjust({ inventory_id: lot, adjust_quantity: -5, reason: 'damage_writeoff' })).status).toBe(200);
    await sql`update public.products set deleted_at = private.now() where id = ${productId}`;
    const res = await adjust({ inventory_id: lot, adjust_quantity: 1, reason: 'inventory_audit_increase' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'PRODUCT_NOT_FOUND' });
  });
});

describe('stock-adjust, field rules', () => {
  it('reason other is refused without reason_note and accepted with one, which is kept in the ledger', async () => {
    const productId = await createProduct(sql);
    for (const reason_note of [undefined, '', '   ']) {
      const res = await adjust({ product_id: productId, adjust_quantity: 1, reason: 'other', reason_note });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'reason_note' } });
    }
    const ok = await adjust({
      product_id: productId,
      adjust_quantity: 1,
      reason: 'other',
      reason_note: 'Found behind the shelf',
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ reason: 'other', reason_note: 'Found behind the shelf' });
    const [movement] =
      await sql`select reason, reason_note from public.stock_movements where product_id = ${productId}`;
    expect(movement).toEqual({ reason: 'other', reason_note: 'Found behind the shelf' });
  });

  it('accepts each adjust source and records it', async () => {
    const productId = await createProduct(sql);
    for (const source of ['manual_adjustment', 'inventory_count', 'system_correction', 'other']) {
      const res = await adjust({
        product_id: productId,
        adjust_quantity: 1,
        reason: 'inventory_audit_increase',
        source,
      });
      expect(res.status).toBe(200);
      expect(res.body.source).toBe(source);
    }
    const sources = await sql`select source from public.stock_movements where product_id = ${productId} order by id`;
    expect(sources.map((row) => row.source)).toEqual([
      'manual_adjustment',
      'inventory_count',
      'system_correction',
      'other',
    ]);
  });

  it.each([
    [
      'rule 5: adjust_quantity 0',
      { product_id: UNKNOWN_ID, adjust_quantity: 0, reason: 'other', reason_note: 'x' },
      'adjust_quantity',
    ],
    ['both product_id and inventory_id', {
      product_id: UNKNOWN_ID,
      inventory_id: UNKNOWN_ID,
      adjust_quantity: 1,
      reason: 'return_goods',
    }, 'inventory_id'],
    ['neither product_id nor inventory_id', { adjust_quantity: 1, reason: 'return_goods' }, 'product_id'],
    ['a missing adjust_quantity', { product_id: UNKNOWN_ID, reason: 'return_goods' }, 'adjust_quantity'],
    [
      'a fractional adjust_quantity',
      { product_id: UNKNOWN_ID, adjust_quantity: -1.5, reason: 'damage_writeoff' },
      'adjust_quantity',
    ],
    ['an adjust_quantity beyond 1,000,000,000', {
      product_id: UNKNOWN_ID,
      adjust_quantity: -1_000_000_001,
      reason: 'damage_writeoff',
    }, 'adjust_quantity'],
    ['a missing reason', { product_id: UNKNOWN_ID, adjust_quantity: 1 }, 'reason'],
    ['an unknown reason', { product_id: UNKNOWN_ID, adjust_quantity: 1, reason: 'felt_like_it' }, 'reason'],
    [
      'a decrease reason on an increase',
      { product_id: UNKNOWN_ID, adjust_quantity: 1, reason: 'damage_writeoff' },
      'reason',
    ],
    [
      'an increase reason on a decrease',
      { product_id: UNKNOWN_ID, adjust_quantity: -1, reason: 'return_goods' },
      'reason',
    ],
    ['an unknown source', {
      product_id: UNKNOWN_ID,
      adjust_quantity: 1,
      reason: 'return_goods',
      source: 'manual_stock_in',
    }, 'source'],
    ['a reason_note over 500 characters', {
      product_id: UNKNOWN_ID,
      adjust_quantity: 1,
      reason: 'other',
      reason_note: 'x'.repeat(501),
    }, 'reason_note'],
    ['a malformed inventory_id', { inventory_id: 'lot-1', adjust_quantity: 1, reason: 'return_goods' }, 'inventory_id'],
    [
      'an unknown field',
      { product_id: UNKNOWN_ID, adjust_quantity: 1, reason: 'return_goods', operator: 'me' },
      'operator',
    ],
  ])('refuses %s with 400 VALIDATION_ERROR', async (_, body, field) => {
    const res = await adjust(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', details: { field } });
  });

  it('refuses the anonymous key with 401 and accepts a customer, recorded as the operator', async () => {
    const productId = await createProduct(sql);
    const anonymous = await adjust({ product_id: productId, adjust_quantity: 1, reason: 'return_goods' }, tokens.anon);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    const customer = await adjust(
      { product_id: productId, adjust_quantity: 1, reason: 'return_goods' },
      tokens.customer,
    );
    expect(customer.status).toBe(200);
    const [movement] =
      await sql`select operator_id, operator_role from public.stock_movements where product_id = ${productId}`;
    expect(movement).toEqual({ operator_id: '00000000-0000-4000-8000-000000000002', operator_role: 'authenticated' });
  });
});

describe('the adjustment reasons the API serves', () => {
  it('are exactly the rules stock-adjust enforces: each reason its direction, a note where one is needed', async () => {
    const served = await call('stock-adjust/reasons');
    expect(served.status).toBe(200);
    const reasons: { reason: string; direction: string; needs_note: boolean }[] = served.body.data.reasons;
    expect(reasons.map((r) => r.direction)).toEqual(expect.arrayContaining(['increase', 'decrease', 'either']));
    const productId = await createProduct(sql);
    await stockIn(productId, 100);
    for (const { reason, direction, needs_note } of reasons) {
      for (const adjust_quantity of [1, -1]) {
        const allowed = direction === 'either' || (direction === 'increase') === (adjust_quantity > 0);
        const bare = await adjust({ product_id: productId, adjust_quantity, reason });
        expect({ reason, adjust_quantity, status: bare.status, field: bare.body.details?.field })
          .toEqual({ reason, adjust_quantity, ...(allowed && !needs_note ? { status: 200, field: undefined } : { status: 400, field: allowed ? 'reason_note' : 'reason' }) });
        const noted = await adjust({ product_id: productId, adjust_quantity, reason, reason_note: 'counted twice' });
        expect({ reason, adjust_quantity, status: noted.status }).toEqual({ reason, adjust_quantity, status: allowed ? 200 : 400 });
      }
    }
  });
});
