/**
 * npm run seed:demo: deterministic, idempotent, set-based, with a progress bar. It runs against a
 * database of its own on the test server, so its year of orders never reaches the shared one.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareDatabase } from '../../scripts/lib/stack.mjs';
import { demoCustomerName, SURNAMES } from '../../scripts/lib/demo-names.mjs';
import { seedDemo } from '../../scripts/seed-demo.mjs';
import { consistentStock } from '../support/order-goods.ts';
import { scratchDatabase } from '../support/client.ts';

const scratch = scratchDatabase('health_demo');
/** A new install's database: the migrations and the built-in seed, demo shoppers' orders included. */
const fresh = scratchDatabase('health_demo_fresh');
const url = scratch.url;
let sql: postgres.Sql;

beforeAll(async () => {
  await scratch.create();
  await prepareDatabase(url, { seed: false });
  sql = postgres(url, { max: 2, onnotice: () => {}, types: { numeric: { to: 1700, from: [1700], serialize: String, parse: Number } } as never });
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
});

const options = { orders: 400, seed: 7, customers: 60, tickets: 40, products: 25, asOf: '2026-06-01' };

async function fingerprint() {
  const [row] = await sql`
    select (select count(*)::int from public.customers) as customers,
           (select count(*)::int from public.orders) as orders,
           (select count(*)::int from public.support_tickets) as tickets,
           (select count(*)::int from public.products) as products,
           (select count(*)::int from public.stock_movements) as movements,
           (select count(*)::int from public.order_lines) as lines,
           (select md5(string_agg(l::text, '|' order by l.id)) from
              (select l.id, l.order_id, l.product_id, l.quantity, l.unit_price, d.inventory_record_id, d.quantity as drawn
               from public.order_lines l left join public.order_line_lots d on d.order_line_id = l.id) l) as lines_md5,
           (select md5(string_agg(p::text, '|' order by p.id)) from
              (select p.id, p.current_stock, p.reserved_stock, r.quantity, r.available_quantity, r.unit_cost
               from public.products p join public.inventory_records r on r.product_id = p.id) p) as products_md5,
           (select md5(string_agg(o::text, '|' order by o.id)) from
              (select id, customer_id, status, total_amount, ordered_at, promised_at, delivered_at, completed_at, cancelled_at
               from public.orders) o) as orders_md5,
           (select md5(string_agg(t::text, '|' order by t.id)) from
              (select id, customer_id, status, opened_at, first_response_at, resolved_at, satisfaction_rating
               from public.support_tickets) t) as tickets_md5`;
  return row;
}

describe('seed:demo', () => {
  it('writes the requested rows through the command line, with a progress bar on stderr', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['scripts/seed-demo.mjs', '--orders', '400', '--seed', '7', '--customers', '60', '--tickets', '40', '--products', '25', '--as-of', '2026-06-01'],
      { env: { ...process.env, DATABASE_URL: url } },
    );
    expect(stderr).toMatch(/orders\s+\[#{30}\] 100% 400\/400/);
    const { hostname, port, pathname } = new URL(url);
    expect(stderr).toContain(`Writing the demo store into ${hostname}:${port}${pathname}`);
    expect(stdout).toMatch(/Added 60 customers, 400 orders, 40 tickets, 25 products/);
    expect(stdout + stderr).not.toContain('postgres:postgres@');
    expect(await fingerprint()).toMatchObject({ customers: 60, orders: 400, tickets: 40, products: 25 });
    // A stock-in per product's lot, and a sale per shipped line.
    const [{ movements, expected }] = await sql`
      select (select count(*)::int from public.stock_movements) as movements,
             25 + (select count(*)::int from public.order_lines l join public.orders o on o.id = l.order_id
                   where o.shipped_at is not null) as expected`;
    expect(movements).toBe(expected);
  });

  it("runs as the README shows it on a fresh install: the built-in seed's orders are not the store's own", async () => {
    await fresh.createMigrated();
    const probe = postgres(fresh.url, { max: 1, onnotice: () => {} });
    try {
      const [{ seeded }] = await probe`select count(*)::int as seeded from public.orders`;
      expect(seeded).toBeGreaterThan(0);
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['scripts/seed-demo.mjs', '--orders', '50', '--customers', '10', '--tickets', '5', '--products', '20'],
        { env: { ...process.env, DATABASE_URL: fresh.url } },
      );
      expect(stdout).toMatch(/Added 10 customers, 50 orders/);
      const [{ orders }] = await probe`select count(*)::int as orders from public.orders`;
      expect(orders).toBe(seeded + 50);
    } finally {
      await probe.end();
    }
  });

  it('refuses to add to a store that already has orders unless --append; says so when a rerun adds nothing', async () => {
    const args = ['scripts/seed-demo.mjs', '--orders', '400', '--seed', '8', '--customers', '60', '--tickets', '40', '--products', '25', '--as-of', '2026-06-01'];
    const env = { ...process.env, DATABASE_URL: url };
    const refused = await promisify(execFile)(process.execPath, args, { env }).catch((error) => error);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already has 400 orders; nothing was written\. Add --append/);
    expect(await fingerprint()).toMatchObject({ customers: 60, orders: 400 });
    const again = args.map((arg) => (arg === '8' ? '7' : arg));
    const rerun = await promisify(execFile)(process.execPath, [...again, '--append'], { env });
    expect(rerun.stdout).toMatch(/^Nothing to add: the store at .+ already holds the demo data of seed 7 as of 2026-06-01/);
    const unsized = await promisify(execFile)(process.execPath, ['scripts/seed-demo.mjs', '--append'], { env }).catch((error) => error);
    expect(unsized.code).toBe(1);
    expect(unsized.stderr).toMatch(/^--orders is required\nusage: npm run seed:demo/);
    const bogus = await promisify(execFile)(process.execPath, ['scripts/seed-demo.mjs', '--bogus', '1'], { env }).catch((error) => error);
    expect(bogus.code).toBe(1);
    expect(bogus.stderr).toMatch(/^unknown option --bogus\nusage: npm run seed:demo/);
    expect(await fingerprint()).toMatchObject({ orders: 400 });
  });

  it('is deterministic: the same seed gives the same rows, and running it again adds nothing', async () => {
    const first = await fingerprint();
    await seedDemo(url, options, { quiet: true });
    expect(await fingerprint()).toEqual(first);
    // Emptied as an operator would (a placed order's lines refuse a delete).
    await sql`truncate public.stock_movements, public.order_line_lots, public.order_lines, public.inventory_records,
                       public.products, public.support_tickets, public.orders, public.customers cascade`;
    await seedDemo(url, options, { quiet: true });
    expect(await fingerprint()).toEqual(first);
  });

  it("names its customers as Taiwan's people are named, each as the bench's searches expect: the draw in SQL is the draw in JavaScript", async () => {
    const customers = await sql<{ email: string; name: string }[]>`select email, name from public.customers`;
    expect(customers.length).toBe(60);
    for (const { email, name } of customers) {
      const [, seed, n] = /^demo-(\d+)-(\d+)@demo\.example$/.exec(email)!;
      expect(name, email).toBe(demoCustomerName(Number(seed), Number(n)));
    }
    // The draw itself: surnames as common as in Taiwan (陳 11.1 %), none among the given names' characters.
    const names = Array.from({ length: 20_000 }, (_, i) => demoCustomerName(7, i + 1));
    const share = names.filter((name) => name.startsWith('陳')).length / names.length;
    expect(share).toBeGreaterThan(0.1);
    expect(share).toBeLessThan(0.125);
    const surnames = new Set(SURNAMES.map(([surname]) => surname));
    expect(names.filter((name) => [...name].slice(1).some((character) => surnames.has(character)))).toEqual([]);
  });

  it('gives every order 2 or 3 lines that add up to it, and every product stock that its orders explain', async () => {
    const [orders] = await sql`
      select count(*) filter (where n not between 2 and 3)::int as odd_line_counts,
             count(*) filter (where o.total_amount <> l.amount or o.item_count <> l.items)::int as totals_off
      from public.orders o
      join (select order_id, count(*) as n, sum(amount) as amount, sum(quantity) as items
            from public.order_lines group by order_id) l on l.order_id = o.id`;
    expect(orders).toEqual({ odd_line_counts: 0, totals_off: 0 });
    const products = await sql`select id from public.products`;
    for (const { id } of products) await consistentStock(sql as never, id);
    const [{ sold }] = await sql`select count(*)::int as sold from public.stock_movements where operation = 'sale'`;
    expect(sold).toBeGreaterThan(300);
  });

  it('gives a store the report can score on every dimension it feeds', async () => {
    const [{ report }] = await sql`select private.health_report('30d', false, true, true, '2026-06-01Z') as report`;
    for (const name of ['revenue', 'satisfaction', 'fulfillment', 'support', 'products']) expect(report.metrics[name], name).toBeGreaterThan(0);
    expect(report.scoreDetails.customerQuality).toBeGreaterThan(0);
    expect(report.insights.length).toBeGreaterThan(0);
  });
});
