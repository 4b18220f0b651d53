// npm run seed:demo -- --orders N [--seed S] [--customers C] [--tickets T] [--products P] [--as-of YYYY-MM-DD]
//                       [--append]
//
// A deterministic demo store for business health: customers (named as Taiwan's people are,
// scripts/lib/demo-names.mjs), a year of orders with their lines (2 or 3 products each), support tickets, and
// products whose lots received what the orders shipped and still hold, with a ledger of the sales, generated
// in PostgreSQL by set-based inserts (generate_series and a seeded hash), in batches so a progress bar can
// follow. The same seed and as-of day give the same rows; ids derive from the seed, so
// running it again adds nothing. Writes into DATABASE_URL, or the database of the local `npm start`
// (port DB_PORT, 54322 unless set), and says which before it writes. A store that already has orders of its
// own (beyond the built-in seed's demo shoppers, which a fresh install has) is left alone unless --append asks
// to add to it: a run meant for another stack must not fill this one.
import postgres from 'postgres';
import { GIVEN_NAME_CHARACTERS, SURNAMES } from './lib/demo-names.mjs';

const DEFAULT_URL = `postgresql://postgres:postgres@127.0.0.1:${process.env.DB_PORT ?? 54322}/postgres`;
const BATCH = 50_000;
const OPTIONS = ['orders', 'seed', 'customers', 'tickets', 'products', 'as-of'];
const FLAGS = ['append'];
const USAGE = 'usage: npm run seed:demo -- --orders N [--seed S] [--customers C] [--tickets T] [--products P] ' +
  '[--as-of YYYY-MM-DD] [--append]';

function parseArgs(argv) {
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!match) throw new Error(`unexpected argument ${argv[i]}\n${USAGE}`);
    if (FLAGS.includes(match[1]) && match[2] === undefined) {
      options[match[1]] = true;
      continue;
    }
    if (!OPTIONS.includes(match[1])) throw new Error(`unknown option --${match[1]}\n${USAGE}`);
    const value = match[2] ?? argv[++i];
    if (value === undefined) throw new Error(`--${match[1]} needs a value\n${USAGE}`);
    options[match[1]] = value;
  }
  const integer = (name, fallback) => {
    const value = options[name] ?? fallback;
    if (!/^\d+$/.test(String(value))) throw new Error(`--${name} must be a whole number`);
    return Number(value);
  };
  if (options.orders === undefined) throw new Error(`--orders is required\n${USAGE}`);
  const orders = integer('orders');
  // Unset: the store's today, which only the database knows (seedDemo asks it).
  const asOf = options['as-of'] ?? null;
  if (asOf !== null && !/^\d{4}-\d{2}-\d{2}$/.test(asOf)) throw new Error('--as-of must be YYYY-MM-DD');
  return {
    orders,
    seed: integer('seed', 1),
    customers: integer('customers', Math.max(1, Math.ceil(orders / 8))),
    tickets: integer('tickets', Math.ceil(orders / 20)),
    products: integer('products', Math.max(20, Math.ceil(orders / 2000))),
    asOf,
    append: options.append === true,
  };
}

/**
 * The rows of the tables the generator writes, to say what a run added, and the store's own orders: those
 * of customers other than the built-in seed's forty demo shoppers (`shopper<n>@example.com`,
 * supabase/seeds/03-campaigns.sql), which every fresh install has and which are no one's real data.
 */
async function rowCounts(url) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [counts] = await sql`
      select (select count(*) from public.customers)::int as customers, (select count(*) from public.orders)::int as orders,
             (select count(*) from public.support_tickets)::int as tickets,
             (select count(*) from public.products)::int as products`;
    const [{ own }] = await sql`
      select count(*)::int as own from public.orders o join public.customers c on c.id = o.customer_id
      where c.email !~ '^shopper[0-9]+@example[.]com$'`;
    return { counts, ownOrders: own };
  } finally {
    await sql.end();
  }
}

function showProgress(label, done, total) {
  const width = 30;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
  process.stderr.write(`\r${label.padEnd(10)} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(percent).padStart(3)}% ${done}/${total}`);
  if (done >= total) process.stderr.write('\n');
}

/** Runs `insert(from, to)` over [1, total] in batches, with a progress bar. */
async function inBatches(label, total, insert, quiet) {
  const progress = quiet ? () => {} : showProgress;
  progress(label, 0, total);
  for (let from = 1; from <= total; from += BATCH) {
    const to = Math.min(total, from + BATCH - 1);
    await insert(from, to);
    progress(label, to, total);
  }
}

export async function seedDemo(url, { orders, seed, customers, tickets, products, asOf }, { quiet = false } = {}) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // A uniform number in [0, 1) from the seed, the row and a purpose: the same inputs, the same number.
    await sql`
      create or replace function pg_temp.demo_random(seed integer, n bigint, salt text) returns double precision
      language sql immutable as $$
        select (('x' || substr(md5(seed || ':' || n || ':' || salt), 1, 8))::bit(32)::bigint)::double precision / 4294967296
      $$`;
    await sql`
      create or replace function pg_temp.demo_uuid(seed integer, kind text, n bigint) returns uuid
      language sql immutable as $$ select md5('demo:' || seed || ':' || kind || ':' || n)::uuid $$`;
    // A customer's name, drawn as `demoCustomerName` draws it (scripts/lib/demo-names.mjs): the tables are its.
    await sql`
      create or replace function pg_temp.demo_name(seed integer, n bigint, surnames text[], up_to float8[], given text[])
      returns text language sql immutable as $$
        select (select s.surname from unnest(surnames, up_to) s(surname, up_to)
                where s.up_to > 1000 * pg_temp.demo_random(seed, n, 'surname') order by s.up_to limit 1)
               || given[1 + floor(pg_temp.demo_random(seed, n, 'given1') * cardinality(given))::int]
               || given[1 + floor(pg_temp.demo_random(seed, n, 'given2') * cardinality(given))::int]
      $$`;
    // A product's price: NT$100 to NT$2,000, most of them low.
    await sql`
      create or replace function pg_temp.demo_price(seed integer, n bigint) returns numeric
      language sql immutable as $$ select round((100 + power(pg_temp.demo_random(seed, n, 'price'), 2) * 1900)::numeric, 0) $$`;
    // The as-of day is a store day: the data ends at its midnight in the store's zone.
    const [{ anchor }] = asOf == null
      ? await sql`select private.store_day_start(private.store_today()) as anchor`
      : await sql`select private.store_day_start(${asOf}::date) as anchor`;

    await inBatches('customers', customers, (from, to) => sql`
      insert into public.customers (id, email, name, created_at)
      select pg_temp.demo_uuid(${seed}, 'customer', i),
             'demo-' || ${seed} || '-' || i || '@demo.example',
             pg_temp.demo_name(${seed}, i, ${SURNAMES.map(([surname]) => surname)}::text[],
                               ${SURNAMES.map(([, upTo]) => upTo)}::float8[], ${GIVEN_NAME_CHARACTERS}::text[]),
             ${anchor}::timestamptz - interval '400 days' * pg_temp.demo_random(${seed}, i, 'joined')
      from generate_series(${from}::bigint, ${to}::bigint) i
      on conflict do nothing`, quiet);

    // Products first, so the orders' lines can name them: a price each, and the share of a sale its goods
    // cost. Their lots and stock follow the orders (below).
    await inBatches('products', products, (from, to) => sql`
      insert into public.products (id, sku, name, is_active, created_at)
      select pg_temp.demo_uuid(${seed}, 'product', i), 'DEMO-' || ${seed} || '-' || i, 'Demo product ' || i, true,
             ${anchor}::timestamptz - interval '400 days'
      from generate_series(${from}::bigint, ${to}::bigint) i
      on conflict do nothing`, quiet);

    // Orders: most customers buy rarely, a few often (the power skews the pick); order times spread over
    // a year with more recent weeks busier; deliveries take 1–5 days against a 3-day promise. Each order has
    // 2 or 3 lines (popular products more often, 1 to 3 units each at the product's price); its total and
    // item count are its lines'. Folded once afterwards, so each customer's year is walked once, not once per
    // insert batch that has one of their orders.
    await inBatches('orders', orders, (from, to) => sql.begin(async (tx) => {
      await tx`
        create temporary table demo_lines on commit drop as
        select i, l as line_number, pg_temp.demo_uuid(${seed}, 'line', i * 4 + l) as id,
               pg_temp.demo_uuid(${seed}, 'product', product_n) as product_id, quantity,
               pg_temp.demo_price(${seed}, product_n) as unit_price
        from (
          select i, l,
                 1 + floor(power(pg_temp.demo_random(${seed}, i * 4 + l, 'line product'), 1.5) * ${products})::bigint as product_n,
                 1 + floor(power(pg_temp.demo_random(${seed}, i * 4 + l, 'line quantity'), 3) * 3)::integer as quantity
          from generate_series(${from}::bigint, ${to}::bigint) i, generate_series(1, 3) l
          where l <= 2 or pg_temp.demo_random(${seed}, i, 'third line') < 0.5
          offset 0
        ) line`;
      await tx`create index on demo_lines (i)`;
      await tx`analyze demo_lines`;
      await tx`
        insert into public.orders (id, customer_id, status, total_amount, item_count, ordered_at, promised_at,
                                   shipped_at, delivered_at, completed_at, cancelled_at, paid_at, refunded_at)
        select id, customer_id,
               case when cancelled then 'cancelled'
                    when refunded then 'refunded'
                    when completed_at is not null then 'completed'
                    when delivered_at is not null then 'delivered'
                    when shipped_at is not null then 'shipped'
                    else 'paid' end,
               amount, items, ordered_at, ordered_at + interval '3 days',
               shipped_at, delivered_at, completed_at,
               case when cancelled then ordered_at + interval '2 hours' end,
               -- Paid at checkout, a few minutes after the order; a refund a week after it.
               case when not cancelled then least(ordered_at + interval '4 minutes', greatest(ordered_at, ${anchor}::timestamptz)) end,
               case when refunded then least(ordered_at + interval '7 days', greatest(ordered_at, ${anchor}::timestamptz)) end
        from (
          select *,
                 case when not cancelled and shipped_at is not null and ordered_at + delivery_days * interval '1 day' < ${anchor}::timestamptz
                      then ordered_at + delivery_days * interval '1 day' end as delivered_at,
                 case when not cancelled and shipped_at is not null and ordered_at + (delivery_days + 2) * interval '1 day' < ${anchor}::timestamptz
                      and completes then ordered_at + (delivery_days + 2) * interval '1 day' end as completed_at
          from (
            select *,
                   case when not cancelled and ordered_at + interval '1 day' < ${anchor}::timestamptz
                        then ordered_at + interval '1 day' end as shipped_at
            from (
              select pg_temp.demo_uuid(${seed}, 'order', i) as id,
                     pg_temp.demo_uuid(${seed}, 'customer', 1 + floor(power(pg_temp.demo_random(${seed}, i, 'customer'), 2) * ${customers})::bigint) as customer_id,
                     d.amount, d.items,
                     ${anchor}::timestamptz - interval '365 days' * power(pg_temp.demo_random(${seed}, i, 'when'), 1.3) as ordered_at,
                     pg_temp.demo_random(${seed}, i, 'cancel') < 0.05 as cancelled,
                     pg_temp.demo_random(${seed}, i, 'cancel') between 0.05 and 0.08 as refunded,
                     pg_temp.demo_random(${seed}, i, 'complete') < 0.95 as completes,
                     1 + floor(power(pg_temp.demo_random(${seed}, i, 'delivery'), 1.5) * 5)::integer as delivery_days
              -- A fence: flattened, each use of a column above would hash its inputs again (3.7× slower).
              from generate_series(${from}::bigint, ${to}::bigint) i
              join (select i, sum(quantity * unit_price) as amount, sum(quantity)::integer as items
                    from demo_lines group by i) d using (i)
              offset 0
            ) base
          ) shipped
        ) delivered
        on conflict do nothing`;
      // History, not checkouts: the lines of orders shipped long ago reserve nothing (the stock below holds
      // what the open ones do), so they are written with the ordinary triggers off, as an import is.
      await tx`set local session_replication_role = replica`;
      await tx`
        insert into public.order_lines (id, order_id, line_number, product_id, quantity, unit_price)
        select id, pg_temp.demo_uuid(${seed}, 'order', i), line_number, product_id, quantity, unit_price
        from demo_lines
        on conflict do nothing`;
    }), quiet);
    await sql`select private.fold_order_changes(true)`;

    // Tickets: answered within minutes to a day and a half; most resolved; most resolved ones rated.
    await inBatches('tickets', tickets, (from, to) => sql`
      insert into public.support_tickets (id, customer_id, subject, status, opened_at, first_response_at, resolved_at,
                                          satisfaction_rating)
      select id, customer_id, subject,
             case when resolved_at is null then case when first_response_at is null then 'open' else 'pending' end
                  else 'resolved' end,
             opened_at, first_response_at, resolved_at,
             case when resolved_at is not null and pg_temp.demo_random(${seed}, i, 'rated') < 0.7
                  then 1 + least(4, floor(power(pg_temp.demo_random(${seed}, i, 'rating'), 0.5) * 5))::smallint end
      from (
        select i, id, customer_id, subject, opened_at,
               case when opened_at + response < ${anchor}::timestamptz then opened_at + response end as first_response_at,
               case when resolves and opened_at + response + resolution < ${anchor}::timestamptz
                    then opened_at + response + resolution end as resolved_at
        from (
          select i,
                 pg_temp.demo_uuid(${seed}, 'ticket', i) as id,
                 pg_temp.demo_uuid(${seed}, 'customer', 1 + floor(pg_temp.demo_random(${seed}, i, 'customer') * ${customers})::bigint) as customer_id,
                 (array['Where is my order?', 'Wrong item received', 'Refund request', 'Payment failed', 'Product question'])
                   [1 + floor(pg_temp.demo_random(${seed}, i, 'subject') * 5)::integer] as subject,
                 ${anchor}::timestamptz - interval '365 days' * pg_temp.demo_random(${seed}, i, 'when') as opened_at,
                 interval '36 hours' * power(pg_temp.demo_random(${seed}, i, 'response'), 3) as response,
                 interval '72 hours' * pg_temp.demo_random(${seed}, i, 'resolution') as resolution,
                 pg_temp.demo_random(${seed}, i, 'resolves') < 0.88 as resolves
          from generate_series(${from}::bigint, ${to}::bigint) i offset 0
        ) base
      ) timed
      on conflict do nothing`, quiet);

    // Each product's stock, from what its orders' lines did: one lot received before the first order, of
    // what the shipped lines took, what the open (paid, not yet shipped) ones hold, and what is left free (none
    // for about 8 %); a cost of 40–70 % of the price a unit. The ledger holds the lot's stock_in and one sale
    // per shipped line, in the order they shipped, each line's draw recorded as the order functions record it;
    // refunded orders keep their goods out. A product whose lot exists already was done by an earlier run.
    await inBatches('stock', products, (from, to) => sql.begin(async (tx) => {
      await tx`
        create temporary table demo_lots on commit drop as
        select p.i, p.product_id, pg_temp.demo_uuid(${seed}, 'lot', p.i) as lot_id, p.sold, p.reserved,
               p.sold + p.reserved + p.free as quantity, p.reserved + p.free as available,
               round(pg_temp.demo_price(${seed}, p.i) * (0.4 + 0.3 * pg_temp.demo_random(${seed}, p.i, 'cost'))::numeric, 2) as unit_cost
        from (
          select *,
                 -- A lot holds at least one unit: a product nothing was sold of keeps some.
                 case when sold + reserved > 0 and pg_temp.demo_random(${seed}, i, 'sold out') < 0.08 then 0
                      else 1 + floor(pg_temp.demo_random(${seed}, i, 'left') * 300)::bigint end as free
          from (
          select i, pg_temp.demo_uuid(${seed}, 'product', i) as product_id,
                 coalesce(sum(l.quantity) filter (where o.shipped_at is not null), 0) as sold,
                 coalesce(sum(l.quantity) filter (where o.status in ('pending', 'paid')), 0) as reserved
          from generate_series(${from}::bigint, ${to}::bigint) i
          left join public.order_lines l on l.product_id = pg_temp.demo_uuid(${seed}, 'product', i)
          left join public.orders o on o.id = l.order_id
          group by i
          ) sums
        ) p
        where not exists (select 1 from public.inventory_records r where r.id = pg_temp.demo_uuid(${seed}, 'lot', p.i))`;
      await tx`
        insert into public.inventory_records (id, product_id, quantity, available_quantity, source, received_at,
                                              created_at, created_by_role, unit_cost)
        select lot_id, product_id, quantity, available, 'purchase_order', ${anchor}::timestamptz - interval '400 days',
               ${anchor}::timestamptz - interval '400 days', 'service_role', unit_cost
        from demo_lots`;
      await tx`
        update public.products p set current_stock = l.available, reserved_stock = l.reserved
        from demo_lots l where p.id = l.product_id`;
      await tx`
        insert into public.stock_movements (operation_id, operation, product_id, inventory_record_id, delta, stock_before,
                                            stock_after, record_available_before, record_available_after, source,
                                            operator_role, created_at)
        select pg_temp.demo_uuid(${seed}, 'stock_in', i), 'stock_in', product_id, lot_id, quantity, 0, quantity, 0, quantity,
               'purchase_order', 'service_role', ${anchor}::timestamptz - interval '400 days'
        from demo_lots`;
      await tx`
        with sales as (
          select l.id as line_id, l.order_id, l.quantity, o.shipped_at, d.product_id, d.lot_id, d.unit_cost,
                 d.quantity - sum(l.quantity) over (partition by d.product_id order by o.shipped_at, l.id) as after
          from demo_lots d
          join public.order_lines l on l.product_id = d.product_id
          join public.orders o on o.id = l.order_id
          where o.shipped_at is not null
        ), drawn as (
          insert into public.order_line_lots (order_line_id, inventory_record_id, quantity, unit_cost)
          select line_id, lot_id, quantity, unit_cost from sales
        )
        insert into public.stock_movements (operation_id, operation, product_id, inventory_record_id, delta, stock_before,
                                            stock_after, record_available_before, record_available_after, reference,
                                            operator_role, created_at)
        select md5('demo-sale:' || order_id)::uuid, 'sale', product_id, lot_id, -quantity, after + quantity, after,
               after + quantity, after, order_id::text, 'service_role', shipped_at
        from sales
        order by shipped_at, line_id`;
    }), quiet);

    // What the shipped orders' goods cost, for the figures' margin, as shipping them keeps it.
    await sql`
      insert into private.shipped_order_costs (order_id, ordered_at, total_amount, goods_cost)
      select o.id, o.ordered_at, o.total_amount, sum(d.quantity * d.unit_cost)
      from public.orders o
      join public.order_lines l on l.order_id = o.id
      join public.order_line_lots d on d.order_line_id = l.id
      where o.status <> 'refunded' and o.shipped_at is not null
      group by o.id
      having bool_and(d.unit_cost is not null)
      on conflict do nothing`;

    await sql`analyze public.customers, public.orders, public.order_lines, public.order_line_lots, public.support_tickets,
                      public.products, public.inventory_records, public.stock_movements`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.DATABASE_URL ?? process.env.SUPABASE_DB_URL ?? DEFAULT_URL;
  const { hostname, port, pathname } = new URL(url);
  const target = `${hostname}:${port || 5432}${pathname}`;
  try {
    const options = parseArgs(process.argv.slice(2));
    const started = performance.now();
    const { counts: before, ownOrders } = await rowCounts(url);
    if (ownOrders > 0 && !options.append) {
      throw new Error(
        `The store at ${target} already has ${ownOrders} orders; nothing was written. ` +
          'Add --append to add the demo data to them, or point DATABASE_URL (or DB_PORT) at another database.',
      );
    }
    console.error(`Writing the demo store into ${target}`);
    await seedDemo(url, options);
    const { counts: after } = await rowCounts(url);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const added = Object.entries(after).map(([table, count]) => `${count - before[table]} ${table}`).join(', ');
    const nothing = Object.keys(after).every((table) => after[table] === before[table]);
    console.log(
      nothing
        ? `Nothing to add: the store at ${target} already holds the demo data of seed ${options.seed} as of ` +
          `${options.asOf ?? "the store's today"}.`
        : `Added ${added} (seed ${options.seed}, as of ${options.asOf ?? "the store's today"}) to ${target} in ${seconds} s.`,
    );
  } catch (error) {
    console.error(error.message ?? error);
    process.exit(1);
  }
}
