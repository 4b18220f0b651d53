// node bench/placements-vs.mjs --base DIR [--rounds N] [--duration S] [--orders N] [--first this|base]
//
// bench:writes' "32 writers placing one unit, a product each", this checkout's schema against another's: DIR is
// a checkout of the other commit (`git worktree add /tmp/base <commit>`, with this node_modules linked into it).
// Each schema gets a database of its own in one embedded PostgreSQL, the same store generated in both (--orders
// over a tenth as many customers, as bench:writes generates it), and the rounds run in ABBA order, so both sides
// see the same machine at the same moments. Which database is created first moved the figures as much as a
// change did (docs/performance.md, issue 45): compare a run with `--first base` and one with `--first this`.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { freePort, prepareDatabase, startEmbeddedPostgres } from '../scripts/lib/stack.mjs';
import { concurrentPlacements, generatedOrders, percentiles, stockedProducts } from './order-goods.mjs';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    duration: { type: 'string', default: '8' },
    orders: { type: 'string', default: '100000' },
    first: { type: 'string', default: 'base' },
  },
});
if (!values.base) throw new Error('--base DIR: a checkout of the commit to compare with');
const WRITERS = 32;
const orders = Number(values.orders);
const baseStack = await import(pathToFileURL(path.resolve(values.base, 'scripts/lib/stack.mjs')).href);
const sides = { base: baseStack.prepareDatabase, this: prepareDatabase };
const created = values.first === 'this' ? ['this', 'base'] : ['base', 'this'];

const dir = await mkdtemp(path.join(tmpdir(), 'placements-vs-'));
await chmod(dir, 0o755);
const cluster = await startEmbeddedPostgres({ dataDir: path.join(dir, 'data'), port: await freePort() });
const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
const stores = {};
try {
  for (const side of created) {
    await admin.unsafe(`create database ${side}`);
    const url = cluster.url.replace(/\/postgres$/, `/${side}`);
    await sides[side](url, { seed: false });
    stores[side] = { url, ...(await generateStore(url)) };
  }
  const results = { base: [], this: [] };
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const side of round % 2 ? ['this', 'base'] : ['base', 'this']) {
      const { url, customers, products } = stores[side];
      const run = await concurrentPlacements(url, {
        customers,
        writers: WRITERS,
        durationMs: Number(values.duration) * 1000,
        copies: false,
        linesFor: (w) => [{ product_id: products[w], quantity: 1, unit_price: 99 }],
      });
      results[side].push(Math.round(run.orders_per_second));
      process.stderr.write(`${side}: ${Math.round(run.orders_per_second)} orders/s ${JSON.stringify(run.errors)}\n`);
    }
  }
  const median = (runs) => percentiles(runs).p50;
  console.log(JSON.stringify({ created, orders_per_second: results, median: { base: median(results.base), this: median(results.this) } }));
} finally {
  await admin.end();
  await cluster.stop();
  await rm(dir, { recursive: true, force: true });
}

/** bench:writes' store, folded, with 32 products of a million units and 32 new customers for the writers. */
async function generateStore(url) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await generatedOrders(sql, orders);
    await sql`select private.fold_order_changes(true, ${2 ** 31 - 1})`;
    const products = await stockedProducts(sql, WRITERS, 1_000_000);
    const customers = (await sql`
      insert into public.customers (email, name)
      select gen_random_uuid() || '@bench.test', 'Writer' from generate_series(1, ${WRITERS}) returning id`)
      .map((r) => r.id);
    await sql`vacuum analyze`;
    return { products, customers };
  } finally {
    await sql.end();
  }
}
