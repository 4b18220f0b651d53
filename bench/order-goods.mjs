/**
 * The order goods' write path, for bench/order-writes.mjs: placing orders of lines (public.place_order,
 * which reserves them) beside inserting the same order and lines into trigger-less copies, one writer and 8
 * on different products; a flash sale (32 writers, one product, a fixed number of units); and shipping
 * (public.update_order_status, which draws the lots). Every placement runs as the store's job (the service
 * key's claims), one transaction each.
 */
import postgres from 'postgres';

const SERVICE_CLAIMS = JSON.stringify({ role: 'service_role' });

/** A pool whose every connection acts as the service key, as a store job's rpc would. */
export function storeJobPool(url, max) {
  return postgres(url, { max, onnotice: () => {}, connection: { 'request.jwt.claims': SERVICE_CLAIMS } });
}

/** `count` products, each received `units` units in one lot through public.stock_in. */
export async function stockedProducts(sql, count, units) {
  const ids = (await sql`
    insert into public.products (sku, name)
    select 'BENCH-' || gen_random_uuid(), 'Bench product ' || i from generate_series(1, ${count}) i
    returning id`).map((r) => r.id);
  await sql.begin(async (tx) => {
    await tx`select set_config('request.jwt.claims', ${SERVICE_CLAIMS}, true)`;
    for (const id of ids) {
      await tx`select public.stock_in(${id}, ${units}, 'purchase_order', null, null, null, null, null, 40)`;
    }
  });
  return ids;
}

/**
 * bench:writes' store: `orders` orders over a tenth as many new customers, a quarter each paid, completed, shipped
 * and cancelled, spread over the 400 days before now.
 */
export async function generatedOrders(sql, orders) {
  await sql`
    insert into public.customers (email, name)
    select 'c' || i || '@bench.test', 'Customer ' || i from generate_series(1, ${orders / 10}) i`;
  await sql`
    insert into public.orders (customer_id, status, total_amount, ordered_at, promised_at, completed_at, cancelled_at)
    select c.id, (array['paid', 'completed', 'shipped', 'cancelled'])[1 + i % 4], 20 + (i * 37) % 3000, t.at,
           t.at + interval '2 days', case when i % 4 = 1 then t.at + interval '3 days' end,
           case when i % 4 = 3 then t.at + interval '1 hour' end
    from generate_series(1, ${orders}) i
    cross join lateral (select private.now() - make_interval(mins => ((i::bigint * 7919) % (400 * 24 * 60))::int) as at) t
    join (select id, row_number() over (order by id) as n from public.customers) c on c.n = 1 + i % ${orders / 10}`;
}

export async function createGoodsCopies(sql) {
  await sql`create table public.order_lines_without_triggers (like public.order_lines including all)`;
}

const linesOf = (products, first) =>
  [0, 1, 2].map((k) => ({ product_id: products[(first + k) % products.length], quantity: 1, unit_price: 120 }));

/** Places an order through public.place_order, or inserts the same order and lines into the copies. */
function placer(pool, copies) {
  if (!copies) return (customer, lines) => pool`select public.place_order(${customer}, ${pool.json(lines)}, 'paid')`;
  return (customer, lines) =>
    pool.begin(async (tx) => {
      const [{ id }] = await tx`
        insert into public.orders_without_triggers (customer_id, status, total_amount, item_count)
        values (${customer}, 'paid', ${lines.reduce((sum, l) => sum + l.unit_price * l.quantity, 0)}, ${lines.length})
        returning id`;
      await tx`
        insert into public.order_lines_without_triggers (order_id, line_number, product_id, quantity, unit_price)
        select ${id}, l.n, l.product_id, l.quantity, l.unit_price
        from jsonb_to_recordset(${tx.json(lines.map((l, i) => ({ ...l, n: i + 1 })))})
          as l (n smallint, product_id uuid, quantity integer, unit_price numeric)`;
    });
}

/** One writer, one order of 3 lines a transaction: latency percentiles (the first tenth unmeasured). */
export async function singlePlacements(url, { customer, products, count, copies }) {
  const pool = storeJobPool(url, 1);
  const place = placer(pool, copies);
  const times = [];
  try {
    for (let i = 0; i < count; i++) {
      const start = performance.now();
      await place(customer, linesOf(products, i * 3));
      if (i >= count / 10) times.push(performance.now() - start);
    }
  } finally {
    await pool.end();
  }
  return percentiles(times);
}

/**
 * `writers` concurrent writers for `durationMs`, each placing orders of `linesFor(writer, i)`: orders a second,
 * latency percentiles, and the errors by code (a refusal for want of stock is INSUFFICIENT_STOCK).
 */
export async function concurrentPlacements(url, { customers, writers, durationMs, copies, linesFor, until }) {
  const pool = storeJobPool(url, writers);
  const place = placer(pool, copies);
  const errors = {};
  const times = [];
  let placed = 0;
  let lastPlaced = 0;
  const start = performance.now();
  const end = Date.now() + durationMs;
  try {
    await Promise.all(Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; Date.now() < end && !until?.(errors); i++) {
        const began = performance.now();
        try {
          await place(customers[w % customers.length], linesFor(w, i));
          placed++;
          lastPlaced = performance.now();
          times.push(lastPlaced - began);
        } catch (error) {
          const code = error.message === 'INSUFFICIENT_STOCK' ? error.message : error.code ?? error.message;
          errors[code] = (errors[code] ?? 0) + 1;
        }
      }
    }));
  } finally {
    await pool.end();
  }
  // Until the last order placed: a flash sale's writers go on being refused after the units are gone.
  const seconds = ((until ? lastPlaced : performance.now()) - start) / 1000;
  return { placed, seconds, orders_per_second: placed / seconds, ...percentiles(times), errors };
}

/**
 * The flash sale: 32 writers placing 1-unit orders of one product holding `units`, until every writer has
 * been refused once for want of stock. Exactly `units` must be placed; the product's available stock is read
 * after, never below 0.
 */
export async function flashSale(sql, url, { customers, units, writers = 32, durationMs }) {
  const [product] = await stockedProducts(sql, 1, units);
  const result = await concurrentPlacements(url, {
    customers,
    writers,
    durationMs,
    copies: false,
    linesFor: () => [{ product_id: product, quantity: 1, unit_price: 99 }],
    until: (errors) => (errors.INSUFFICIENT_STOCK ?? 0) >= writers,
  });
  const [stock] = await sql`
    select current_stock::int as on_hand, reserved_stock::int as reserved, available_stock::int as available
    from public.products where id = ${product}`;
  return { units, writers, ...result, stock };
}

/** Ships `count` placed orders of 3 lines one after another (public.update_order_status): latency percentiles. */
export async function shipments(url, { customer, products, count }) {
  const pool = storeJobPool(url, 1);
  const times = [];
  try {
    const ids = [];
    for (let i = 0; i < count; i++) {
      const [{ placed }] = await pool`
        select public.place_order(${customer}, ${pool.json(linesOf(products, i * 3))}, 'paid') as placed`;
      ids.push(placed.data.id);
    }
    for (const [i, id] of ids.entries()) {
      const start = performance.now();
      await pool`select public.update_order_status(${id}, 'shipped')`;
      if (i >= count / 10) times.push(performance.now() - start);
    }
  } finally {
    await pool.end();
  }
  return percentiles(times);
}

export function percentiles(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}
