// Orders with goods over HTTP: POST /orders places (and reserves), PATCH /orders/:id moves the status (and
// the goods), GET /orders/:id shows the lines and the lots they drew with cost and margin, and the recall
// route names who received a lot. Every answer is also checked against the function's OpenAPI document.
import { describe, expect, it } from 'vitest';
import { call, createCustomer, database, tokens } from '../support/client.ts';
import { createProduct } from '../support/inventory.ts';
import { apiError, consistentStock, placeOrder } from '../support/order-goods.ts';
import { Limits } from '../../supabase/functions/_shared/database.types.ts';
import { enums } from '../../supabase/functions/_shared/enums.ts';

const sql = database();

async function stocked(quantity: number, unitCost?: number) {
  const productId = await createProduct(sql);
  const res = await call('stock-in', {
    method: 'POST',
    body: { product_id: productId, quantity, lot_number: 'L-1', ...(unitCost === undefined ? {} : { unit_cost: unitCost }) },
  });
  expect(res.status).toBe(201);
  return { productId, lotId: res.body.inventory_id as string };
}

const place = (body: unknown, headers: Record<string, string> = {}, token = tokens.service) =>
  call('orders', { method: 'POST', body, headers, token });

describe('POST /orders', () => {
  it('refuses past the limits the database sets (Limits, generated from private.max_*()), alike over HTTP and rpc', async () => {
    const { productId } = await stocked(2);
    const customerId = await createCustomer(sql, 'goods');
    const [limits] = await sql`select private.max_order_lines() as order_lines, private.max_line_quantity() as line_quantity,
                                      private.max_order_total()::float8 as order_total,
                                      private.max_stock_quantity()::float8 as stock_quantity,
                                      private.max_priority() as priority`;
    expect(Limits).toEqual(limits);
    const line = { product_id: productId, quantity: 1, unit_price: 1 };
    for (const [lines, rule, max] of [
      [Array.from({ length: Limits.order_lines + 1 }, () => line), 'max_items', Limits.order_lines],
      [[{ ...line, quantity: Limits.line_quantity + 1 }], 'max', Limits.line_quantity],
      [[{ ...line, unit_price: Limits.order_total + 1 }], 'max', Limits.order_total],
    ] as const) {
      const api = await place({ customer_id: customerId, lines });
      const rpc = await placeOrder(sql, customerId, lines as never).catch(apiError);
      expect(api.status, rule).toBe(400);
      expect(api.body.details, rule).toMatchObject({ rule, params: { max } });
      expect(rpc, rule).toMatchObject({ status: 400, details: { field: api.body.details.field, rule, params: { max } } });
    }
  });

  it('places only in the statuses public.new_order_status lists, refused alike by the API and the database', async () => {
    const { productId } = await stocked(2);
    const customerId = await createCustomer(sql, 'goods');
    const [{ statuses }] = await sql`select enum_range(null::public.new_order_status)::text[] as statuses`;
    expect(enums.new_order_status).toEqual(statuses);
    const lines = [{ product_id: productId, quantity: 1, unit_price: 5 }];
    const constraint = `must be one of ${statuses.join(', ')}`;
    const refused = await place({ customer_id: customerId, lines, status: 'shipped' });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toMatchObject({ field: 'status', value: 'shipped', constraint });
    const byTable = await placeOrder(sql, customerId, lines, 'shipped').catch(apiError);
    expect(byTable).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: { field: 'status', constraint } });
    expect(await consistentStock(sql, productId)).toMatchObject({ reserved: 0 });
  });

  it('places an order of lines: 201, the total is the lines’ sum, and the products’ stock is reserved', async () => {
    const tea = await stocked(10);
    const cups = await stocked(4);
    const customerId = await createCustomer(sql, 'goods');
    const res = await place({
      customer_id: customerId,
      lines: [{ product_id: tea.productId, quantity: 3, unit_price: 120.5 }, { product_id: cups.productId, quantity: 1, unit_price: 80 }],
      status: 'paid',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'paid', total_amount: 441.5, item_count: 4 });
    expect(res.body.data.paid_at).toBe(res.body.data.ordered_at);
    expect(res.body.data.lines.map((l: { line_number: number; amount: number }) => [l.line_number, l.amount])).toEqual([[1, 361.5], [2, 80]]);
    const product = await call(`products/${tea.productId}`);
    expect(product.body.data).toMatchObject({ current_stock: 10, reserved_stock: 3, available_stock: 7 });
    const listed = await call(`orders?customer_id=${customerId}&with_lines=true`);
    expect(listed.body.data[0].lines).toEqual(res.body.data.lines);
    expect((await call(`orders?customer_id=${customerId}`)).body.data[0].lines).toBeUndefined();
    await consistentStock(sql, tea.productId);
  });

  it('a retry with the same Idempotency-Key replays the answer and places nothing more', async () => {
    const { productId } = await stocked(5);
    const customerId = await createCustomer(sql, 'goods');
    const body = { customer_id: customerId, lines: [{ product_id: productId, quantity: 2, unit_price: 10 }] };
    const key = { 'idempotency-key': `place-${customerId}` };
    const [first, again] = [await place(body, key), await place(body, key)];
    expect(again.body).toEqual(first.body);
    const [{ orders }] = await sql`select count(*)::int as orders from public.orders where customer_id = ${customerId}`;
    expect(orders).toBe(1);
    expect(await consistentStock(sql, productId)).toMatchObject({ reserved: 2 });
  });

  it('refuses a bad line naming it: 400 with details.index, 404 for an unknown product, 422 beyond what is available', async () => {
    const { productId } = await stocked(2);
    const customerId = await createCustomer(sql, 'goods');
    const good = { product_id: productId, quantity: 1, unit_price: 10 };
    const invalid = await place({ customer_id: customerId, lines: [good, { ...good, quantity: 0 }] });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'lines.1.quantity', index: 1 } });
    // A price is held to 2 decimals exactly, with the rule the database gives an rpc caller.
    const fraction = await place({ customer_id: customerId, lines: [good, { ...good, unit_price: 10.000000001 }] });
    expect(fraction.status).toBe(400);
    expect(fraction.body.details).toMatchObject({ field: 'lines.1.unit_price', rule: 'decimals', params: { max: 2 }, index: 1 });
    const unknown = '00000000-0000-4000-8000-00000000dead';
    const missing = await place({ customer_id: customerId, lines: [good, { ...good, product_id: unknown }] });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'PRODUCT_NOT_FOUND', details: { index: 1, product_id: unknown } });
    const short = await place({ customer_id: customerId, lines: [good, { ...good, quantity: 2 }] });
    expect(short.status).toBe(422);
    expect(short.body).toMatchObject({ code: 'INSUFFICIENT_STOCK', details: { index: 1, requested: 2, available: 1 } });
    const customer = await place({ customer_id: customerId, lines: [good] }, {}, tokens.customer);
    expect(customer.status).toBe(403);
    expect(await consistentStock(sql, productId)).toMatchObject({ reserved: 0, available: 2 });
  });
});

describe('PATCH /orders/:id and what an order shows', () => {
  it('shipping draws the lots: the order shows them with cost and margin, the ledger names the order, the recall route its customer', async () => {
    const { productId, lotId } = await stocked(6, 30);
    const customerId = await createCustomer(sql, 'recall');
    // Placed on a store day of its own, long past, so that the figures of that day are this order's alone:
    // the other test files ship orders of this week on the same database meanwhile.
    const placed = await place({
      customer_id: customerId,
      lines: [{ product_id: productId, quantity: 2, unit_price: 100 }],
      ordered_at: '2016-03-01T04:00:00.000Z',
    });
    expect(placed.status).toBe(201);
    const goods = async () =>
      (await call('business-health-analytics/figures?period=custom&from=2016-03-01&to=2016-03-01')).body.data.current.goods;
    const before = await goods();
    const shipped = await call(`orders/${placed.body.data.id}`, { method: 'PATCH', body: { status: 'shipped' } });
    expect(shipped.status).toBe(200);
    // The figures' cost and margin take the shipped order in, and let it go when it is refunded.
    const after = await goods();
    expect([after.orders - before.orders, after.revenue - before.revenue, after.cost - before.cost, after.margin - before.margin])
      .toEqual([1, 200, 60, 140]);
    const order = await call(`orders/${placed.body.data.id}`);
    expect(order.body.data).toMatchObject({ status: 'shipped', cost: 60, margin: 140 });
    expect(order.body.data.lines[0]).toMatchObject({
      product_id: productId,
      lots: [{ inventory_id: lotId, lot_number: 'L-1', quantity: 2, unit_cost: 30, returned_quantity: 0 }],
      cost: 60,
      margin: 140,
    });
    expect(order.body.data.timeline.map((step: { event: string }) => step.event)).toEqual(['placed', 'shipped']);
    const ledger = await call(`products/${productId}/movements?operation=sale`);
    expect(ledger.body.data).toMatchObject([{ delta: -2, reference: placed.body.data.id }]);
    const recall = await call(`products/${productId}/lots/${lotId}/orders`);
    expect(recall.body.data).toMatchObject([{ order_id: placed.body.data.id, customer_id: customerId, quantity: 2 }]);
    const product = await call(`products/${productId}`);
    expect(product.body.data).toMatchObject({ current_stock: 4, reserved_stock: 0, units_sold: { last_7_days: 2, last_30_days: 2 } });
    await call(`orders/${placed.body.data.id}`, { method: 'PATCH', body: { status: 'refunded', restock: true } });
    expect(await goods()).toEqual(before);
    expect((await call(`products/${productId}`)).body.data).toMatchObject({ current_stock: 6, units_sold: { last_7_days: 0 } });
  });

  it('an order reads the same from each route that answers it: the move\'s answer is the page\'s, less its customer and timeline', async () => {
    const { productId } = await stocked(3);
    const customerId = await createCustomer(sql, 'goods');
    const placed = await place({ customer_id: customerId, lines: [{ product_id: productId, quantity: 2, unit_price: 9.5 }] });
    // The move's answer is built in SQL (private.order_answer), the page's from the row in the function: a column
    // added to orders and left out of either shows here.
    const moved = await call(`orders/${placed.body.data.id}`, { method: 'PATCH', body: { status: 'paid' } });
    const page = await call(`orders/${placed.body.data.id}`);
    const { customer_name: _name, customer_email: _email, customer_order_count: _count, timeline, ...order } = page.body.data;
    expect(timeline.map((step: { event: string }) => step.event)).toEqual(['placed', 'paid']);
    expect(moved.body.data).toEqual(order);
    expect(placed.body.data).toEqual({ ...order, status: 'pending', paid_at: null, updated_at: placed.body.data.updated_at });
  });

  it('a move the table does not allow is 422 INVALID_STATUS_TRANSITION; the table is served at GET /orders/moves', async () => {
    const { productId } = await stocked(3);
    const customerId = await createCustomer(sql, 'goods');
    const placed = await place({ customer_id: customerId, lines: [{ product_id: productId, quantity: 1, unit_price: 1 }] });
    const refused = await call(`orders/${placed.body.data.id}`, { method: 'PATCH', body: { status: 'delivered' } });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'INVALID_STATUS_TRANSITION', details: { from: 'pending', to: 'delivered' } });
    // The status trigger's refusal, the one place the rule is written: the API checks nothing of it first.
    const restockWithoutRefund = await call(`orders/${placed.body.data.id}`, { method: 'PATCH', body: { status: 'shipped', restock: true } });
    expect(restockWithoutRefund.status).toBe(400);
    expect(restockWithoutRefund.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field: 'restock', constraint: 'only when a refund returns shipped goods', rule: 'requires', params: { field: 'status' } },
    });
    expect((await call(`orders/${placed.body.data.id}`)).body.data.status).toBe('pending');
    const moves = await call('orders/moves');
    expect(moves.body.data.moves).toContainEqual({ from_status: 'paid', to_status: 'shipped', goods: 'draw' });
    const byCustomer = await call(`orders/${placed.body.data.id}`, { method: 'PATCH', body: { status: 'cancelled' }, token: tokens.customer });
    expect(byCustomer.status).toBe(403);
    expect(await consistentStock(sql, productId)).toMatchObject({ reserved: 1 });
  });
});
