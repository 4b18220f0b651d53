// npm run bench [-- --smoke [--database-url URL]] [--duration S] [--connections N] [--scale [--ten-million]] [--only PATTERN] [--front off]
//
// Starts the stack on a generated data set (generated once into .data/bench and reused), then for each
// scenario measures the endpoint over HTTP with autocannon beside its ceilings measured in the same
// run: a bare Deno.serve (HTTP ceiling) and the scenario's own SQL through the same driver and pool with
// no HTTP (database ceiling), and the CPU each request cost Deno and PostgreSQL (/proc deltas of their
// process trees). Writes bench/results/latest.json and latest.md. `--scale` measures instead the
// analytics scenarios (health, attribution, metrics) one request at a time on 100,000 and on 1,000,000
// orders in one run, with the growth factor, into bench/results/scale.{json,md}; `--only` picks among
// them, and one matching none (`--only '^$'`) only generates the stores.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { DEMO_ADMIN_ID, mintToken, SERVICE_ROLE_KEY } from '../scripts/lib/keys.mjs';
import { freePort, prepareDatabase, ROOT, startEmbeddedPostgres, startFunctions } from '../scripts/lib/stack.mjs';
import { seedDemo } from '../scripts/seed-demo.mjs';
import { treeCpuMs } from './cpu.mjs';
import { generateCampaigns, generateInventory, stockInvariantViolations } from './dataset.mjs';
import { scenarios } from './scenarios.mjs';

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    duration: { type: 'string' },
    connections: { type: 'string' },
    scale: { type: 'boolean', default: false },
    // With --scale: also a store ten times the full one (10M orders, 1M customers), generated once into
    // .data/bench-10m (about 35 GB and half an hour).
    'ten-million': { type: 'boolean', default: false },
    // Only the scenarios whose name matches this regular expression (case-insensitive), to compare two
    // states of one scenario without the whole run; the results files are then not written.
    only: { type: 'string' },
    // `off` serves the functions without the local server's TCP front (scripts/lib/tcp-front.ts), so two
    // runs, on and off, show what the front costs each request in Deno CPU.
    front: { type: 'string', default: 'on' },
    // A fixed rate (requests per second over all connections) instead of a closed loop, so two runs that
    // differ in speed still do the same work a second and their CPU per request compares like for like.
    rate: { type: 'string' },
    // Also measure the HTTP ceiling behind Node's HTTP server (bench/node-front.mjs), the comparison in
    // docs/reliability.md; off by default, as it is not part of what the local server runs.
    'node-front': { type: 'boolean', default: false },
    // With --smoke: an empty, migrated database to generate the smoke's store in (the test suite's
    // scratch database) instead of a PostgreSQL of its own. It is written to: never a store's database.
    'database-url': { type: 'string' },
  },
});
if (values['database-url'] && !values.smoke) throw new Error('--database-url is for --smoke runs only');
if (!['on', 'off'].includes(values.front)) throw new Error(`--front is on or off, not ${values.front}`);
const smoke = values.smoke;
const duration = Number(values.duration ?? (smoke ? 1 : 10));
// A smoke run measures a fixed number of requests instead of a time, so a slow scenario on a loaded
// machine still completes some rather than reporting nothing.
const SMOKE_REQUESTS = 12;
const connections = Number(values.connections ?? (smoke ? 4 : 32));
const rate = values.rate === undefined ? undefined : Number(values.rate);
// The functions' default pool (`_shared/db.ts`), for the endpoint and its database ceiling alike.
const POOL_SIZE = 8;
const FULL_DATASET = {
  orders: 1_000_000,
  customers: 100_000,
  tickets: 50_000,
  seed: 7,
  products: 10_000,
  lotsPerProduct: 3,
  campaigns: 100_000,
  activeToday: 1_000,
  // The demo generator's orders carry 2 or 3 lines and its products the stock they explain (issue 41): a
  // store generated before that is generated again.
  orderLines: '2-3',
  // Its customers carry Taiwanese names (scripts/lib/demo-names.mjs), which the surname search reads: a store
  // of "Demo customer" names is generated again.
  customerNames: 'Taiwan',
};
const DATASET = smoke
  ? {
    // The least that gives every scenario rows to read: a delivery of 50 products, a page of campaigns.
    orders: 600,
    customers: 100,
    tickets: 50,
    seed: 7,
    products: 100,
    lotsPerProduct: 3,
    campaigns: 500,
    activeToday: 50,
  }
  : FULL_DATASET;
// The scale run's smaller store: a tenth of the orders, customers and tickets; the same catalogue of
// products and campaigns, so only the order history grows between the two.
const SCALE_DATASETS = [
  {
    name: '100k orders',
    dir: 'bench-100k',
    dataset: { ...FULL_DATASET, orders: 100_000, customers: 10_000, tickets: 5_000 },
  },
  { name: '1M orders', dir: 'bench', dataset: FULL_DATASET },
  ...(values['ten-million']
    ? [{
      name: '10M orders',
      dir: 'bench-10m',
      dataset: { ...FULL_DATASET, orders: 10_000_000, customers: 1_000_000, tickets: 500_000 },
    }]
    : []),
];
const SCALE_SCENARIOS = /^(business health|attribution|campaign metrics)/;
const DENO = path.join(ROOT, 'node_modules', '.bin', 'deno');

const log = (message) => process.stderr.write(`${message}\n`);

// While a store is generated, and only then: a bulk load of millions of rows over random keys wants its
// indexes in memory and no checkpoint in the middle, or it takes hours at 10M orders. None of
// these changes what a read does, and the store is measured after a restart without them; a crash while
// generating leaves no marker, so the next run generates again.
const GENERATION_SETTINGS = {
  shared_buffers: '4GB',
  maintenance_work_mem: '1GB',
  max_wal_size: '32GB',
  checkpoint_timeout: '1h',
  synchronous_commit: 'off',
  full_page_writes: 'off',
};

async function openDatabase(dir = 'bench', settings = {}) {
  if (values['database-url']) return { url: values['database-url'], pid: undefined, stop: async () => {} };
  if (smoke) {
    const dir = await mkdtemp(path.join(tmpdir(), 'store-bench-'));
    await chmod(dir, 0o755);
    const database = await startEmbeddedPostgres({
      dataDir: path.join(dir, 'data'),
      port: await freePort(),
      tuneForTests: true,
    });
    return { ...database, stop: async () => (await database.stop(), await rm(dir, { recursive: true, force: true })) };
  }
  return startEmbeddedPostgres({
    dataDir: path.join(ROOT, '.data', dir, 'postgres'),
    port: await freePort(),
    settings,
  });
}

const datasetMarker = (dir) => path.join(ROOT, '.data', dir, 'dataset.json');

async function isGenerated(dataset, dir) {
  const marker = datasetMarker(dir);
  return !smoke && existsSync(marker) && (await readFile(marker, 'utf8')) === JSON.stringify(dataset);
}

/** Generates the data set unless this database already holds the same one. */
async function ensureDataset(url, dataset = DATASET, dir = 'bench') {
  const marker = datasetMarker(dir);
  const wanted = JSON.stringify(dataset);
  if (await isGenerated(dataset, dir)) {
    log(`Reusing the generated data set in .data/${dir}`);
    return;
  }
  log(`Generating the data set: ${wanted}`);
  await seedDemo(url, dataset, { quiet: smoke });
  log('Products and lots…');
  await generateInventory(url, dataset);
  log('Campaigns…');
  await generateCampaigns(url, { total: dataset.campaigns, activeToday: dataset.activeToday });
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await sql`vacuum analyze`;
  await sql.end();
  if (!smoke) {
    await mkdir(path.dirname(marker), { recursive: true });
    await writeFile(marker, wanted);
  }
}

async function benchContext(url) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const hasProducts = (await sql`select to_regclass('public.products') is not null as ok`)[0].ok;
    const productIds = hasProducts
      ? (await sql`select id from public.products where sku like 'BENCH-%' order by sku limit 200`).map((r) => r.id)
      : [];
    const campaignIds = (
      await sql`select id from public.campaigns where description = 'Generated for the benchmarks' and status = 'active'
                order by id limit 200`
    ).map((r) => r.id);
    // The store's today, as attribution counts days.
    const [{ today }] = await sql`select private.store_today()::text as today`;
    // The orders screen's presets, store midnights as the console sends them.
    const [midnights] = await sql`
      select private.store_day_start(private.store_today() - 1) as yesterday, private.store_day_start(private.store_today()) as today,
             private.store_day_start(private.store_today() - 6) as week, private.store_day_start(date_trunc('month', private.store_today())::date) as month,
             private.store_day_start(private.store_today() + 1) as tomorrow`;
    const iso = (key) => midnights[key].toISOString();
    const orderWindows = {
      month: { ordered_from: iso('month'), ordered_before: iso('tomorrow') },
      last7: { ordered_from: iso('week'), ordered_before: iso('tomorrow') },
      yesterday: { ordered_from: iso('yesterday'), ordered_before: iso('today') },
    };
    return { productIds, campaignIds, today, orderWindows };
  } finally {
    await sql.end();
  }
}

/** Waits until no other session is running a statement. */
async function settle(url) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    for (;;) {
      const [{ busy }] = await sql`
        select count(*)::int as busy from pg_stat_activity
        where state = 'active' and backend_type = 'client backend' and pid <> pg_backend_pid()`;
      if (busy === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await sql.end();
  }
}

function runAutocannon(url, requests, concurrency = connections) {
  return new Promise((resolve, reject) => {
    autocannon(
      // A generous timeout: a slow scenario should report its latency, not a wall of timeouts.
      // A smoke run's dozen requests end as soon as autocannon next looks (every 100 ms, not every second).
      {
        url,
        connections: concurrency,
        requests,
        timeout: 60,
        ...(smoke ? { amount: SMOKE_REQUESTS, sampleInt: 100 } : { duration }),
        ...(rate ? { overallRate: rate } : {}),
      },
      (error, result) => (error ? reject(error) : resolve(summarise(result, concurrency))),
    );
  });
}

const summarise = (result, concurrency) => ({
  requests: result.requests.total,
  // autocannon rounds a fixed-amount run up to whole seconds; for a closed loop, throughput is also
  // concurrency over mean latency (Little's law), which holds for a dozen requests too.
  requests_per_sec: smoke ? (concurrency * 1000) / result.latency.mean : result.requests.total / result.duration,
  p50: result.latency.p50,
  p99: result.latency.p99,
  non_2xx: result.non2xx + result.errors,
});

/**
 * bench/db-ceiling.ts, started once: `measure(scenario, concurrencies)` hands it a scenario and settles with
 * its line of results; `close()` ends it.
 */
function databaseCeilingProcess(env) {
  const child = spawn(DENO, ['run', '--quiet', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', 'bench/db-ceiling.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting = [];
  const failed = new Promise((_, reject) => {
    child.on('error', reject);
    child.on('close', (code) => reject(new Error(`bench/db-ceiling.ts exited (${code})`)));
  });
  failed.catch(() => {});
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.(JSON.parse(line)));
  return {
    measure(scenario, connections) {
      const answer = new Promise((resolve) => waiting.push(resolve));
      child.stdin.write(`${JSON.stringify({ scenario, connections })}\n`);
      return Promise.race([answer, failed]);
    },
    close() {
      child.stdin.end();
      return new Promise((resolve) => (child.exitCode === null ? child.once('close', resolve) : resolve()));
    },
  };
}

/**
 * The HTTP ceiling: bare, behind the TCP front (`behindFront: true`), or behind Node's HTTP server
 * (`behindFront: 'node'`, bench/node-front.mjs), with the CPU each request cost Deno (and Node).
 */
async function httpCeiling({ behindFront = false } = {}) {
  const port = await freePort();
  const folder = behindFront === 'node' ? await mkdtemp(path.join(tmpdir(), 'node-front-')) : undefined;
  const upstream = folder && path.join(folder, 'http.sock');
  const env = { ...process.env, PORT: String(port) };
  const child = spawn(DENO, [
    'run',
    '--quiet',
    '--allow-net',
    '--allow-env',
    '--allow-read',
    `--allow-write=${tmpdir()}`,
    'bench/http-ceiling.ts',
  ], {
    cwd: ROOT,
    env: {
      ...env,
      ...(behindFront === 'node'
        ? { BEHIND_FRONT: 'node', UPSTREAM: upstream }
        : behindFront
        ? { BEHIND_FRONT: '1' }
        : {}),
    },
    stdio: 'ignore',
  });
  let front;
  try {
    if (upstream) {
      for (let i = 0; i < 100 && !existsSync(upstream); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      front = spawn(process.execPath, ['bench/node-front.mjs'], {
        cwd: ROOT,
        env: { ...env, UPSTREAM: upstream },
        stdio: 'ignore',
      });
    }
    for (let i = 0; i < 100; i++) {
      try {
        await fetch(`http://127.0.0.1:${port}/`);
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    // The CPU the ceiling's Deno (and Node's front) spent per request: behind a front less bare is what
    // the front costs.
    const cpu = () => ({ deno: treeCpuMs(child.pid), node: front ? treeCpuMs(front.pid) : 0 });
    const before = cpu();
    const result = await runAutocannon(`http://127.0.0.1:${port}`, [{ method: 'GET', path: '/' }]);
    const after = cpu();
    const per = (
      name,
    ) => (before[name] === undefined || !result.requests ? null : (after[name] - before[name]) / result.requests);
    return { ...result, cpu_ms_per_request: front ? { deno: per('deno'), node: per('node') } : { deno: per('deno') } };
  } finally {
    for (const proc of [front, child].filter(Boolean)) {
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill();
      await exited;
    }
    if (folder) await rm(folder, { recursive: true, force: true });
  }
}

/** Measures `fn` and the CPU it cost the functions server and PostgreSQL, per request. */
async function withCpu(stack, fn) {
  const before = { deno: treeCpuMs(stack.functions.pid), postgres: treeCpuMs(stack.database.pid) };
  const result = await fn();
  const after = { deno: treeCpuMs(stack.functions.pid), postgres: treeCpuMs(stack.database.pid) };
  const perRequest = (name) =>
    before[name] === undefined || !result.requests ? null : (after[name] - before[name]) / result.requests;
  return { ...result, cpu_ms_per_request: { deno: perRequest('deno'), postgres: perRequest('postgres') } };
}

/** The database (generated once, reused), the functions server, tokens and the scenarios' context. */
async function openStack(dataset = DATASET, dir = 'bench') {
  if (!smoke && !(await isGenerated(dataset, dir))) {
    // A store generated for another data set (or half-generated) would be added to, not replaced: the
    // generator skips the rows it finds, and campaigns would be made twice. It is the bench's own: start over.
    const folder = path.join(ROOT, '.data', dir, 'postgres');
    if (existsSync(folder)) {
      log(`The store in .data/${dir} is not the data set asked for: generating it again from empty.`);
      await rm(folder, { recursive: true, force: true });
    }
    const generating = await openDatabase(dir, GENERATION_SETTINGS);
    try {
      log(`Preparing the database (${dir}) to generate the data set…`);
      await prepareDatabase(generating.url);
      await ensureDataset(generating.url, dataset, dir);
    } finally {
      await generating.stop();
    }
  }
  const database = await openDatabase(dir);
  try {
    log(`Preparing the database (${dir})…`);
    await prepareDatabase(database.url);
    await ensureDataset(database.url, dataset, dir);
    const context = await benchContext(database.url);
    const functions = await startFunctions({
      dbUrl: database.url,
      port: await freePort(),
      env: { DB_POOL_SIZE: String(POOL_SIZE), ...(values.front === 'off' ? { HTTP_FRONT: 'off' } : {}) },
    });
    const tokens = {
      admin: await mintToken({ role: 'authenticated', sub: DEMO_ADMIN_ID, expiresIn: '2h' }),
      service: SERVICE_ROLE_KEY,
    };
    return { database, functions, context, tokens, stop: async () => (await functions.stop(), await database.stop()) };
  } catch (error) {
    await database.stop();
    throw error;
  }
}

function requestsOf(stack, scenario) {
  let n = 0;
  const token = stack.tokens[scenario.caller];
  return [{
    setupRequest: (request) => {
      const { method, path: requestPath, body, headers } = scenario.request(n++, stack.context);
      return {
        ...request,
        method,
        path: requestPath,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
        ...(body ? { body: JSON.stringify(body) } : {}),
      };
    },
  }];
}

/** One scenario: its endpoint at full concurrency, its database ceiling, then its endpoint one request at a time. */
async function measureScenario(stack, scenario, ceilings, http) {
  const { database, functions } = stack;
  const requests = requestsOf(stack, scenario);
  log(`${scenario.name}: endpoint, then database ceiling, at c=${connections} and c=1…`);
  // Each measurement starts on an idle database: requests a load run left queued or running would
  // otherwise be measured as the next one's latency.
  const endpoint = await withCpu(stack, () => runAutocannon(functions.url, requests));
  await settle(database.url);
  // The ceiling at the same concurrency, then one at a time.
  const [ceiling, singleCeiling] = await ceilings.measure(scenario.name, [connections, 1]);
  await settle(database.url);
  // One request at a time: the latency a single user sees, without queueing behind 31 others.
  const single = await withCpu(stack, () => runAutocannon(functions.url, requests, 1));
  return {
    scenario: scenario.name,
    kind: scenario.kind,
    endpoint,
    database_ceiling: ceiling,
    ratio_to_database_ceiling: endpoint.requests_per_sec / ceiling.requests_per_sec,
    ratio_to_http_ceiling: endpoint.requests_per_sec / http.requests_per_sec,
    single: { endpoint: single, database_ceiling: singleCeiling },
  };
}

async function benchmark() {
  const stack = await openStack();
  try {
    const { database, context } = stack;
    log(`HTTP ceiling (c=${connections}, ${duration} s)…`);
    const http = await httpCeiling();
    log(`HTTP ceiling behind the TCP front (c=${connections}, ${duration} s)…`);
    const httpBehindFront = await httpCeiling({ behindFront: true });
    let httpBehindNode;
    if (values['node-front']) {
      log(`HTTP ceiling behind Node's HTTP server, for comparison (c=${connections}, ${duration} s)…`);
      httpBehindNode = await httpCeiling({ behindFront: 'node' });
    }
    const results = [];
    const picked = scenarios.filter((s) =>
      (!values.only || new RegExp(values.only, 'i').test(s.name)) && !(smoke && s.sameAs)
    );
    const ceilings = databaseCeilingProcess({
      DURATION: String(duration),
      ...(smoke ? { AMOUNT: String(SMOKE_REQUESTS) } : {}),
      DB_POOL_SIZE: String(POOL_SIZE),
      SUPABASE_DB_URL: database.url,
      BENCH_CONTEXT: JSON.stringify(context),
    });
    try {
      for (const scenario of picked) results.push(await measureScenario(stack, scenario, ceilings, http));
    } finally {
      await ceilings.close();
    }
    const invariants = await stockInvariantViolations(database.url);
    log(
      `Stock invariants after the write scenarios: ${invariants.violations} of ${invariants.products} products in violation`,
    );
    const report = {
      generated_at: new Date().toISOString(),
      mode: smoke ? 'smoke' : 'full',
      connections,
      duration_seconds: duration,
      pool_size: POOL_SIZE,
      front: values.front,
      dataset: DATASET,
      http_ceiling: http,
      http_ceiling_behind_front: httpBehindFront,
      ...(httpBehindNode ? { http_ceiling_behind_node: httpBehindNode } : {}),
      results,
      stock_invariants: invariants,
    };
    if (values.only) console.log(markdown(report));
    else await writeReport(smoke ? 'smoke' : 'latest', report, markdown(report));
  } finally {
    await stack.stop();
  }
}

/** The analytics scenarios one request at a time on two store sizes, and how much each grew. */
async function scaleRun() {
  const picked = scenarios.filter((scenario) =>
    SCALE_SCENARIOS.test(scenario.name) && (!values.only || new RegExp(values.only, 'i').test(scenario.name))
  );
  const sizes = [];
  for (const { name, dir, dataset } of SCALE_DATASETS) {
    const stack = await openStack(dataset, dir);
    try {
      const results = [];
      for (const scenario of picked) {
        log(`${name}: ${scenario.name} at c=1…`);
        await settle(stack.database.url);
        results.push({
          scenario: scenario.name,
          single: await withCpu(stack, () => runAutocannon(stack.functions.url, requestsOf(stack, scenario), 1)),
        });
      }
      sizes.push({ name, dataset, results });
    } finally {
      await stack.stop();
    }
  }
  // With no scenario picked (--only matching none), the run only generates the stores.
  if (picked.length === 0) return;
  const report = { generated_at: new Date().toISOString(), mode: 'scale', duration_seconds: duration, sizes };
  await writeReport('scale', report, scaleMarkdown(report));
}

async function writeReport(name, report, text) {
  await mkdir(path.join(ROOT, 'bench', 'results'), { recursive: true });
  await writeFile(path.join(ROOT, 'bench', 'results', `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(ROOT, 'bench', 'results', `${name}.md`), text);
  console.log(text);
}

await (values.scale ? scaleRun() : benchmark());

function scaleMarkdown(report) {
  const n = (value, digits = 1) => (value === null || value === undefined ? '–' : Number(value).toFixed(digits));
  const { sizes } = report;
  const names = sizes.map((size) => size.name);
  const growths = sizes.slice(1).map((size, i) => `growth ${sizes[i].name} → ${size.name}`);
  const lines = [
    `# Scale run (${report.generated_at})`,
    '',
    `One request at a time, ${report.duration_seconds} s per measurement, on ${
      names.join(', ')
    } (same products and campaigns).`,
    '',
    `| scenario | ${names.map((name) => `${name} p50 ms`).join(' | ')} | ${growths.join(' | ')} | ${
      names.map((name) => `${name} PG CPU ms/req`).join(' | ')
    } |`,
    `|---|${[...names, ...growths, ...names].map(() => '---:').join('|')}|`,
    ...sizes[0].results.map((r, i) => {
      const results = sizes.map((size) => size.results[i].single);
      return `| ${r.scenario} | ${results.map((x) => n(x.p50)).join(' | ')} | ${
        results.slice(1).map((x, j) => `${n(x.p50 / results[j].p50, 2)}×`).join(' | ')
      } | ${results.map((x) => n(x.cpu_ms_per_request.postgres)).join(' | ')} |`;
    }),
    '',
  ];
  return lines.join('\n');
}

function markdown(report) {
  const n = (value, digits = 0) => Number(value).toFixed(digits);
  const cpu = (value, digits = 2) => (value === null || value === undefined ? '–' : Number(value).toFixed(digits));
  const lines = [
    `# Benchmarks (${report.mode}, ${report.generated_at})`,
    '',
    `Concurrency ${report.connections}, ${
      report.mode === 'smoke' ? `${SMOKE_REQUESTS} requests` : `${report.duration_seconds} s`
    } per measurement, pool ${report.pool_size}; data set ${JSON.stringify(report.dataset)}.`,
    `HTTP ceiling (bare Deno.serve): ${n(report.http_ceiling.requests_per_sec)} req/s, p50 ${
      n(report.http_ceiling.p50, 1)
    } ms, p99 ${n(report.http_ceiling.p99, 1)} ms, Deno CPU ${
      cpu(report.http_ceiling.cpu_ms_per_request.deno, 3)
    } ms/req.`,
    `HTTP ceiling behind the TCP front (the local server's deadlines): ${
      n(report.http_ceiling_behind_front.requests_per_sec)
    } req/s, p50 ${n(report.http_ceiling_behind_front.p50, 1)} ms, p99 ${
      n(report.http_ceiling_behind_front.p99, 1)
    } ms, Deno CPU ${cpu(report.http_ceiling_behind_front.cpu_ms_per_request.deno, 3)} ms/req.`,
    ...(report.http_ceiling_behind_node
      ? [
        `HTTP ceiling behind Node's HTTP server (the same deadlines, bench/node-front.mjs; measured for comparison): ${
          n(report.http_ceiling_behind_node.requests_per_sec)
        } req/s, p50 ${n(report.http_ceiling_behind_node.p50, 1)} ms, p99 ${
          n(report.http_ceiling_behind_node.p99, 1)
        } ms, Deno CPU ${cpu(report.http_ceiling_behind_node.cpu_ms_per_request.deno, 3)} + Node CPU ${
          cpu(report.http_ceiling_behind_node.cpu_ms_per_request.node, 3)
        } ms/req.`,
      ]
      : []),
    '',
    `| scenario | req/s | p50 ms | p99 ms | non-2xx | Deno CPU ms/req | PG CPU ms/req | DB ceiling req/s | DB p50 ms | DB p99 ms | ratio to DB ceiling | ratio to HTTP ceiling | c=1 p50 ms | c=1 p99 ms | c=1 DB p50 ms |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...report.results.map((r) =>
      `| ${r.scenario} | ${n(r.endpoint.requests_per_sec)} | ${n(r.endpoint.p50, 1)} | ${
        n(r.endpoint.p99, 1)
      } | ${r.endpoint.non_2xx} | ${cpu(r.endpoint.cpu_ms_per_request.deno)} | ${
        cpu(r.endpoint.cpu_ms_per_request.postgres)
      } | ${n(r.database_ceiling.requests_per_sec)} | ${n(r.database_ceiling.p50, 1)} | ${
        n(r.database_ceiling.p99, 1)
      } | ${n(r.ratio_to_database_ceiling * 100)}% | ${n(r.ratio_to_http_ceiling * 100)}% | ${
        n(r.single.endpoint.p50, 1)
      } | ${n(r.single.endpoint.p99, 1)} | ${n(r.single.database_ceiling.p50, 1)} |`
    ),
    '',
    `Stock invariants after the write scenarios (never negative; lots = stock = ledger sum): ${report.stock_invariants.violations} violations over ${report.stock_invariants.products} products.`,
    '',
  ];
  return lines.join('\n');
}
