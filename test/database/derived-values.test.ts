/**
 * A derived value has one writer, whoever holds the table: an order with lines totals them, `restocked` is
 * the refund's, a shipped order's kept cost follows it, a placed order's lines never change, a deleted
 * product holds no goods, and every allowed input gets a 2xx or a 4xx. Each test is a way the database used
 * to accept a figure and then believe it (an administrator's or a store job's table access, the table
 * owner's own statements), and ends by checking the stock and order rules (support/order-goods.ts).
 */
import { describe, expect, it } from 'vitest';
import { DEMO_ADMIN_ID, database } from '../support/client.ts';
import {
  apiError,
  asStoreJob,
  committedAs,
  consistentOrder,
  consistentStock,
  moveOrder,
  placeOrder,
  stockedProduct,
} from '../support/order-goods.ts';

const sql = database(4);
const admin = { role: 'authenticated', sub: DEMO_ADMIN_ID } as const;

/** `work` as `caller`, committed: what it returns, or the error it was refused with. */
function as(caller: Parameters<typeof committedAs>[1], work: Parameters<typeof committedAs>[2]) {
  return committedAs(sql, caller, work).then((result) => ({ result, error: undefined }), (error) => ({ result: undefined, error }));
}

/** A shipped order of 5 units at 200 each, drawn from a lot that cost 150 a unit. */
async function shippedOrder() {
  const { productId, customerId } = await stockedProduct(sql, 0);
  await asStoreJob(sql, (tx) => tx`select public.stock_in(${productId}, 10, 'purchase_order', null, null, null, null, null, 150)`);
  const order = await placeOrder(sql, customerId, [{ product_id: productId, quantity: 5, unit_price: 200 }], 'paid');
  await moveOrder(sql, order.id, 'shipped');
  return { productId, customerId, orderId: order.id };
}

describe("an order's figures follow its lines", () => {
  it("an administrator's update of an order's total or item count is refused 422 ORDER_LINES_FIXED", async () => {
    const { productId, orderId } = await shippedOrder();
    const { error } = await as(admin, (tx) =>
      tx`update public.orders set total_amount = 0.01, item_count = 1000 where id = ${orderId}`);
    expect(apiError(error)).toMatchObject({ status: 422, code: 'ORDER_LINES_FIXED', details: { total_amount: 1000, item_count: 5 } });
    // Writing the figures the lines make is no change, and is accepted.
    const same = await as(admin, (tx) => tx`update public.orders set total_amount = 1000, item_count = 5 where id = ${orderId}`);
    expect(same.error).toBeUndefined();
    expect(await consistentOrder(sql, orderId)).toMatchObject({ total: '1000.00', items: 5 });
    await consistentStock(sql, productId);
  });

  it("the table owner cannot change a placed line's quantity or remove it: the reservation stays exact", async () => {
    const { productId, customerId } = await stockedProduct(sql, 10);
    const order = await placeOrder(sql, customerId, [{ product_id: productId, quantity: 3, unit_price: 10 }]);
    for (const change of [sql`update public.order_lines set quantity = 8 where order_id = ${order.id}`,
                          sql`delete from public.order_lines where order_id = ${order.id}`]) {
      expect(apiError(await change.catch((e) => e))).toMatchObject({ status: 422, code: 'ORDER_LINES_FIXED' });
    }
    expect(await consistentStock(sql, productId)).toMatchObject({ reserved: 3 });
    await consistentOrder(sql, order.id);
  });

  it('the table owner cannot add a line to a shipped order, nor to an open one after it was placed', async () => {
    const { productId, orderId } = await shippedOrder();
    const add = (order: string, quantity: number) => sql`
      insert into public.order_lines (order_id, line_number, product_id, quantity, unit_price)
      values (${order}, 2, ${productId}, ${quantity}, 1)`.catch((e) => e);
    expect(apiError(await add(orderId, 1))).toMatchObject({ status: 422, code: 'ORDER_LINES_FIXED' });
    const open = await placeOrder(sql, (await stockedProduct(sql, 0)).customerId, [{ product_id: productId, quantity: 1, unit_price: 1 }]);
    expect(apiError(await add(open.id, 1))).toMatchObject({ status: 422, code: 'ORDER_LINES_FIXED' });
    await consistentOrder(sql, orderId);
    await consistentOrder(sql, open.id);
    expect(await consistentStock(sql, productId)).toMatchObject({ reserved: 1 });
  });

  it("the table owner's lines never come to more than their order: a line beyond its total is refused", async () => {
    const { productId, customerId } = await stockedProduct(sql, 4);
    const refused = await sql.begin(async (tx) => {
      const [{ id }] = await tx`
        insert into public.orders (customer_id, total_amount, item_count) values (${customerId}, 14, 2) returning id`;
      await tx`insert into public.order_lines (order_id, line_number, product_id, quantity, unit_price)
               values (${id}, 1, ${productId}, 2, 7)`;
      await tx`insert into public.order_lines (order_id, line_number, product_id, quantity, unit_price)
               values (${id}, 2, ${productId}, 1, 0)`;
    }).catch((e) => e);
    expect(apiError(refused)).toMatchObject({ status: 422, code: 'ORDER_LINES_FIXED' });
    expect(await consistentStock(sql, productId)).toMatchObject({ reserved: 0, available: 4 });
  });

  it("a store job cannot record a restock that never happened: restocked is the refund's", async () => {
    const { productId, orderId } = await shippedOrder();
    await moveOrder(sql, orderId, 'refunded', false);
    const { error } = await as({ role: 'service_role' }, (tx) =>
      tx`update public.orders set restocked = true where id = ${orderId}`);
    expect(apiError(error)).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: { field: 'restocked' } });
    const [{ restocked }] = await sql`select restocked from public.orders where id = ${orderId}`;
    expect(restocked).toBe(false);
    expect(await consistentStock(sql, productId)).toMatchObject({ on_hand: 5 });
  });

  it("a shipped order's kept cost follows a change of its placing time", async () => {
    const { orderId } = await shippedOrder();
    const moved = await as(admin, (tx) =>
      tx`update public.orders set ordered_at = ordered_at - interval '3 days' where id = ${orderId}`);
    expect(moved.error).toBeUndefined();
    const [{ kept }] = await sql`select k.ordered_at = o.ordered_at as kept from private.shipped_order_costs k
                                 join public.orders o on o.id = k.order_id where k.order_id = ${orderId}`;
    expect(kept).toBe(true);
    await consistentOrder(sql, orderId);
  });
});

describe('a refunded order states the cost of what it kept', () => {
  it('nothing once its goods are restocked, all of it when they are not; no margin either way', async () => {
    const restocked = await shippedOrder();
    const kept = await shippedOrder();
    const [before] = await sql`select private.order_goods(${restocked.orderId}) as goods`;
    expect(before.goods).toMatchObject({ cost: 750, margin: 250 });
    const back = await moveOrder(sql, restocked.orderId, 'refunded', true);
    expect(back).toMatchObject({ cost: 0, margin: null, lines: [{ cost: 0, margin: null }] });
    expect(await moveOrder(sql, kept.orderId, 'refunded', false)).toMatchObject({ cost: 750, margin: null });
    for (const { orderId, productId } of [restocked, kept]) {
      await consistentOrder(sql, orderId);
      await consistentStock(sql, productId);
    }
  });
});

describe('no goods on a deleted product', () => {
  it("a refund with restock of a deleted product's goods is refused 422 PRODUCT_DELETED; without restock it refunds", async () => {
    const { productId, orderId } = await shippedOrder();
    await asStoreJob(sql, (tx) => tx`select public.stock_adjust(-5, 'damage_writeoff', ${productId})`);
    expect((await as(admin, (tx) => tx`select public.delete_product(${productId})`)).error).toBeUndefined();
    const refused = await moveOrder(sql, orderId, 'refunded', true).catch(apiError);
    expect(refused).toMatchObject({ status: 422, code: 'PRODUCT_DELETED', details: { product_id: productId } });
    expect(await consistentStock(sql, productId)).toMatchObject({ on_hand: 0 });
    expect(await moveOrder(sql, orderId, 'refunded', false)).toMatchObject({ status: 'refunded', restocked: false });
    await consistentOrder(sql, orderId);
  });

  it('an administrator cannot delete a product by table update while it holds stock or a reservation', async () => {
    const { productId, customerId } = await stockedProduct(sql, 6);
    await placeOrder(sql, customerId, [{ product_id: productId, quantity: 2, unit_price: 1 }]);
    const { error } = await as(admin, (tx) =>
      tx`update public.products set deleted_at = private.now(), is_active = false where id = ${productId}`);
    expect(error).toMatchObject({ code: '23514', constraint_name: 'products_deleted_without_stock' });
    expect(await consistentStock(sql, productId)).toMatchObject({ on_hand: 6, reserved: 2 });
  });
});

describe('every allowed input gets a 2xx or a 4xx', () => {
  it('an order placed 4 minutes ahead moves at once, its moves stamped no earlier than it', async () => {
    const { productId, customerId } = await stockedProduct(sql, 5);
    const ahead = new Date(Date.now() + 4 * 60_000).toISOString();
    const [{ placed }] = await asStoreJob(sql, (tx) =>
      tx`select public.place_order(${customerId}, ${tx.json([{ product_id: productId, quantity: 1, unit_price: 3 }])},
                                   'pending', ${ahead}) as placed`);
    const orderId = placed.data.id;
    for (const status of ['paid', 'shipped', 'delivered', 'refunded']) await moveOrder(sql, orderId, status);
    const [order] = await sql`select paid_at >= ordered_at and shipped_at >= ordered_at and delivered_at >= ordered_at
                                     and refunded_at >= ordered_at as after from public.orders where id = ${orderId}`;
    expect(order.after).toBe(true);
    await consistentStock(sql, productId);
  });

  it('restock is refused 400 where it means nothing: a refund before shipping, an order without lines', async () => {
    const { productId, customerId } = await stockedProduct(sql, 5);
    const paid = await placeOrder(sql, customerId, [{ product_id: productId, quantity: 2, unit_price: 3 }], 'paid');
    const [{ id: amountOnly }] = await sql`
      insert into public.orders (customer_id, status, total_amount, paid_at) values (${customerId}, 'paid', 30, private.now())
      returning id`;
    for (const orderId of [paid.id, amountOnly]) {
      const refused = await moveOrder(sql, orderId, 'refunded', true).catch(apiError);
      expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: { field: 'restock', rule: 'requires' } });
      expect(await moveOrder(sql, orderId, 'refunded')).toMatchObject({ status: 'refunded', restocked: null });
    }
    expect(await consistentStock(sql, productId)).toMatchObject({ reserved: 0, on_hand: 5 });
  });

  it("an rpc caller's line is held to the route's rules, a price exactly, refused with the field's rule and index", async () => {
    const { productId, customerId } = await stockedProduct(sql, 5);
    const place = (line: Record<string, unknown>) =>
      asStoreJob(sql, (tx) => tx`select public.place_order(${customerId}, ${tx.json([{ product_id: productId, quantity: 1, unit_price: 1 }, line] as never)})`)
        .catch(apiError);
    expect(await place({ product_id: productId, quantity: 1, unit_price: 10.000000001 })).toMatchObject({
      status: 400,
      details: { field: 'lines.1.unit_price', rule: 'decimals', params: { max: 2 }, index: 1 },
    });
    expect(await place({ product_id: productId, quantity: 0.5, unit_price: 1 })).toMatchObject({
      details: { field: 'lines.1.quantity', rule: 'type', params: { expected: 'int' }, index: 1 },
    });
    expect(await place({ product_id: productId, quantity: 1, unit_price: -1 })).toMatchObject({
      details: { field: 'lines.1.unit_price', rule: 'min', params: { min: 0 }, index: 1 },
    });
    expect(await place({ product_id: productId, quantity: 1 })).toMatchObject({
      details: { field: 'lines.1.unit_price', rule: 'required', index: 1 },
    });
    expect(await consistentStock(sql, productId)).toMatchObject({ reserved: 0 });
  });
});
