// `npm run bench:writes -- --smoke` end to end, so the order-writes harness keeps working between full
// runs. A file of its own, so it runs beside the HTTP harness's smoke rather than after it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/stack.mjs';
import { runSmoke } from '../support/bench.ts';
import { scratchDatabase } from '../support/client.ts';

const database = scratchDatabase('bench_writes_smoke');

describe('the order-writes benchmark harness', () => {
  it('measures the order write path beside the trigger-less copy and writes its report', async () => {
    const { code, output } = await runSmoke('bench/order-writes.mjs', database);
    expect(code, output).toBe(0);
    const report = JSON.parse(await readFile(path.join(ROOT, 'bench/results/order-writes-smoke.json'), 'utf8'));
    expect(report.mode).toBe('smoke');
    for (const table of ['orders', 'orders_without_triggers']) {
      expect(report.single[table].new_customer.p50, table).toBeGreaterThan(0);
      expect(report.single[table].heavy_customer.p50, table).toBeGreaterThan(0);
    }
    // The store's orders and what the writers appended were folded, and each fold was timed.
    expect(report.fold.store.changes).toBe(report.orders + report.heavy_customer_orders);
    expect(report.fold.writers.changes).toBeGreaterThan(0);
    expect(report.concurrent.map((c: any) => `${c.writers} ${c.table}`)).toEqual([
      '8 orders', '8 orders_without_triggers', '32 orders', '32 orders_without_triggers',
    ]);
    for (const run of report.concurrent) {
      expect(run.orders_per_second, `${run.writers} ${run.table}`).toBeGreaterThan(0);
      expect(run.errors, `${run.writers} ${run.table}`).toEqual({});
    }
    // Orders with goods: placed beside the copies; the flash sale placed exactly its units, then only refusals.
    const goods = report.goods;
    expect(goods.single.place_order.p50).toBeGreaterThan(0);
    expect(goods.single.copies.p50).toBeGreaterThan(0);
    for (const run of goods.concurrent) expect(run.errors, `copies: ${run.copies}`).toEqual({});
    expect(goods.flash_sale.placed).toBe(goods.flash_sale.units);
    expect(Object.keys(goods.flash_sale.errors)).toEqual(['INSUFFICIENT_STOCK']);
    expect(goods.flash_sale.stock).toEqual({ on_hand: goods.flash_sale.units, reserved: goods.flash_sale.units, available: 0 });
    expect(goods.shipping.p50).toBeGreaterThan(0);
    expect(goods.deadlocks).toBe(0);
  }, 120_000);
});
