/**
 * The database ceiling: a scenario's own SQL, run through the functions' own database layer
 * (`_shared/db.ts`: same driver, same pool size, same per-request transaction with role and claims),
 * by CONNECTIONS concurrent loops for DURATION seconds (or, with AMOUNT, for that many calls), with no
 * HTTP in between. CONNECTIONS may list several concurrencies (`32,1`), measured one after the other in
 * this one process: starting Deno again for each was half a smoke run's time per scenario.
 * Prints one {requests_per_sec, p50, p99, errors} per concurrency, as a JSON array.
 */
import { createDatabase } from '../supabase/functions/_shared/db.ts';
import { catalogueArea } from '../supabase/functions/_shared/errors.ts';
import { databaseWork } from './db-work.ts';

const env = (name: string) => {
  const value = Deno.env.get(name);
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const scenario = env('SCENARIO');
const concurrencies = env('CONNECTIONS').split(',').map(Number);
const duration = Number(env('DURATION')) * 1000;
const db = createDatabase(env('SUPABASE_DB_URL'), { max: Number(env('DB_POOL_SIZE')) });
const work = databaseWork[scenario];
if (!work) throw new Error(`no database work for scenario ${scenario}`);
const context = JSON.parse(env('BENCH_CONTEXT'));
const amount = Number(Deno.env.get('AMOUNT') ?? 0);

async function measure(connections: number) {
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  const started = performance.now();
  const more = () => amount ? n < amount : performance.now() < started + duration;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (more()) {
        const sent = performance.now();
        const i = n++;
        try {
          await db.asCaller(work.caller, catalogueArea, (tx) => work.run(tx, i, context));
          latencies.push(performance.now() - sent);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] : 0;
  return { requests_per_sec: latencies.length / (elapsed / 1000), p50: at(0.5), p99: at(0.99), errors };
}

const results = [];
for (const connections of concurrencies) results.push(await measure(connections));
await db.end();
console.log(JSON.stringify(results));
