// npm run bench:writes [-- --orders N] [--duration S] [--smoke [--database-url URL]]
//
// The order write path as a backend job writes it (SQL, one order per transaction), on a fresh embedded
// PostgreSQL holding the project's migrations and a generated store (its seconds: the orders inserted, then
// folded): single-insert latency for a new customer and for one with 10,000 orders, into `public.orders`
// (every trigger) and into a trigger-less copy of the table, then 8 and 32 concurrent writers inserting
// orders of distinct customers into each (the copy is the write ceiling, same run), with the lock waits
// seen by sampling pg_locks and every error counted; last, the fold of what the writers appended, in
// orders per second. Writes bench/results/order-writes.{json,md}; `--smoke` (a small store, a fifth of a second per
// measurement, for the test that keeps the harness working) writes order-writes-smoke.{json,md} instead.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { freePort, prepareDatabase, ROOT, startEmbeddedPostgres } from '../scripts/lib/stack.mjs';
import {
  concurrentPlacements,
  createGoodsCopies,
  flashSale,
  generatedOrders,
  percentiles,
  shipments,
  singlePlacements,
  stockedProducts,
} from './order-goods.mjs';

const { values } = parseArgs({
  options: {
    orders: { type: 'string' },
    duration: { type: 'string' },
    smoke: { type: 'boolean', default: false },
    // With --smoke: an empty, migrated database to generate the store in (the test suite's scratch
    // database) instead of a PostgreSQL of its own. It is written to: never a store's database.
    'database-url': { type: 'string' },
  },
});
if (values['database-url'] && !values.smoke) throw new Error('--database-url is for --smoke runs only');
const smoke = values.smoke;
const ORDERS = Number(values.orders ?? (smoke ? 2_000 : 100_000));
const DURATION_MS = Number(values.duration ?? (smoke ? 0.2 : 5)) * 1000;
const HEAVY_ORDERS = smoke ? 500 : 10_000;
const SINGLE_INSERTS = smoke ? 40 : 400;
// The goods' measurements in a smoke run are the lightest that still exercise every path.
const FLASH_SALE_UNITS = smoke ? 64 : 10_000;
const SHIPMENTS = smoke ? 10 : 200;
const GOODS_PLACEMENTS = smoke ? 20 : SINGLE_INSERTS;
const GOODS_DURATION_MS = smoke ? 150 : DURATION_MS;
const RESULTS = path.join(ROOT, 'bench/results', smoke ? 'order-writes-smoke' : 'order-writes');
const log = (message) => process.stderr.write(`${message}\n`);

/** The run's PostgreSQL: one of its own in a temporary folder, or the database --database-url names. */
async function openDatabase() {
  if (values['database-url']) return { url: values['database-url'], stop: async () => {} };
  const dir = await mkdtemp(path.join(tmpdir(), 'store-order-writes-'));
  await chmod(dir, 0o755);
  const database = await startEmbeddedPostgres({ dataDir: path.join(dir, 'data'), port: await freePort() });
  return { url: database.url, stop: async () => (await database.stop(), await rm(dir, { recursive: true, force: true })) };
}

const database = await openDatabase();
const sql = postgres(database.url, { max: 40, onnotice: () => {} });

try {
  await prepareDatabase(database.url, { seed: false });
  // A database handed in (--database-url) may hold changes not yet folded (the seed's orders): folded first,
  // so the store's fold below counts the store's own.
  await fold();
  log(`Generating ${ORDERS} orders over ${ORDERS / 10} customers and one customer with ${HEAVY_ORDERS}…`);
  const started = performance.now();
  await generateStore();
  const insertSeconds = (performance.now() - started) / 1000;
  const storeFold = await fold();
  const generateSeconds = (performance.now() - started) / 1000;
  await sql`create table public.orders_without_triggers (like public.orders including all)`;
  await sql`vacuum analyze`;

  log('Single inserts…');
  const single = {};
  for (const table of ['orders', 'orders_without_triggers']) {
    single[table] = {
      new_customer: await singleInserts(table, () => newCustomerIds(SINGLE_INSERTS)),
      heavy_customer: await singleInserts(table, async () => Array(SINGLE_INSERTS).fill(await heavyCustomer())),
    };
  }
  const concurrent = [];
  for (const writers of [8, 32]) {
    for (const table of ['orders', 'orders_without_triggers']) {
      log(`${writers} writers into ${table}…`);
      concurrent.push({ writers, table, ...(await concurrentInserts(writers, table)) });
    }
  }
  log('Folding what the writers appended…');
  const writersFold = await fold();
  const goods = await measureGoods();
  const report = {
    generated_at: new Date().toISOString(),
    mode: smoke ? 'smoke' : 'full',
    orders: ORDERS,
    heavy_customer_orders: HEAVY_ORDERS,
    insert_seconds: insertSeconds,
    generate_seconds: generateSeconds,
    single,
    concurrent,
    fold: { store: storeFold, writers: writersFold },
    goods,
  };
  await writeFile(`${RESULTS}.json`, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(`${RESULTS}.md`, markdown(report));
  process.stdout.write(markdown(report));
} finally {
  await sql.end();
  await database.stop();
}

async function generateStore() {
  await generatedOrders(sql, ORDERS);
  const [{ id }] =
    await sql`insert into public.customers (email, name) values ('heavy@bench.test', 'Heavy') returning id`;
  await sql`
    insert into public.orders (customer_id, status, total_amount, ordered_at)
    select ${id}, 'paid', 50 + i % 500, private.now() - make_interval(mins => (i * 52) % (365 * 24 * 60))
    from generate_series(1, ${HEAVY_ORDERS}) i`;
}

/** Folds every change logged so far, in one batch, and says how many orders a second that was. */
async function fold() {
  const start = performance.now();
  const [{ folded }] = await sql`select private.fold_order_changes(true, ${2 ** 31 - 1})::int as folded`;
  const seconds = (performance.now() - start) / 1000;
  return { changes: folded, seconds, changes_per_second: folded / seconds };
}

/**
 * The goods: placing orders of 3 lines (one writer; 8 on different products) beside the same rows inserted into
 * trigger-less copies, 32 writers of 1-unit orders on different products and then on one (the flash sale), and
 * shipping an order of 3 lines.
 */
async function measureGoods() {
  log('Orders with goods…');
  await createGoodsCopies(sql);
  const products = await stockedProducts(sql, 96, 10_000_000);
  const [customer] = await newCustomerIds(1);
  const customers = await newCustomerIds(32);
  const single = {};
  for (const copies of [false, true]) {
    single[copies ? 'copies' : 'place_order'] = await singlePlacements(database.url, {
      customer,
      products,
      count: GOODS_PLACEMENTS,
      copies,
    });
  }
  const concurrent = [];
  for (const copies of [false, true]) {
    log(`8 writers placing orders of 3 lines${copies ? ' into the copies' : ''}…`);
    // Each writer its own three products: the products' row locks are not what this measures.
    const linesFor = (w) => [0, 1, 2].map((k) => ({ product_id: products[w * 3 + k], quantity: 1, unit_price: 120 }));
    concurrent.push({
      writers: 8,
      lines: 3,
      copies,
      ...(await concurrentPlacements(database.url, {
        customers,
        writers: 8,
        durationMs: GOODS_DURATION_MS,
        copies,
        linesFor,
      })),
    });
  }
  log('32 writers of 1-unit orders, each its own product…');
  const spread = await concurrentPlacements(database.url, {
    customers,
    writers: 32,
    durationMs: GOODS_DURATION_MS,
    copies: false,
    linesFor: (w) => [{ product_id: products[24 + w], quantity: 1, unit_price: 99 }],
  });
  log(`The flash sale: 32 writers, one product of ${FLASH_SALE_UNITS} units…`);
  const flash = await flashSale(sql, database.url, { customers, units: FLASH_SALE_UNITS, durationMs: 120_000 });
  log('Shipping orders of 3 lines…');
  const shipping = await shipments(database.url, { customer, products, count: SHIPMENTS });
  const [{ deadlocks }] = await sql`select deadlocks::int from pg_stat_database where datname = current_database()`;
  return { single, concurrent, spread: { writers: 32, lines: 1, ...spread }, flash_sale: flash, shipping, deadlocks };
}

async function heavyCustomer() {
  return (await sql`select id from public.customers where email = 'heavy@bench.test'`)[0].id;
}

async function newCustomerIds(count) {
  return (await sql`
    insert into public.customers (email, name)
    select gen_random_uuid() || '@bench.test', 'New' from generate_series(1, ${count})
    returning id`).map((r) => r.id);
}

/**
 * Inserts one paid order per customer given, one transaction each, on one connection as a backend job's
 * would be (its first tenth unmeasured: the functions' plans are cached per connection), and returns the
 * latency percentiles.
 */
async function singleInserts(table, customers) {
  const ids = await customers();
  const connection = postgres(database.url, { max: 1, onnotice: () => {} });
  const times = [];
  try {
    for (const [i, customer] of ids.entries()) {
      const start = performance.now();
      await connection`insert into ${
        connection('public.' + table)
      } (customer_id, status, total_amount) values (${customer}, 'paid', 120)`;
      if (i >= ids.length / 10) times.push(performance.now() - start);
    }
  } finally {
    await connection.end();
  }
  return percentiles(times);
}

async function concurrentInserts(writers, table) {
  const customers = await newCustomerIds(writers * 50);
  const pool = postgres(database.url, { max: writers, onnotice: () => {} });
  const errors = {};
  let orders = 0;
  let waitSamples = 0;
  const waits = {};
  let samples = 0;
  const end = Date.now() + DURATION_MS;
  const sampler = (async () => {
    while (Date.now() < end) {
      const waiting = await sql`select locktype, count(*)::int as n from pg_locks where not granted group by 1`;
      samples++;
      if (waiting.length > 0) waitSamples++;
      for (const { locktype, n } of waiting) waits[locktype] = (waits[locktype] ?? 0) + n;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    await Promise.all(Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; Date.now() < end; i++) {
        const customer = customers[w * 50 + (i % 50)];
        try {
          await pool`insert into ${
            pool('public.' + table)
          } (customer_id, status, total_amount) values (${customer}, 'paid', 99)`;
          orders++;
        } catch (error) {
          errors[error.code ?? error.message] = (errors[error.code ?? error.message] ?? 0) + 1;
        }
      }
    }));
    await sampler;
  } finally {
    await pool.end();
  }
  return { orders_per_second: orders / (DURATION_MS / 1000), lock_wait_samples: waitSamples, samples, waits, errors };
}

function markdown(report) {
  const n = (value, digits = 0) => Number(value).toFixed(digits);
  const ceiling = (writers) =>
    report.concurrent.find((c) => c.writers === writers && c.table === 'orders_without_triggers');
  const single = (table, who) => report.single[table][who];
  const ratio = (who) => n(single('orders', who).p50 / single('orders_without_triggers', who).p50, 2);
  return [
    `# Order writes (${report.generated_at})`,
    '',
    `Store: ${report.orders} orders generated in ${n(report.generate_seconds, 1)} s (inserted in ${
      n(report.insert_seconds, 1)
    } s, one statement, then folded in ${
      n(report.fold.store.seconds, 1)
    } s), plus one customer with ${report.heavy_customer_orders} orders.`,
    '',
    '| single insert, one transaction each | orders p50 ms | p99 ms | trigger-less copy p50 ms | p99 ms | p50 ratio |',
    '|---|---:|---:|---:|---:|---:|',
    ...['new_customer', 'heavy_customer'].map((who) =>
      `| ${who === 'new_customer' ? 'new customer' : `customer with ${report.heavy_customer_orders} orders`} | ${
        n(single('orders', who).p50, 2)
      } | ${n(single('orders', who).p99, 2)} | ${n(single('orders_without_triggers', who).p50, 2)} | ${
        n(single('orders_without_triggers', who).p99, 2)
      } | ${ratio(who)}x |`
    ),
    '',
    '| writers | table | orders/s | ratio to the trigger-less copy | samples with a lock wait | waiters seen, by lock type | errors |',
    '|---:|---|---:|---:|---:|---|---|',
    ...report.concurrent.map((c) =>
      `| ${c.writers} | ${c.table} | ${n(c.orders_per_second)} | ${
        n(c.orders_per_second / ceiling(c.writers).orders_per_second, 2)
      }x | ${c.lock_wait_samples} of ${c.samples} | ${JSON.stringify(c.waits)} | ${JSON.stringify(c.errors)} |`
    ),
    '',
    '| fold | changes | seconds | changes/s |',
    '|---|---:|---:|---:|',
    `| the generated store | ${report.fold.store.changes} | ${n(report.fold.store.seconds, 2)} | ${
      n(report.fold.store.changes_per_second)
    } |`,
    `| what the concurrent writers appended | ${report.fold.writers.changes} | ${n(report.fold.writers.seconds, 2)} | ${
      n(report.fold.writers.changes_per_second)
    } |`,
    '',
    ...goodsMarkdown(report.goods, n),
  ].join('\n');
}

function goodsMarkdown(goods, n) {
  const [placing, copies] = [false, true].map((c) => goods.concurrent.find((x) => x.copies === c));
  const flash = goods.flash_sale;
  return [
    '## Orders with goods',
    '',
    '| one writer, an order of 3 lines a transaction | p50 ms | p99 ms |',
    '|---|---:|---:|',
    `| public.place_order (reserves) | ${n(goods.single.place_order.p50, 2)} | ${n(goods.single.place_order.p99, 2)} |`,
    `| the same order and lines into trigger-less copies | ${n(goods.single.copies.p50, 2)} | ${
      n(goods.single.copies.p99, 2)
    } |`,
    `| ratio | ${n(goods.single.place_order.p50 / goods.single.copies.p50, 2)}x | |`,
    '',
    '| writers | orders of | where | orders/s | ratio to the copies | p50 ms | p99 ms | errors |',
    '|---:|---|---|---:|---:|---:|---:|---|',
    ...goods.concurrent.map((c) =>
      `| ${c.writers} | 3 lines, different products | ${c.copies ? 'trigger-less copies' : 'public.place_order'} | ${
        n(c.orders_per_second)
      } | ${n(c.orders_per_second / copies.orders_per_second, 2)}x | ${n(c.p50, 2)} | ${n(c.p99, 2)} | ${
        JSON.stringify(c.errors)
      } |`
    ),
    `| 32 | 1 unit, a product each | public.place_order | ${n(goods.spread.orders_per_second)} | | ${
      n(goods.spread.p50, 2)
    } | ${n(goods.spread.p99, 2)} | ${JSON.stringify(goods.spread.errors)} |`,
    `| 32 | 1 unit, one product (flash sale) | public.place_order | ${n(flash.orders_per_second)} | ${
      n(flash.orders_per_second / goods.spread.orders_per_second, 2)
    }x of a product each | ${n(flash.p50, 2)} | ${n(flash.p99, 2)} | ${JSON.stringify(flash.errors)} |`,
    '',
    `Flash sale: ${flash.placed} placed of ${flash.units} units, then ${
      flash.errors.INSUFFICIENT_STOCK ?? 0
    } refused (INSUFFICIENT_STOCK); ` +
    `the product after: ${flash.stock.on_hand} on hand, ${flash.stock.reserved} reserved, ${flash.stock.available} available. ` +
    `8 writers placing at ${
      n(placing.orders_per_second / copies.orders_per_second, 2)
    }x the copies. Deadlocks in the run: ${goods.deadlocks}.`,
    '',
    `| shipping an order of 3 lines (public.update_order_status) | p50 ms | p99 ms |`,
    '|---|---:|---:|',
    `| draws the lots, releases the reservation | ${n(goods.shipping.p50, 2)} | ${n(goods.shipping.p99, 2)} |`,
    '',
  ];
}
