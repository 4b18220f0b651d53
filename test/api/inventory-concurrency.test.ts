import { describe, expect, it } from 'vitest';
import { freePort, startFunctions } from '../../scripts/lib/stack.mjs';
import { call, database, dbUrl, tokens } from '../support/client.ts';
import { createProduct, stockFigures, stockIn } from '../support/inventory.ts';

const sql = database();

describe('stock under concurrent requests', () => {
  it('two hundred simultaneous decreases of 1 on a product holding 100 never oversell', async () => {
    const productId = await createProduct(sql);
    // Four lots, so the concurrent FIFO draws also cross lot boundaries.
    for (const daysAgo of [4, 3, 2, 1]) await stockIn(productId, 25, daysAgo);
    const responses = await Promise.all(
      Array.from(
        { length: 200 },
        (_, i) =>
          i % 2 === 0
            ? call('stock-out', { method: 'POST', body: { product_id: productId, quantity: 1 } })
            : call('stock-adjust', {
              method: 'POST',
              token: tokens.customer,
              body: { product_id: productId, adjust_quantity: -1, reason: 'damage_writeoff' },
            }),
      ),
    );
    const statuses = responses.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(100);
    expect(statuses.filter((status) => status === 422)).toHaveLength(100);
    for (const res of responses.filter((r) => r.status === 422)) expect(res.body.code).toBe('INSUFFICIENT_STOCK');
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 0, sum_available: 0, sum_deltas: 0 });
    const [{ count }] =
      await sql`select count(*)::int from public.stock_movements where product_id = ${productId} and delta < 0`;
    expect(count).toBe(100);
  });

  it('mixed simultaneous stock-in, adjust and stock-out keep ledger, lots and stock equal for every product', async () => {
    const products = [await createProduct(sql), await createProduct(sql), await createProduct(sql)];
    const lots: string[][] = [];
    for (const productId of products) lots.push([await stockIn(productId, 20, 2), await stockIn(productId, 20, 1)]);

    // A fixed pseudo-random mix, so a failure can be replayed exactly.
    let seed = 42;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const requests = Array.from({ length: 180 }, () => {
      const p = next(products.length);
      const productId = products[p];
      const quantity = 1 + next(6);
      switch (next(5)) {
        case 0:
          return { name: 'stock-in', delta: quantity, body: { product_id: productId, quantity } };
        case 1:
          return { name: 'stock-out', delta: -quantity, body: { product_id: productId, quantity } };
        case 2:
          return {
            name: 'stock-adjust',
            delta: -quantity,
            body: { product_id: productId, adjust_quantity: -quantity, reason: 'inventory_audit_decrease' },
          };
        case 3:
          return {
            name: 'stock-adjust',
            delta: quantity,
            body: { product_id: productId, adjust_quantity: quantity, reason: 'inventory_audit_increase' },
          };
        default:
          return {
            name: 'stock-adjust',
            delta: -quantity,
            body: { inventory_id: lots[p][next(2)], adjust_quantity: -quantity, reason: 'loss_theft' },
          };
      }
    });
    const responses = await Promise.all(
      requests.map((request) => call(request.name, { method: 'POST', token: tokens.service, body: request.body })),
    );

    const expected = new Map(products.map((id) => [id, 40]));
    responses.forEach((res, i) => {
      expect([200, 201, 422]).toContain(res.status);
      if (res.status === 422) expect(res.body.code).toBe('INSUFFICIENT_STOCK');
      else {
        const productId = res.body.product_id as string;
        expected.set(productId, expected.get(productId)! + requests[i].delta);
      }
    });
    expect(responses.filter((res) => res.status === 422).length).toBeLessThan(responses.length);
    for (const productId of products) {
      const stock = expected.get(productId)!;
      expect(await stockFigures(sql, productId)).toEqual({
        current_stock: stock,
        sum_available: stock,
        sum_deltas: stock,
      });
    }
    const [{ broken }] = await sql`
      select count(*)::int as broken from public.stock_movements
      where product_id = any(${products}) and (stock_after < 0 or record_available_after < 0)`;
    expect(broken).toBe(0);
  });
});

describe('a row lock held for long', () => {
  it('writes waiting on it get 409 LOCK_TIMEOUT with Retry-After, and unrelated reads are answered, within the request timeout', async () => {
    const productId = await createProduct(sql);
    const holder = await sql.reserve();
    try {
      await holder`begin`;
      await holder`select 1 from public.products where id = ${productId} for update`;
      // More waiting writes than the functions' pool has connections, then a read that needs none of the row.
      const writes = Array.from({ length: 25 }, () =>
        call('stock-in', { method: 'POST', body: { product_id: productId, quantity: 1 }, signal: AbortSignal.timeout(12_000) }));
      const read = call('campaign-types', { token: tokens.customer, signal: AbortSignal.timeout(12_000) });
      expect((await read).status).toBe(200);
      for (const res of await Promise.all(writes)) {
        expect(res.status).toBe(409);
        expect(res.body).toMatchObject({ success: false, code: 'LOCK_TIMEOUT' });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    } finally {
      await holder`rollback`;
      holder.release();
    }
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 0, sum_available: 0, sum_deltas: 0 });
  });

  it('a statement cancelled under a request (its timeout, or an operator) answers 503 and hands its connection back, rolled back', async () => {
    const productId = await createProduct(sql);
    // A server of its own with a bound of 40 s, so a lock timeout of 10 s (a quarter): room for a busy machine
    // to bring the 3 to the lock before any of them gives up waiting.
    const functions = await startFunctions({ dbUrl, port: await freePort(), env: { DB_REQUEST_TIMEOUT: '40' } });
    try {
      const holder = await sql.reserve();
      const cancelled: number[] = [];
      try {
        await holder`begin`;
        const [{ pid: holderPid }] = await holder`select pg_backend_pid() as pid, 1 from public.products where id = ${productId} for update`;
        const writes = Array.from({ length: 3 }, () =>
          call('stock-in', {
            base: functions.url,
            method: 'POST',
            body: { product_id: productId, quantity: 1 },
            signal: AbortSignal.timeout(20_000),
          }));
        // Cancelled while they wait on the lock, well before the lock timeout: what a statement timeout does.
        await expect.poll(async () => {
          const waiting = await sql`select pid from pg_stat_activity where wait_event_type = 'Lock' and pid <> ${holderPid}
                                      and query like '%public.stock_in(%'`;
          for (const { pid } of waiting) if (!cancelled.includes(pid)) cancelled.push(pid);
          return cancelled.length;
        }, { timeout: 8_000, interval: 50 }).toBe(3);
        await sql`select pg_cancel_backend(pid) from unnest(${cancelled}::integer[]) as pid`;
        for (const res of await Promise.all(writes)) {
          expect(res.status, res.text).toBe(503);
          expect(res.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
        }
      } finally {
        await holder`rollback`;
        holder.release();
      }
      // The connections are back in the pool, not left idle in a failed transaction that nobody ends.
      await expect.poll(async () => {
        const rows = await sql`select state from pg_stat_activity where pid = any(${cancelled}::integer[])`;
        return rows.filter((row) => row.state !== 'idle').map((row) => row.state);
      }, { timeout: 2_000, interval: 50 }).toEqual([]);
    } finally {
      await functions.stop();
    }
    expect(await stockFigures(sql, productId)).toEqual({ current_stock: 0, sum_available: 0, sum_deltas: 0 });
  });
});
