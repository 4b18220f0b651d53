// node bench/health-by-minute.mjs [--stores bench-100k,bench,bench-10m] [--hour ISO] [--runs 7]
//
// A business health report's time as a function of how far into the hour it is asked. A report reads the
// kept figure changes up to a 10-minute boundary and the orders between that boundary and its moment (the
// shorter side, docs/business-health.md), so its cost grows with the orders placed in five minutes. The
// report as of minutes 0, 5, …, 55 of `--hour` (default: the current hour), each
// period, median of `--runs`, called in SQL as health.business_health calls it, on each of the stores the
// scale run generated (`npm run bench -- --scale [--ten-million]`; a store not generated is skipped).
// Writes bench/results/health-by-minute.{json,md}.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { freePort, prepareDatabase, ROOT, startEmbeddedPostgres } from '../scripts/lib/stack.mjs';

const { values } = parseArgs({
  options: { stores: { type: 'string' }, hour: { type: 'string' }, runs: { type: 'string' } },
});
const STORES = (values.stores ?? 'bench-100k,bench,bench-10m').split(',');
const RUNS = Number(values.runs ?? 7);
const HOUR = new Date(values.hour ?? new Date().toISOString().slice(0, 13) + ':00:00Z');
const MINUTES = [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55];
const PERIODS = ['7d', '30d', '90d'];
const RESULTS = path.join(ROOT, 'bench/results/health-by-minute');
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

const stores = [];
for (const store of STORES) {
  const dataDir = path.join(ROOT, '.data', store, 'postgres');
  if (!existsSync(dataDir)) {
    process.stderr.write(`Skipping .data/${store}: not generated\n`);
    continue;
  }
  const database = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  try {
    await prepareDatabase(database.url);
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      const [{ orders }] = await sql`select count(*)::int as orders from public.orders`;
      const rows = [];
      for (const minute of MINUTES) {
        const row = { minute };
        for (const period of PERIODS) {
          const times = [];
          for (let run = 0; run < RUNS; run++) {
            const started = performance.now();
            await sql`select private.health_report(${period}, true, true, true, ${HOUR}::timestamptz + make_interval(mins => ${minute}))`;
            times.push(performance.now() - started);
          }
          row[period] = Number(median(times).toFixed(1));
        }
        rows.push(row);
        process.stderr.write(
          `${store} (${orders} orders), minute ${minute}: ${PERIODS.map((p) => `${p} ${row[p]} ms`).join(', ')}\n`,
        );
      }
      stores.push({ store, orders, rows });
    } finally {
      await sql.end();
    }
  } finally {
    await database.stop();
  }
}

const out = { generated_at: new Date().toISOString(), hour: HOUR.toISOString(), runs: RUNS, stores };
await writeFile(`${RESULTS}.json`, `${JSON.stringify(out, null, 2)}\n`);
const text = [
  `# Business health by minute of the hour (${out.generated_at})`,
  '',
  `The report as of minutes 0–55 of ${out.hour}, with trends, insights and the system dimension, median ms of ${RUNS}.`,
  '',
  `| minute | ${
    stores.flatMap((s) => PERIODS.map((p) => `${s.orders.toLocaleString('en')} orders ${p}`)).join(' | ')
  } |`,
  `|---:|${stores.flatMap(() => PERIODS.map(() => '---:')).join('|')}|`,
  ...MINUTES.map((minute, i) =>
    `| ${minute} | ${stores.flatMap((s) => PERIODS.map((p) => s.rows[i][p].toFixed(1))).join(' | ')} |`
  ),
  '',
].join('\n');
await writeFile(`${RESULTS}.md`, text);
console.log(text);
