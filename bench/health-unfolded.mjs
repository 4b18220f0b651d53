// node bench/health-unfolded.mjs [--sizes 0,1000,20000] [--runs 3]
//
// A business health report asked right after order writes that no fold has taken yet, so the report folds
// them first (health.business_health, as the edge function calls it): its time for each number of unfolded
// orders, and the fold's part of it. On the 1M-order data set of `npm run bench` (.data/bench; run that
// first), with every write rolled back after its measurement and what it left dead vacuumed. The orders are new paid orders placed over
// the last hour, each of a different customer: the fold rescores every one of them. Writes
// bench/results/health-unfolded.{json,md}.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { freePort, prepareDatabase, ROOT, startEmbeddedPostgres } from '../scripts/lib/stack.mjs';

const { values } = parseArgs({ options: { sizes: { type: 'string' }, runs: { type: 'string' } } });
const SIZES = (values.sizes ?? '0,1000,20000').split(',').map(Number);
const RUNS = Number(values.runs ?? 3);
const RESULTS = path.join(ROOT, 'bench/results/health-unfolded');
class RolledBack extends Error {}

const database = await startEmbeddedPostgres({
  dataDir: path.join(ROOT, '.data', 'bench', 'postgres'),
  port: await freePort(),
});
await prepareDatabase(database.url);
const sql = postgres(database.url, { max: 1, onnotice: () => {} });
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

try {
  const [{ orders }] = await sql`select count(*)::int as orders from public.orders`;
  const results = [];
  for (const size of SIZES) {
    for (const period of ['7d', '30d', '90d']) {
      const report = [];
      const fold = [];
      for (let run = 0; run < RUNS; run++) {
        report.push(await measure(size, period, false));
        fold.push(await measure(size, period, true));
      }
      results.push({ unfolded: size, period, report_ms: median(report), fold_ms: median(fold) });
      process.stderr.write(
        `${size} unfolded, ${period}: report ${median(report).toFixed(1)} ms, fold ${median(fold).toFixed(1)} ms\n`,
      );
    }
  }
  const out = { generated_at: new Date().toISOString(), orders, runs: RUNS, results };
  await writeFile(`${RESULTS}.json`, `${JSON.stringify(out, null, 2)}\n`);
  const text = [
    `# Business health with order writes not yet folded (${out.generated_at})`,
    '',
    `Store: ${orders} orders (.data/bench). Median of ${RUNS} runs; every write rolled back.`,
    '',
    '| unfolded orders | period | report ms (fold included) | fold alone ms |',
    '|---:|---|---:|---:|',
    ...results.map((r) => `| ${r.unfolded} | ${r.period} | ${r.report_ms.toFixed(1)} | ${r.fold_ms.toFixed(1)} |`),
    '',
  ].join('\n');
  await writeFile(`${RESULTS}.md`, text);
  process.stdout.write(text);
} finally {
  await sql.end();
  await database.stop();
}

/** Writes `size` orders, then times the report (or, with `foldOnly`, the fold alone); rolls back. */
async function measure(size, period, foldOnly) {
  let ms = 0;
  await sql.begin(async (tx) => {
    await tx`
      insert into public.orders (customer_id, status, total_amount, ordered_at, promised_at)
      select c.id, 'paid', 100 + c.n % 900, private.now() - make_interval(secs => c.n % 3600), private.now() + interval '2 days'
      from (select id, row_number() over (order by id) as n from public.customers order by id limit ${size}) c`;
    if (!foldOnly) {
      await tx`select set_config('role', 'service_role', true), set_config('request.jwt.claims', '{"role":"service_role"}', true)`;
    }
    const start = performance.now();
    if (foldOnly) await tx`select private.fold_order_changes(true)`;
    else await tx`select health.business_health(${period}, false, true, true)`;
    ms = performance.now() - start;
    throw new RolledBack();
  }).catch((error) => {
    if (!(error instanceof RolledBack)) throw error;
  });
  // What the rolled-back write and fold left dead, cleared before the next measurement, as autovacuum
  // would between folds that commit.
  await sql`vacuum public.orders, private.order_changes, private.customer_scores, private.health_figure_changes,
                   private.order_daily_revenue`;
  return ms;
}
