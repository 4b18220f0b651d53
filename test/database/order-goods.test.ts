/**
 * Orders carry their goods (CONTRACT §4): placing reserves, shipping draws from the lots (FIFO or FEFO,
 * never an expired lot), cancelling releases, a refund puts back only when asked, and nothing is oversold,
 * under any concurrency and for a store job's direct `update`. Every test ends by checking the stock rules
 * of the products it touched (test/support/order-goods.ts consistentStock).
 */
import { describe, expect, it } from 'vitest';
import { asRole, createCustomer, createUser, database, DEMO_ADMIN_ID } from '../support/client.ts';
import { createProduct } from '../support/inventory.ts';
import {
  apiError,
  asStoreJob,
  consistentStock,
  moveOrder,
  placeOrder,
  receiveLot,
  stockedProduct,
} from '../support/order-goods.ts';

const sql = database(12);
const admin = { role: 'authenticated', sub: DEMO_ADMIN_ID } as const;

function storeDay(offsetDays: number) {
  return new Date(Date.now() + 8 * 3_600_000 + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

describe('never oversold', () => {
  it('64 concurrent placements for the last 10 units: exactly 10 placed, the rest refused 422 naming the line', async () => {
    const { productId, customerId } = await stockedProduct(sql, 10);
    const attempts = await Promise.allSettled(
      Array.from({ length: 64 }, () => placeOrder(sql, customerId, [{ product_id: productId, quantity: 1, unit_price: 99 }])),
    );
    const placed = attempts.filter((a) => a.status === 'fulfilled');
    const refused = attempts.flatMap((a) => (a.status === 'rejected' ? [apiError(a.reason)] : []));
    expect(placed).toHaveLength(10);
    expect(refused).toHaveLength(54);
    for (const error of refused) {
      expect(error).toMatchObject({ status: 422, code: 'INSUFFICIENT_STOCK' });
      expect(error.details).toMatchObject({ index: 0, requested: 1, available: 0, product_id: productId });
    }
    expect(await consistentStock(sql, productId)).toMatchObject({ on_hand: 10, reserved: 10, available: 0 });
  });

  it('an order is all or nothing: a short second line refuses it and reserves nothing of the first', async () => {
    const first = await stockedProduct(sql, 5);
    const second = await stockedProduct(sql, 1);
    const refused = await placeOrder(sql, first.customerId, [
      { product_id: first.productId, quantity: 2, unit_price: 10 },
      { product_id: second.productId, quantity: 3, unit_price: 10 },
    ]).catch(apiError);
    expect(refused).toMatchObject({ code: 'INSUFFICIENT_STOCK', details: { index: 1, requested: 3, available: 1 } });
    expect(await consistentStock(sql, first.productId)).toMatchObject({ reserved: 0, available: 5 });
    const [{ orders }] = await sql`select count(*)::int as orders from public.orders where customer_id = ${first.customerId}`;
    expect(orders).toBe(0);
  });

  it('a decrease by stock-adjust or stock-out may not take what open orders hold, and says how many are free', async () => {
    const { productId, customerId } = await stockedProduct(sql, 10);
    await placeOrder(sql, customerId, [{ product_id: productId, quantity: 7, unit_price: 1 }]);
    const out = await asStoreJob(sql, (tx) => tx`select public.stock_out(${productId}, 4)`).catch(apiError);
    expect(out).toMatchObject({ code: 'INSUFFICIENT_STOCK', details: { requested: 4, available: 3 } });
    const adjust = await asStoreJob(sql, (tx) =>
      tx`select public.stock_adjust(-4, 'damage_writeoff', ${productId})`).catch(apiError);
    expect(adjust).toMatchObject({ code: 'INSUFFICIENT_STOCK', details: { requested: 4, available: 3 } });
    await asStoreJob(sql, (tx) => tx`select public.stock_out(${productId}, 3)`);
    expect(await consistentStock(sql, productId)).toMatchObject({ on_hand: 7, reserved: 7, available: 0 });
  });

  it('the database refuses reserving more than is on hand whoever writes: the CHECK is the backstop', async () => {
    const { productId } = await stockedProduct(sql, 2);
    await expect(sql`update public.products set reserved_stock = 3 where id = ${productId}`)
      .rejects.toMatchObject({ code: '23514' });
  });
});

describe('the status moves the goods', () => {
  it('shipping draws the lines FIFO from the lots, in one ledger operation naming the order, and releases the reservation', async () => {
    const productId = await createProduct(sql);
    const customerId = await createCustomer(sql, 'buyer');
    const older = await receiveLot(sql, productId, 3, { daysAgo: 5 });
    const newer = await receiveLot(sql, productId, 10, { daysAgo: 1 });
    const order = await placeOrder(sql, customerId, [{ product_id: productId, quantity: 5, unit_price: 20 }], 'paid');
    const shipped = await moveOrder(sql, order.id, 'shipped');
    expect(shipped.status).toBe('shipped');
    expect(shipped.shipped_at).not.toBeNull();
    expect(shipped.lines[0].lots.map((lot: { inventory_id: string; quantity: number }) => [lot.inventory_id, lot.quantity]))
      .toEqual([[older, 3], [newer, 2]]);
    const movements = await sql`
      select operation, reference, delta::int, operation_id from public.stock_movements
      where product_id = ${productId} and operation = 'sale' order by id`;
    expect(movements.map((m) => [m.operation, m.reference, m.delta])).toEqual([
      ['sale', order.id, -3],
      ['sale', order.id, -2],
    ]);
    expect(new Set(movements.map((m) => m.operation_id)).size).toBe(1);
    expect(await consistentStock(sql, productId)).toMatchObject({ on_hand: 8, reserved: 0, available: 8 });
  });

  it('FEFO draws the lot that expires first, then the oldest; FIFO the oldest received', async () => {
    const productId = await createProduct(sql);
    const customerId = await createCustomer(sql, 'buyer');
    const oldLate = await receiveLot(sql, productId, 2, { daysAgo: 9, expiresOn: storeDay(30) });
    const newSoon = await receiveLot(sql, productId, 2, { daysAgo: 1, expiresOn: storeDay(3) });
    const noExpiry = await receiveLot(sql, productId, 2, { daysAgo: 10 });
    await sql`update public.products set allocation = 'fefo' where id = ${productId}`;
    const fefo = await placeOrder(sql, customerId, [{ product_id: productId, quantity: 5, unit_price: 1 }]);
    const drawn = (await moveOrder(sql, fefo.id, 'shipped')).lines[0].lots;
    const order = new Map(drawn.map((lot: { inventory_id: string; quantity: number }) => [lot.inventory_id, lot.quantity]));
    expect(Object.fromEntries(order)).toEqual({ [newSoon]: 2, [oldLate]: 2, [noExpiry]: 1 });

    const fifoProduct = await createProduct(sql);
    const first = await receiveLot(sql, fifoProduct, 2, { daysAgo: 9, expiresOn: storeDay(30) });
    await receiveLot(sql, fifoProduct, 2, { daysAgo: 1, expiresOn: storeDay(3) });
    const fifo = await placeOrder(sql, customerId, [{ product_id: fifoProduct, quantity: 2, unit_price: 1 }]);
    expect((await moveOrder(sql, fifo.id, 'shipped')).lines[0].lots).toMatchObject([{ inventory_id: first, quantity: 2 }]);
    await consistentStock(sql, productId);
    await consistentStock(sql, fifoProduct);
  });

  it('an expired lot is never drawn for a sale; with only expired units left, shipping is refused 422 EXPIRED_STOCK', async () => {
    const productId = await createProduct(sql);
    const customerId = await createCustomer(sql, 'buyer');
    // Received ten days ago with an expiry two days ago: past it today.
    const expired = await receiveLot(sql, productId, 4, { daysAgo: 10, expiresOn: storeDay(-2) });
    const fresh = await receiveLot(sql, productId, 1, { daysAgo: 1 });
    const order = await placeOrder(sql, customerId, [{ product_id: productId, quantity: 1, unit_price: 1 }]);
    expect((await moveOrder(sql, order.id, 'shipped')).lines[0].lots).toMatchObject([{ inventory_id: fresh, quantity: 1 }]);

    const short = await placeOrder(sql, customerId, [{ product_id: productId, quantity: 2, unit_price: 1 }]);
    const refused = await moveOrder(sql, short.id, 'shipped').catch(apiError);
    expect(refused).toMatchObject({ status: 422, code: 'EXPIRED_STOCK', details: { index: 0, requested: 2, available: 0 } });
    const [lot] = await sql`select available_quantity::int from public.inventory_records where id = ${expired}`;
    expect(lot.available_quantity).toBe(4);
    const [{ status }] = await sql`select status from public.orders where id = ${short.id}`;
    expect(status).toBe('pending');
    expect(await consistentStock(sql, productId)).toMatchObject({ on_hand: 4, reserved: 2 });
  });

  it('cancelling before shipping releases the reservation and draws nothing', async () => {
    const { productId, customerId } = await stockedProduct(sql, 5);
    const order = await placeOrder(sql, customerId, [{ product_id: productId, quantity: 4, unit_price: 1 }]);
    const cancelled = await moveOrder(sql, order.id, 'cancelled');
    expect(cancelled.cancelled_at).not.toBeNull();
    expect(await consistentStock(sql, productId)).toMatchObject({ on_hand: 5, reserved: 0, available: 5 });
  });

  it('a refund after shipping puts the goods back into their lots only with restock', async () => {
    const { productId, customerId } = await stockedProduct(sql, 6);
    const kept = await placeOrder(sql, customerId, [{ product_id: productId, quantity: 2, unit_price: 1 }]);
    const back = await placeOrder(sql, customerId, [{ product_id: productId, quantity: 3, unit_price: 1 }]);
    await moveOrder(sql, kept.id, 'shipped');
    await moveOrder(sql, back.id, 'shipped');
    const damaged = await moveOrder(sql, kept.id, 'refunded', false);
    expect(damaged.restocked).toBe(false);
    const restocked = await moveOrder(sql, back.id, 'refunded', true);
    expect(restocked.restocked).toBe(true);
    expect(restocked.lines[0].lots).toMatchObject([{ quantity: 3, returned_quantity: 3 }]);
    const [{ returned }] = await sql`
      select coalesce(sum(delta), 0)::int as returned from public.stock_movements
      where product_id = ${productId} and operation = 'sale_return' and reference = ${back.id}`;
    expect(returned).toBe(3);
    expect(await consistentStock(sql, productId)).toMatchObject({ on_hand: 4, reserved: 0 });
  });

  it('a move the table does not allow is refused 422 with the moves allowed, and changes nothing', async () => {
    const { productId, customerId } = await stockedProduct(sql, 3);
    const order = await placeOrder(sql, customerId, [{ product_id: productId, quantity: 1, unit_price: 1 }]);
    await moveOrder(sql, order.id, 'cancelled');
    const refused = await moveOrder(sql, order.id, 'shipped').catch(apiError);
    expect(refused).toMatchObject({ status: 422, code: 'INVALID_STATUS_TRANSITION', details: { from: 'cancelled', allowed: [] } });
    expect(await consistentStock(sql, productId)).toMatchObject({ on_hand: 3, reserved: 0 });
  });

  it("a store job's direct update of the status moves the goods by the same rules", async () => {
    const { productId, customerId } = await stockedProduct(sql, 4);
    const order = await placeOrder(sql, customerId, [{ product_id: productId, quantity: 3, unit_price: 1 }]);
    await asStoreJob(sql, (tx) => tx`update public.orders set status = 'shipped' where id = ${order.id}`);
    expect(await consistentStock(sql, productId)).toMatchObject({ on_hand: 1, reserved: 0 });
    const back = await asStoreJob(sql, (tx) => tx`update public.orders set status = 'pending' where id = ${order.id}`)
      .catch(apiError);
    expect(back).toMatchObject({ code: 'INVALID_STATUS_TRANSITION' });
    await asStoreJob(sql, (tx) =>
      tx`update public.orders set status = 'refunded', refunded_at = private.now(), restocked = true where id = ${order.id}`);
    expect(await consistentStock(sql, productId)).toMatchObject({ on_hand: 4, reserved: 0 });
  });

  it('ship, cancel and refund racing on one paid order: one move wins, a refund may follow a ship, the stock is exact', async () => {
    for (let round = 0; round < 6; round += 1) {
      const { productId, customerId } = await stockedProduct(sql, 5);
      const order = await placeOrder(sql, customerId, [{ product_id: productId, quantity: 2, unit_price: 1 }], 'paid');
      const moves = await Promise.allSettled([
        moveOrder(sql, order.id, 'shipped'),
        moveOrder(sql, order.id, 'cancelled'),
        moveOrder(sql, order.id, 'refunded'),
      ]);
      const [shipped, cancelled, refunded] = moves.map((move) => move.status === 'fulfilled');
      const states = await consistentStock(sql, productId);
      if (shipped) {
        // Shipped first: cancelling is no move from there; a refund without restock leaves the goods out.
        expect(cancelled).toBe(false);
        expect(states).toMatchObject({ on_hand: 3, reserved: 0 });
      } else {
        expect([cancelled, refunded].filter(Boolean)).toHaveLength(1);
        expect(states).toMatchObject({ on_hand: 5, reserved: 0 });
      }
      for (const move of moves) {
        if (move.status === 'rejected') expect(apiError(move.reason).code).toBe('INVALID_STATUS_TRANSITION');
      }
    }
  });
});

describe('who sees and writes the goods', () => {
  it('a customer reads the lines of their own orders only; nobody writes a line directly', async () => {
    const buyer = await createUser(sql);
    const [{ id: ownCustomer }] = await sql`
      insert into public.customers (user_id, email, name) values (${buyer.id}, ${`${buyer.id}@example.com`}, 'Buyer')
      returning id`;
    const customer = { role: 'authenticated', sub: buyer.id } as const;
    const { productId, customerId: stranger } = await stockedProduct(sql, 4);
    const own = await placeOrder(sql, ownCustomer, [{ product_id: productId, quantity: 1, unit_price: 5 }]);
    const other = await placeOrder(sql, stranger, [{ product_id: productId, quantity: 1, unit_price: 5 }]);
    const seen = await asRole(sql, customer, (tx) =>
      tx`select order_id from public.order_lines where order_id in (${own.id}, ${other.id})`);
    expect(seen.result!.map((row) => row.order_id)).toEqual([own.id]);
    const adminSees = await asRole(sql, admin, (tx) =>
      tx`select order_id from public.order_lines where order_id in (${own.id}, ${other.id})`);
    expect(adminSees.result).toHaveLength(2);
    for (const caller of [admin, { role: 'service_role' } as const]) {
      const write = await asRole(sql, caller, (tx) =>
        tx`update public.order_lines set quantity = 100 where order_id = ${own.id}`);
      expect(write.error?.code).toBe('42501');
    }
    const placedByCustomer = await asRole(sql, customer, (tx) =>
      tx`select public.place_order(${ownCustomer}, ${tx.json([{ product_id: productId, quantity: 1, unit_price: 1 }])})`);
    expect(apiError(placedByCustomer.error)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    await consistentStock(sql, productId);
  });
});
