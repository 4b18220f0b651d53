/**
 * The database ceiling: a scenario's own SQL, run through the functions' own database layer
 * (`_shared/db.ts`: same driver, same pool size, same per-request transaction with role and claims),
 * by N concurrent loops for DURATION seconds (or, with AMOUNT, for that many calls), with no HTTP in
 * between. One process serves a whole run: each line on stdin, `{"scenario": name, "connections": [32, 1]}`,
 * is measured at each concurrency in turn and answered by one line on stdout, a JSON array of
 * {requests_per_sec, p50, p99, errors}: Deno starts once, not once per scenario.
 */
import { createDatabase } from '../supabase/functions/_shared/db.ts';
import { catalogueArea } from '../supabase/functions/_shared/errors.ts';
import { databaseWork } from './db-work.ts';

const env = (name: string) => {
  const value = Deno.env.get(name);
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const duration = Number(env('DURATION')) * 1000;
const db = createDatabase(env('SUPABASE_DB_URL'), { max: Number(env('DB_POOL_SIZE')) });
const context = JSON.parse(env('BENCH_CONTEXT'));
const amount = Number(Deno.env.get('AMOUNT') ?? 0);

async function measure(work: (typeof databaseWork)[string], connections: number) {
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

for await (const line of Deno.stdin.readable.pipeThrough(new TextDecoderStream()).pipeThrough(lines())) {
  const { scenario, connections } = JSON.parse(line) as { scenario: string; connections: number[] };
  const work = databaseWork[scenario];
  if (!work) throw new Error(`no database work for scenario ${scenario}`);
  const results = [];
  for (const n of connections) results.push(await measure(work, n));
  console.log(JSON.stringify(results));
}
await db.end();

/** Splits a text stream into its lines. */
function lines() {
  let rest = '';
  return new TransformStream<string, string>({
    transform(chunk, controller) {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop()!;
      parts.filter(Boolean).forEach((part) => controller.enqueue(part));
    },
    flush(controller) {
      if (rest) controller.enqueue(rest);
    },
  });
}
