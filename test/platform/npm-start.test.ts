// `npm start` as a newcomer runs it: it serves, Ctrl-C stops everything, and a second start reuses the
// data. `npm run token` prints tokens the served stack accepts. Its starts share one data folder, begun as a
// copy of the suite's migrated one: what a first start adds to that (initdb, then the CLI's migrations) is
// the suite's own start (`test/support/stack.ts`), and a start that prepares an empty database is the
// DATABASE_URL test's.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import postgres from 'postgres';
import { freePort, ROOT } from '../../scripts/lib/stack.mjs';
import { dbUrl } from '../support/client.ts';

let dir: string;
let apiPort: number;
let dbPort: number;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'store-start-'));
  await chmod(dir, 0o755);
  apiPort = await freePort();
  dbPort = await freePort();
  const migrated = inject('migratedCluster');
  if (migrated) execFileSync('cp', ['-a', migrated, path.join(dir, 'data')]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

// What a test started and left running when it failed, stopped as Ctrl-C would, so the next test finds its
// ports and data folder free instead of failing in turn.
const started = new Set<ChildProcess>();
afterEach(async () => {
  for (const child of started) {
    if (child.exitCode === null && child.signalCode === null) await interrupt(child, child.spawnargs[0] === 'npm');
  }
  started.clear();
});

function start(
  databaseUrl = '',
  { viaNpm = false } = {},
): Promise<{ child: ChildProcess; output: () => string }> {
  // Through npm in a process group of its own, as a terminal runs `npm start`, so the group can be signalled.
  const [command, args] = viaNpm ? ['npm', ['start']] : [process.execPath, ['scripts/start.mjs']];
  const child = spawn(command, args, {
    cwd: ROOT,
    detached: viaNpm,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      SUPABASE_DB_URL: '',
      API_PORT: String(apiPort),
      DB_PORT: String(dbPort),
      DATA_DIR: path.join(dir, 'data'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes('Ctrl-C stops everything')) {
        clearInterval(timer);
        resolve({ child, output: () => output });
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`npm start exited early:\n${output}`));
      }
    }, 100);
  });
}

function interrupt(child: ChildProcess, group = false): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    if (group) process.kill(-child.pid!, 'SIGINT');
    else child.kill('SIGINT');
  });
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** Every process below `pid`: for npm, the shell, node, Deno, the postmaster and its backends. */
function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number));
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length;) {
    frontier = rows.filter(([, ppid]) => frontier.includes(ppid)).map(([child]) => child);
    found.push(...frontier);
  }
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: string, condition: () => boolean | Promise<boolean>, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const token = (kind: string) => execFileSync(process.execPath, ['scripts/token.mjs', kind], { cwd: ROOT, encoding: 'utf8' }).trim();

describe('npm start', () => {
  it('serves every function, stops cleanly on Ctrl-C, and keeps its data for the next start', async () => {
    const first = await start();
    const base = `http://127.0.0.1:${apiPort}/functions/v1`;
    expect(first.output()).toContain(`http://127.0.0.1:${apiPort}/functions/v1/<name>`);
    expect(first.output()).toContain('anon key');
    expect(first.output()).toContain(`http://127.0.0.1:${apiPort}/functions/v1/docs`);
    expect((await fetch(`http://127.0.0.1:${apiPort}/functions/v1/docs`)).status).toBe(200);
    expect(first.output()).toContain('npm run token -- admin');

    const admin = { authorization: `Bearer ${token('admin')}`, 'content-type': 'application/json' };
    for (const name of ['campaign-types', 'campaigns']) {
      expect((await fetch(`${base}/${name}`, { headers: admin })).status, name).toBe(200);
    }
    const health = await fetch(`${base}/business-health-analytics`, { method: 'POST', body: '{"period":"7d"}', headers: { 'content-type': 'application/json' } });
    expect(health.status).toBe(200);
    // No proxy stands in front of npm start: a fresh X-Forwarded-For (or X-Real-IP) per request is no
    // fresh address, and the anonymous limit (60 a minute) still holds. Its windows are fixed minutes, and
    // the requests may straddle two: of 131 in two windows, at least 11 are refused.
    const statuses = [];
    for (let i = 0; i < 130; i++) {
      const res = await fetch(`${base}/business-health-analytics`, {
        method: 'POST',
        body: '{"period":"7d","includeTrends":false,"includeInsights":false}',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.1.${i}.1`, 'x-real-ip': `10.2.${i}.1` },
      });
      await res.body?.cancel();
      statuses.push(res.status);
    }
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(10);
    const stock = await fetch(`${base}/stock-in`, { method: 'POST', body: '{}', headers: admin });
    expect(stock.status).toBe(400);

    const created = await fetch(`${base}/campaign-types`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ type_code: 'kept_between_runs', display_name_zh: '留存', attribution_layer: 'general' }),
    });
    expect(created.status).toBe(201);
    const customer = await fetch(`${base}/campaign-types`, {
      method: 'POST',
      headers: { ...admin, authorization: `Bearer ${token('customer')}` },
      body: JSON.stringify({ type_code: 'not_allowed', display_name_zh: '客', attribution_layer: 'general' }),
    });
    expect(customer.status).toBe(403);

    expect(await interrupt(first.child)).toBe(0);
    expect(await portOpen(apiPort)).toBe(false);
    expect(await portOpen(dbPort)).toBe(false);

    const second = await start();
    try {
      const validate = await fetch(`${base}/campaign-types/kept_between_runs/validate`, { method: 'POST', headers: admin });
      expect((await validate.json()).data.is_valid).toBe(true);
    } finally {
      expect(await interrupt(second.child)).toBe(0);
    }
  }, 180_000);

  it('when the functions server dies, npm start says so, stops PostgreSQL and exits non-zero', async () => {
    const { child, output } = await start();
    const deno = descendants(child.pid!).find((pid) =>
      execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).includes('scripts/serve.ts')
    );
    expect(deno).toBeDefined();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    process.kill(deno!, 'SIGKILL');
    expect(await exited).not.toBe(0);
    expect(output()).toMatch(/functions server \(Deno\) exited unexpectedly \(signal SIGKILL\)/);
    expect(await portOpen(dbPort)).toBe(false);
  }, 180_000);

  it('when PostgreSQL dies, npm start says so, stops the functions server and exits non-zero', async () => {
    const { child, output } = await start();
    const postmaster = Number((await readFile(path.join(dir, 'data', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const backends = descendants(postmaster);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    process.kill(postmaster, 'SIGKILL');
    expect(await exited).not.toBe(0);
    expect(output()).toMatch(/PostgreSQL exited unexpectedly \(signal SIGKILL\)/);
    expect(await portOpen(apiPort)).toBe(false);
    // The killed server's backends leave on their own; the next start on this data needs them gone.
    await until('the killed server’s backends to exit', () => backends.every((pid) => !alive(pid)));
  }, 180_000);

  for (const target of ['the npm start process group', 'npm alone'] as const) {
    it(`a SIGTERM to ${target} stops PostgreSQL and Deno`, async () => {
      const { child } = await start('', { viaNpm: true });
      const processes = descendants(child.pid!);
      expect(processes.length).toBeGreaterThan(3);
      process.kill(target === 'npm alone' ? child.pid! : -child.pid!, 'SIGTERM');
      await until('every process npm start ran to stop', () => processes.every((pid) => !alive(pid)));
      expect(await portOpen(apiPort)).toBe(false);
      expect(await portOpen(dbPort)).toBe(false);
    }, 180_000);
  }

  it.skipIf(process.getuid?.() !== 0)(
    'as root, a data folder under a 0700 folder that PostgreSQL’s user cannot enter is named in one line, not a raw initdb failure',
    async () => {
      const locked = path.join(dir, 'locked');
      await mkdir(locked, { mode: 0o700 });
      const child = spawn(process.execPath, ['scripts/start.mjs'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: '', SUPABASE_DB_URL: '', API_PORT: String(apiPort), DB_PORT: String(dbPort), DATA_DIR: path.join(locked, 'data') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let errors = '';
      child.stderr!.on('data', (chunk) => (errors += chunk));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(errors.trim().split('\n')).toEqual([expect.stringContaining(`cannot enter ${locked} (mode 700)`)]);
      expect(errors).toContain('DATA_DIR');
    },
    60_000,
  );

  it('with DATABASE_URL set, prepares and serves that database, starts no PostgreSQL of its own, and stops on Ctrl-C', async () => {
    const admin = postgres(dbUrl, { max: 1, onnotice: () => {} });
    const name = `start_external_${process.pid}`;
    await admin.unsafe(`create database ${name}`);
    const external = dbUrl.replace(/\/[^/?]+(\?|$)/, `/${name}$1`);
    try {
      const started = await start(external);
      try {
        expect(started.output()).toContain('Using the database in DATABASE_URL');
        expect(await portOpen(dbPort)).toBe(false);
        const res = await fetch(`http://127.0.0.1:${apiPort}/functions/v1/campaign-types`, {
          headers: { authorization: `Bearer ${token('admin')}` },
        });
        expect(res.status).toBe(200);
        expect((await res.json()).data.length).toBeGreaterThan(0);
      } finally {
        expect(await interrupt(started.child)).toBe(0);
      }
      expect(await portOpen(apiPort)).toBe(false);
      const db = postgres(external, { max: 1, onnotice: () => {} });
      const [{ types }] = await db`select count(*)::integer as types from public.campaign_type_config`;
      await db.end();
      expect(types).toBeGreaterThan(0);
    } finally {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  }, 180_000);
});
