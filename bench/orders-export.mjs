// node bench/orders-export.mjs: how long the console takes to gather the newest 20,000 orders for a CSV, as it
// does it (GET /orders, 200 a page, the first page then four at a time), on the bench's 1M-order data set
// (.data/bench, made by `npm run bench`). Three runs; the target is 5 s.
import path from 'node:path';
import postgres from 'postgres';
import { freePort, ROOT, startEmbeddedPostgres, startFunctions } from '../scripts/lib/stack.mjs';
import { DEMO_ADMIN_ID, mintToken } from '../scripts/lib/keys.mjs';
const db = await startEmbeddedPostgres({
  dataDir: path.join(ROOT, '.data', 'bench', 'postgres'),
  port: await freePort(),
});
const functions = await startFunctions({ dbUrl: db.url, port: await freePort(), env: { DB_POOL_SIZE: '8' } });
const token = await mintToken({ role: 'authenticated', sub: DEMO_ADMIN_ID });
const sql = postgres(db.url, { max: 1, onnotice: () => {} });
try {
  const [{ from }] =
    await sql`select (select ordered_at from public.orders order by ordered_at desc offset 20000 limit 1) as from`;
  const query = { ordered_from: from.toISOString(), ordered_before: new Date().toISOString() };
  const read = async (page) =>
    (await fetch(
      `${functions.url}/functions/v1/orders?${new URLSearchParams({ ...query, page: String(page), per_page: '200' })}`,
      { headers: { authorization: `Bearer ${token}` } },
    )).json();
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    const first = await read(1);
    let rows = first.data.length;
    for (let next = 2; next <= first.pagination.total_pages; next += 4) {
      const batch = Array.from({ length: Math.min(4, first.pagination.total_pages - next + 1) }, (_, i) => next + i);
      for (const a of await Promise.all(batch.map(read))) rows += a.data.length;
    }
    console.log(
      `run ${run + 1}: ${rows} of ${first.pagination.total_count} orders in ${
        ((performance.now() - started) / 1000).toFixed(2)
      } s`,
    );
  }
} finally {
  await sql.end();
  await functions.stop();
  await db.stop();
}
