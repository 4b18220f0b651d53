// The clock `npm run test:at` moves (scripts/lib/clock.mjs, private.now()): Node, Deno, PostgreSQL and the
// browser the suite drives read the same moved time, and it keeps running; under test:at, the suite's own
// stack is at the moment asked.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { clockOffsetMs } from '../../scripts/lib/clock.mjs';
import { ROOT } from '../../scripts/lib/stack.mjs';
import { call, database } from '../support/client.ts';

const run = promisify(execFile);
const sql = database(1);
const YEAR = 365 * 86_400_000;
const CLOCK = pathToFileURL(path.join(ROOT, 'scripts', 'lib', 'clock.mjs')).href;
// What each runtime reads: Date.now(), new Date(), Date() and a subclass of Date, as milliseconds.
const PROBE = `const s = class extends Date {};
console.log(JSON.stringify([Date.now(), new Date().getTime(), Date.parse(Date()), new s().getTime(), new Date(0).getTime()]));`;

const realNow = () => Date.now() - clockOffsetMs;

describe('a run at a chosen moment', () => {
  it('moves Node and Deno by the offset it is given, every way they read the time, and leaves given dates alone', async () => {
    const env = { ...process.env, STORE_CLOCK_OFFSET_MS: String(YEAR) };
    const before = realNow();
    const node = await run(process.execPath, ['--import', CLOCK, '--input-type=module', '-e', PROBE], { env });
    const deno = await run(path.join(ROOT, 'node_modules', '.bin', 'deno'), ['eval', '--quiet', `import '${CLOCK}'; ${PROBE}`], { env });
    const after = realNow();
    for (const output of [node.stdout, deno.stdout]) {
      const [now, constructed, called, subclass, epoch] = JSON.parse(output);
      for (const read of [now, constructed, subclass]) {
        expect(read).toBeGreaterThanOrEqual(before + YEAR);
        expect(read).toBeLessThanOrEqual(after + YEAR);
      }
      expect(called).toBeGreaterThanOrEqual(Math.floor((before + YEAR) / 1000) * 1000);
      expect(epoch).toBe(0);
    }
  });

  // No Chromium fails the run (launchChromium says which package), never skips it.
  it('moves the browser: its pages read the moved time and run on, and Playwright\'s clock takes the moved time as now', async () => {
    const MEASURE = pathToFileURL(path.join(ROOT, 'console', 'measure.mjs')).href;
    // A page's reading before and after a second, and a pause at a moved moment just ahead (refused if the
    // page's clock were already past it).
    const probe = `import { launchChromium } from '${MEASURE}';
      const browser = await launchChromium();
      try {
        const context = await browser.newContext();
        const page = await context.newPage();
        const first = await page.evaluate(() => Date.now());
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const later = await page.evaluate(() => new Date().getTime());
        await context.clock.pauseAt(Date.now() + 60_000);
        console.log(JSON.stringify([first, later, await page.evaluate(() => Date.now())]));
      } finally {
        await browser.close();
      }`;
    for (const offset of [-YEAR, YEAR]) {
      const env = { ...process.env, STORE_CLOCK_OFFSET_MS: String(offset) };
      const before = realNow();
      const { stdout } = await run(process.execPath, ['--import', CLOCK, '--input-type=module', '-e', probe], { env });
      const after = realNow();
      const [first, later, paused] = JSON.parse(stdout);
      expect(first).toBeGreaterThanOrEqual(before + offset);
      expect(later - first).toBeGreaterThanOrEqual(1000);
      expect(later).toBeLessThanOrEqual(after + offset);
      expect(paused - later).toBeGreaterThanOrEqual(59_000);
    }
  });

  it("moves the database's clock: private.now(), private.clock_timestamp() and every column default", async () => {
    const [row] = await sql.begin(async (tx) => {
      await tx`set local store.clock_offset = '365 days'`;
      const [customer] = await tx`insert into public.customers (email, name) values ('clock@test.example', 'clock') returning id`;
      const [times] = await tx`select private.now() - now() as moved, round(extract(epoch from private.clock_timestamp() - clock_timestamp()))::integer as moved_clock,
                                      (select created_at from public.customers where id = ${customer.id}) - now() as created`;
      throw Object.assign(new Error('rollback'), { times });
    }).catch((error) => [error.times]);
    expect(row).toEqual({ moved: '365 days', moved_clock: 365 * 86_400, created: '365 days' });
  });

  it("under npm run test:at, the suite's database and functions read the suite's moved time", async () => {
    const [{ moved }] = await sql`select extract(epoch from private.now() - now()) * 1000 as moved`;
    expect(Math.abs(Number(moved) - clockOffsetMs)).toBeLessThan(1000);
    const before = Date.now();
    const res = await call('orders?per_page=1');
    const after = Date.now();
    expect(res.status, res.text).toBe(200);
    const asOf = Date.parse(res.body.summary.as_of);
    expect(asOf).toBeGreaterThanOrEqual(before - 5);
    expect(asOf).toBeLessThanOrEqual(after + 5);
  });
});
