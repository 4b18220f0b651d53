/**
 * The store console in a real browser: Chromium (Debian's, driven by playwright-core) against the real
 * stack, on a database of its own seeded with a small demo store. Signs in locally, walks each screen,
 * reads the charts' figures from the page, creates and activates a campaign and finds it on the
 * calendar, books stock (a double click books once) and sees the ledger grow, sees the API's validation
 * errors on the fields, checks what a customer is offered, phone width and accessibility (axe-core), and
 * holds the first load to its size budget (each screen's time to interactive is measured by
 * `node console/measure.mjs`, a benchmark). Screenshots go to test-output/screenshots/.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, measureFirstLoad, SCREENS, signIn, waitForScreen } from '../../console/measure.mjs';
import { freePort, ROOT, startFunctions } from '../../scripts/lib/stack.mjs';
import { seedDemo } from '../../scripts/seed-demo.mjs';
import { call, scratchDatabase, tokens } from '../support/client.ts';
import { storeDay, storeToday } from '../support/store-day.ts';
import { addDays } from '../support/campaigns.ts';

const SHOTS = path.join(ROOT, 'test-output', 'screenshots');
const AXE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const today = storeToday();
const plusDays = (n: number) => storeDay(Date.now() + n * 86_400_000);

/** Every console error and page error, with the step it happened in. */
const problems: { step: string; text: string }[] = [];
let step = 'setup';

function watch(page: Page) {
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push({ step, text: message.text() });
  });
  page.on('pageerror', (error) => problems.push({ step, text: `page error: ${error.message}` }));
}

/**
 * A full-page screenshot for a reviewer's eyes, with `SCREENSHOTS=1`: nothing asserts on it, so the suite
 * does not pay for it.
 */
async function shot(page: Page, name: string) {
  if (process.env.SCREENSHOTS !== '1') return;
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** The rows of a chart's figures table, as text. */
async function chartRows(page: Page, chart: string) {
  return page.locator(`#${chart} table tbody tr`).evaluateAll((rows) =>
    rows.map((row) => Array.from(row.children, (cell) => cell.textContent?.trim() ?? ''))
  );
}

/** axe-core's serious and critical findings on the page. The screens are one page, so axe is loaded once per page. */
async function axeViolations(page: Page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE });
  const result = await page.evaluate(() => (window as any).axe.run(document, { resultTypes: ['violations'] }));
  return (result.violations as { id: string; impact: string; help: string; nodes: { target: string[] }[] }[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join('; ')})`);
}

/**
 * What the console itself says on a page, in the header and the screen: the store's own data (names, SKUs,
 * notes: `[data-user-text]`) and a record's own key shown as code (a type code in the catalogue) left out.
 */
async function ownWords(page: Page): Promise<string> {
  return page.evaluate(() => ['header.top', 'main'].map((selector) => {
    const copy = document.querySelector(selector)?.cloneNode(true) as Element | undefined;
    if (!copy) return '';
    // Also what is marked as another language on purpose (the language switch names each in its own).
    copy.querySelectorAll('[data-user-text], [lang], code, datalist, script, style').forEach((data) => data.remove());
    copy.querySelectorAll('*').forEach((el) => el.append(' '));
    return copy.textContent ?? '';
  }).join(' '));
}

/**
 * The console's own words in a screen: headings, labels, column heads, buttons, legends, states, leads,
 * captions and notes, without the store's own data inside them (`[data-user-text]`: names, SKUs).
 */
function consoleWords(page: Page): Promise<string[]> {
  return page.locator('main').evaluate((main) =>
    Array.from(main.querySelectorAll('h1, h2, h3, h4, legend, label, th[scope="col"], button, .state, .lead, caption, .muted, p, li, dt, dd'))
      .filter((el) => !el.closest('[data-user-text]'))
      .map((el) => {
        const copy = el.cloneNode(true) as Element;
        copy.querySelectorAll('[data-user-text]').forEach((data) => data.remove());
        return (copy.textContent ?? '').trim();
      })
      .filter(Boolean)
  );
}

/**
 * The controls a reader cannot click: each control the page shows must be, somewhere as the page scrolls a
 * screen at a time (as a reader scrolls: nothing scrolled inside a row or a header, where a control out of
 * sight stays out of sight), what a click at its centre reaches. axe does not see a control covered by
 * another element.
 */
function coveredControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const controls = [...document.querySelectorAll<HTMLElement>(
      'header.top a, header.top button, header.top select, main a, main button, main input, main select, main textarea, main summary',
    )].filter((control) =>
      !control.closest('.visually-hidden, details:not([open]) > :not(summary)') &&
      (control as HTMLInputElement).type !== 'hidden'
    );
    const reached = new Set<HTMLElement>();
    const missed = new Map<HTMLElement, string>();
    const step = Math.max(100, window.innerHeight * 0.6);
    for (let top = 0; top === 0 || top < document.documentElement.scrollHeight; top += step) {
      window.scrollTo(0, top);
      for (const control of controls) {
        if (reached.has(control)) continue;
        // A link's text that wraps has a box per line: the first line's centre is on the link itself.
        const box = control.getClientRects()[0];
        if (!box || box.width === 0 || box.height === 0 || box.top < 0 || box.bottom > window.innerHeight) continue;
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        const inView = box.left >= 0 && box.right <= window.innerWidth + 1;
        if (inView && (control.contains(hit) || (hit !== null && hit === control.closest('label')))) {
          reached.add(control);
          missed.delete(control);
        } else {
          missed.set(control, `${control.tagName.toLowerCase()} "${(control.textContent || control.getAttribute('aria-label') || control.getAttribute('name') || '').trim().slice(0, 40)}" under ${hit?.tagName.toLowerCase() ?? 'nothing'}.${hit?.className ?? ''}`);
        }
      }
      if (top >= document.documentElement.scrollHeight - window.innerHeight) break;
    }
    return [...missed.values()];
  });
}

/** An internal code on screen: a snake_case word (`damage_writeoff`, `anniversary_sale`). */
const SNAKE_CASE = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g;
const CJK = /[\u3400-\u9fff\uf900-\ufaff]+/g;

/** Every screen, and the views inside them: a product's detail, a campaign's, the calendar, the collaboration analysis, the forms. */
async function allViews(databaseUrl: string) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [{ id: productId }] = await sql`select id from public.products where deleted_at is null order by sku limit 1`;
    const [{ id: campaignId }] = await sql`select id from public.campaigns where status = 'active' order by name limit 1`;
    return [...SCREENS, `inventory?id=${productId}`, `campaigns?id=${campaignId}`, 'campaigns?tab=calendar',
      'campaigns?tab=collaboration', 'campaigns?edit=new', 'campaign-types?edit=new', 'inventory?edit=new',
      'inventory?view=expiring', 'inventory?edit=delivery'];
  } finally {
    await sql.end();
  }
}

// No Chromium fails the run (launchChromium names the package to install), never skips it.
describe(
  'the store console in Chromium',
  // The walks through every screen take 10-20 s on 2 cores; the other test file running beside them may
  // double that, which is load, not a failure.
  { timeout: 90_000 },
  () => {
    const scratch = scratchDatabase('console');
    let functions: { url: string; stop: () => Promise<void> };
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let base: string;
    const metrics: Record<string, unknown> = {};

    beforeAll(async () => {
      await mkdir(SHOTS, { recursive: true });
      const url = scratch.url;
      await scratch.createMigrated();
      await seedDemo(url, { orders: 1500, seed: 3, customers: 200, tickets: 80, products: 12, asOf: today }, { quiet: true });
      functions = await startFunctions({ dbUrl: url, port: await freePort(), env: { DB_POOL_SIZE: '5' } });
      base = `${functions.url}/console/`;
      browser = await launchChromium();
      // A browser on the other side of the world from the store: every time on screen is still the store's.
      context = await browser.newContext({ viewport: { width: 1280, height: 860 }, timezoneId: 'America/Los_Angeles' });
      page = await context.newPage();
      watch(page);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await functions?.stop();
      if (Object.keys(metrics).length) {
        await mkdir(path.join(ROOT, 'test-output'), { recursive: true });
        await writeFile(path.join(ROOT, 'test-output', 'console-metrics.json'), JSON.stringify(metrics, null, 2));
      }
    });

    it('offers the local-only sign-in, labelled as such, and signs in as the demo admin', async () => {
      step = 'sign-in';
      await page.goto(base);
      // Shown once the page has read its configuration, after the load event: waited for, not sampled (a
      // loaded machine sampled it too early once, and every later step ran signed out).
      await page.getByText('Local stack only.').waitFor({ state: 'visible', timeout: 10_000 });
      await shot(page, '0-sign-in');
      expect(await axeViolations(page)).toEqual([]);
      await signIn(page, base, 'admin');
      await waitForScreen(page, 'health');
      expect(await page.locator('.who').textContent()).toContain('admin@example.com');
      expect(await page.locator('.who').textContent()).toContain('Times in Taiwan Standard Time');
    });

    it('health: the seven dimensions on the chart are the figures the API sent; the period is in the URL', async () => {
      step = 'health';
      const answer = page.waitForResponse((r) => r.url().endsWith('/functions/v1/business-health-analytics') && r.request().method() === 'POST');
      await page.getByLabel('7 days').check();
      const response = await answer;
      const report = (await response.json()).data;
      // The console asks for version 2.0 (marketing scored) and says how marketing came about.
      expect(response.request().headers().accept).toBe('application/vnd.api+json;version=2.0');
      expect(response.headers()['api-version']).toBe('2.0.0');
      await page.waitForURL(/#\/health\?period=7d$/);
      await waitForScreen(page, 'health');
      const rows = await chartRows(page, 'dimensions-chart');
      const keys = ['revenue', 'satisfaction', 'fulfillment', 'support', 'products', 'marketing', 'system'];
      expect(rows.map((r) => r[0])).toEqual(['Revenue', 'Satisfaction', 'Fulfillment', 'Support', 'Products', 'Marketing', 'System']);
      rows.forEach((row, i) => expect(Number(row[1])).toBeCloseTo(report.metrics[keys[i]], 2));
      expect(await page.getByTestId('overall-score').textContent()).toBe(report.scoreDetails.overallScore.toFixed(2));
      expect(await page.locator('#trend-title .muted').textContent()).toBe('(this week against the week before)');
      expect(await page.locator('.insight').count()).toBe(report.insights.length);
      // Each action with a place in the back office is a link to it; the others stay words.
      const targets = report.insights.flatMap((i: { action_targets: (string | null)[] }) => i.action_targets.filter(Boolean));
      const links = await page.locator('.insight a[data-action-target]').evaluateAll((as) =>
        as.map((a) => [(a as HTMLElement).dataset.actionTarget!, a.getAttribute('href')!]));
      expect(links.map(([target]) => target)).toEqual(targets);
      expect(targets.length, "the demo store's insights name places to act").toBeGreaterThan(0);
      const expected: Record<string, RegExp> = {
        orders_awaiting_shipment: /^#\/orders\?ordered_from=.*&status=paid/,
        orders_shipped: /^#\/orders\?ordered_from=.*&status=shipped/,
        orders_cancelled: /^#\/orders\?ordered_from=.*&figure=cancelled/,
        products_out_of_stock: /^#\/inventory\?status=out_of_stock$/,
        products_low_stock: /^#\/inventory\?status=low_stock$/,
        products: /^#\/inventory$/,
        new_campaign: /^#\/campaigns\?edit=new$/,
        campaign: /^#\/campaigns\?tab=list&id=[0-9a-f-]{36}$/,
      };
      const marketing = report.marketingDetails;
      expect(await page.getByTestId('marketing-details').textContent()).toContain(
        marketing.status === 'scored' ? `ROAS ${Number(marketing.roas.toFixed(2))}` : marketing.reason);
      for (const [target, link] of links) expect(link, target).toMatch(expected[target]);
      await shot(page, '1-health');
    });

    it('health: the figures behind the scores are the orders list’s totals for the same period, each window a link to its orders', async () => {
      step = 'health-figures';
      await page.goto(`${base}#/health?period=30d`);
      await waitForScreen(page, 'health');
      expect(await page.getByTestId('marketing-details').textContent()).toMatch(/^Marketing(: ROAS [\d.,]+ \(revenue attributed to| is 0: )/);
      const figures = page.getByTestId('health-figures');
      // The figures of 30 days, not the 7 the previous step showed (the same page, a new hash).
      await figures.locator('th', { hasText: 'Last 30 days up to now' }).waitFor();
      await waitForScreen(page, 'health');
      // The campaigns behind the marketing score: spend in NT$, each campaign a link to its page.
      const spend = await page.getByTestId('health-campaigns').locator('td[data-marketing="spend"]').textContent();
      expect(spend).toMatch(/^NT\$[\d,]+$/);
      const top = page.getByTestId('health-top-campaigns').locator('tbody tr').first();
      expect(await top.locator('a').getAttribute('href')).toMatch(/^#\/campaigns\?tab=list&id=[0-9a-f-]{36}$/);
      // Its page shows what it spent to date, its ROAS and its pacing.
      await top.locator('a').click();
      await waitForScreen(page, 'campaigns');
      expect(await page.getByTestId('campaign-spend').textContent())
        .toMatch(/^Spent to date NT\$[\d,]+ \((as recorded|its budget spread over its days)\) · ROAS [\d.,—]+ · Pacing: \d+%/);
      await page.goBack();
      await waitForScreen(page, 'health');
      // A rolling window says so, with its moment: it is not 30 store days, and it moves with the clock.
      expect(await page.getByTestId('rolling-window').textContent())
        .toMatch(/^The last 30 days up to now: \w{3} \d+, \d{4}, .+ – \w{3} \d+, \d{4}, .+\. The window moves with the clock/);
      const FIGURES = ['revenue', 'counted_orders', 'average_order_value', 'orders', 'completed', 'cancelled'];
      for (const window of ['current', 'previous']) {
        const shown = Object.fromEntries(await Promise.all(FIGURES.map(async (key) =>
          [key, await figures.locator(`td[data-window="${window}"] [data-figure="${key}"]`).textContent()])));
        expect(Number(shown.orders.replaceAll(',', '')), `${window} orders`).toBeGreaterThan(0);
        expect(shown.revenue, 'money as the store writes it: NT$, whole dollars').toMatch(/^NT\$[1-9][\d,]*$/);
        // A figure opens exactly the orders it counts: the cancelled ones, as many as it says.
        await figures.locator(`td[data-window="${window}"] [data-figure="cancelled"]`).click();
        await page.waitForURL(/figure=cancelled/);
        await waitForScreen(page, 'orders');
        expect(await page.getByTestId('orders-figure').textContent()).toContain('Only the orders cancelled by then.');
        expect(await page.getByTestId('orders-summary').locator('[data-figure="orders"]').textContent(), `${window} cancelled`).toBe(shown.cancelled);
        expect(await page.locator('table tbody .badge').allTextContents()).not.toContain('paid');
        await page.goBack();
        await waitForScreen(page, 'health');
        await figures.locator(`td[data-window="${window}"] [data-figure="orders"]`).click();
        await page.waitForURL(/#\/orders\?ordered_from=/);
        await waitForScreen(page, 'orders');
        const summary = page.getByTestId('orders-summary');
        for (const key of ['revenue', 'average_order_value', 'orders', 'completed', 'cancelled']) {
          expect(await summary.locator(`[data-figure="${key}"]`).textContent(), `${window} ${key}`).toBe(shown[key]);
        }
        expect(await summary.textContent()).toContain(`from ${shown.counted_orders} counted`);
        if (window === 'current') {
          await shot(page, '1-orders-behind-health');
          // The CSV holds every order of the window (all pages), as the database has them.
          const download = page.waitForEvent('download');
          await page.getByRole('button', { name: 'Download CSV', exact: true }).click();
          // Named for what it holds and its store days; headed and worded as the screen is, instants in the
          // store's zone named in the heading.
          expect((await download).suggestedFilename()).toMatch(/^orders_\d{4}-\d\d-\d\d_\d{4}-\d\d-\d\d\.csv$/);
          const file = await (await download).path();
          const lines = (await readFile(file!, 'utf8')).replace(/^\ufeff/, '').trim().split('\r\n');
          expect(lines[0]).toMatch(
            /^Order,Placed \((.+)\),Customer,E-mail,Status,Amount,Completed \(\1\),Cancelled \(\1\),Order ID,Customer ID$/,
          );
          const params = new URL(page.url().replace('#/orders?', '?')).searchParams;
          const sql = postgres(scratch.url, { max: 1, onnotice: () => {} });
          const expected = await sql`
            select id::text, total_amount::text, ordered_at from public.orders
            where ordered_at >= ${params.get('ordered_from')!}::timestamptz and ordered_at < ${params.get('ordered_before')!}::timestamptz
            order by ordered_at desc, id desc`;
          await sql.end();
          const rows = lines.slice(1).map((line) => line.split(','));
          expect(rows.map((r) => r[8])).toEqual(expected.map((r) => r.id));
          expect(rows.map((r) => r[0])).toEqual(expected.map((r) => `#${r.id.slice(0, 8).toUpperCase()}`));
          expect(rows.map((r) => Number(r[5]))).toEqual(expected.map((r) => Number(r.total_amount)));
          expect(new Set(rows.map((r) => r[4])).size).toBeGreaterThan(0);
          expect(rows.filter((r) => !/^[A-Z][a-z]+$/.test(r[4])), 'statuses in words').toEqual([]);
          // Instants as spreadsheets read dates, on the store's wall clock (Taipei, +08:00): the database's instants.
          expect(rows.every((r) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(r[1])), rows[0][1]).toBe(true);
          expect(rows.map((r) => Date.parse(`${r[1].replace(' ', 'T')}+08:00`)))
            .toEqual(expected.map((r) => (r.ordered_at as Date).getTime() - ((r.ordered_at as Date).getTime() % 1000)));
          // The list shows the first order's time on the store's clock, not the browser's (Los Angeles).
          const shownTime = await page.locator('table tbody tr').first().locator('td').nth(1).textContent();
          expect(shownTime).toBe(new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Taipei' })
            .format(expected[0].ordered_at as Date));
          expect(rows.length).toBe(Number(shown.orders.replace(/[^0-9]/g, '')));
        }
        await page.goBack();
        await waitForScreen(page, 'health');
      }
    });

    it('health: a custom period of store days is chosen in a form, compared with last year, and its figures name its days', async () => {
      step = 'health-custom';
      await page.goto(`${base}#/health?period=7d`);
      await waitForScreen(page, 'health');
      await page.getByLabel('Custom', { exact: true }).check();
      await page.waitForURL(/period=custom/);
      await waitForScreen(page, 'health');
      const form = page.getByTestId('custom-period');
      const from = addDays(storeToday(), -40);
      const to = addDays(storeToday(), -11);
      await form.getByLabel('From', { exact: true }).fill(from);
      await form.getByLabel('To', { exact: true }).fill(to);
      // The request for these days (the default period's may still be answering when the form is sent).
      const answer = page.waitForResponse((r) => r.url().endsWith('/functions/v1/business-health-analytics') &&
        r.request().method() === 'POST' && r.request().postDataJSON()?.from === from);
      await form.getByRole('button', { name: 'Show' }).click();
      const sent = (await answer).request().postDataJSON();
      expect(sent).toEqual({ period: 'custom', from, to, compare: 'previous' });
      await form.getByLabel('Compared with').selectOption('last_year');
      await page.waitForURL(/compare=last_year/);
      await waitForScreen(page, 'health');
      const heads = await page.getByTestId('health-figures').locator('thead th').allTextContents();
      expect(heads[1]).toContain(from.slice(0, 4));
      expect(await page.getByTestId('rolling-window').textContent()).toMatch(/^Store days .+ against .+ counted as they are now/);
      // Its trend compares the two periods, and its heading says so rather than "this week".
      await expect.poll(() => page.locator('#trend-title .muted').textContent()).toBe('(these days against the same days last year)');
      await shot(page, '1-health-custom');
    });

    it("health: today so far and yesterday are the store's days, each a link to its orders", async () => {
      step = 'health-days';
      await page.goto(`${base}#/health?period=7d`);
      const answer = page.waitForResponse((r) => r.url().endsWith('/functions/v1/business-health-analytics/days'));
      await page.reload();
      const days = (await (await answer).json()).data;
      await waitForScreen(page, 'health');
      const table = page.getByTestId('health-days');
      await table.waitFor();
      expect(await page.locator('#days-title').locator('xpath=..').textContent()).toContain('Taiwan Standard Time');
      for (const key of ['today', 'yesterday'] as const) {
        expect(await table.locator(`td[data-day="${key}"] [data-figure="orders"]`).textContent()).toBe(days[key].orders.toLocaleString('en'));
      }
      expect(days.today.date).toBe(today);
      await table.locator('td[data-day="yesterday"] [data-figure="revenue"]').click();
      await waitForScreen(page, 'orders');
      const params = new URL(page.url().replace('#/orders?', '?')).searchParams;
      expect([params.get('ordered_from'), params.get('ordered_before')]).toEqual([days.yesterday.from, days.yesterday.before]);
      // Revenue opens the orders it counts: yesterday's counted orders, with its revenue.
      expect(params.get('figure')).toBe('counted');
      expect(await page.getByTestId('orders-summary').locator('[data-figure="orders"]').textContent()).toBe(days.yesterday.counted_orders.toLocaleString('en'));
      // One yesterday: the card counts as of now, as the orders list's own "Yesterday" does, and says so.
      expect(params.get('as_of')).toBeNull();
      expect(await page.locator('.lead').textContent()).toMatch(/, counted as of now\.$/);
      await page.goto(`${base}#/orders`);
      await waitForScreen(page, 'orders');
      await page.locator('[data-preset="yesterday"]').click();
      await waitForScreen(page, 'orders');
      const summary = page.getByTestId('orders-summary');
      await expect.poll(() => summary.locator('[data-figure="orders"]').textContent()).toBe(days.yesterday.orders.toLocaleString('en'));
      for (const key of ['revenue', 'cancelled', 'refunded'] as const) {
        const shown = (await summary.locator(`[data-figure="${key}"]`).textContent())!;
        expect(Number(shown.replace(/[^0-9]/g, '')), key).toBe(Math.round(days.yesterday[key]));
      }
      expect(days.yesterday.counted_orders + days.yesterday.cancelled + days.yesterday.refunded).toBe(days.yesterday.orders);
    });

    it("orders: found by a customer's name, their surname alone or an order's reference, by a day of the store, each with its own page and timeline", async () => {
      step = 'orders-find';
      const sql = postgres(scratch.url, { max: 1, onnotice: () => {} });
      const [order] = await sql`
        select o.id::text, c.name, c.email, o.customer_id::text,
               (select count(*)::int from public.orders x where x.customer_id = o.customer_id) as customer_orders
        from public.orders o join public.customers c on c.id = o.customer_id
        where o.shipped_at is not null order by o.ordered_at desc limit 1`;
      const [{ yesterday }] = await sql`
        select count(*)::int as yesterday from public.orders
        where ordered_at >= private.store_day_start(private.store_today() - 1) and ordered_at < private.store_day_start(private.store_today())`;
      // The demo store's most common surname, and the orders of everyone bearing it.
      const [{ surname, bearers }] = await sql`
        select s.surname, (select count(*)::int from public.orders o join public.customers c on c.id = o.customer_id
                           where strpos(c.name, s.surname) > 0) as bearers
        from (select left(name, 1) as surname from public.customers where email like 'demo-%'
              group by 1 order by count(*) desc, 1 limit 1) s`;
      await sql.end();
      await page.goto(`${base}#/orders`);
      await waitForScreen(page, 'orders');
      // A store day in one click: yesterday, midnight to midnight in Taipei.
      await page.locator('[data-preset="yesterday"]').click();
      await page.waitForURL(/ordered_from=/);
      await waitForScreen(page, 'orders');
      await expect.poll(() => page.getByTestId('orders-summary').locator('[data-figure="orders"]').textContent()).toBe(yesterday.toLocaleString('en'));
      // A window of whole store days reads as those days, the last one included: not up to the next midnight.
      const asDay = (day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString('en', { dateStyle: 'medium', timeZone: 'UTC' });
      expect(await page.locator('.lead').textContent()).toBe(`Placed ${asDay(addDays(storeToday(), -1))}, counted as of now.`);
      await page.locator('[data-preset="last7"]').click();
      await expect.poll(() => page.locator('.lead').textContent())
        .toBe(`Placed ${asDay(addDays(storeToday(), -6))} – ${asDay(storeToday())}, counted as of now.`);
      // By the reference the list shows, then by part of the customer's e-mail.
      const reference = `#${order.id.slice(0, 8).toUpperCase()}`;
      await page.goto(`${base}#/orders`);
      await waitForScreen(page, 'orders');
      // Two characters are too few for the search: the box says so and nothing is sent.
      await page.getByRole('searchbox').fill(reference.slice(0, 2));
      await page.locator('#f-search-hint').waitFor();
      await page.waitForTimeout(500);
      expect(page.url()).not.toContain('search=');
      // One Chinese character is enough: a surname finds the orders of everyone who bears it.
      await page.getByRole('searchbox').fill(surname);
      await page.waitForURL(/search=/);
      await waitForScreen(page, 'orders');
      await expect.poll(() => page.getByTestId('orders-summary').locator('[data-figure="orders"]').textContent())
        .toBe(bearers.toLocaleString('en'));
      await page.getByRole('searchbox').fill(reference);
      await page.waitForURL(/search=/);
      await waitForScreen(page, 'orders');
      await expect.poll(() => page.locator(`a[data-order="${order.id}"]`).count()).toBe(1);
      await page.getByRole('searchbox').fill(order.email);
      await expect.poll(() => page.locator('table tbody tr').count()).toBe(order.customer_orders);
      // Its own page: customer, timeline in time order, and the way to the customer's other orders.
      await page.locator(`a[data-order="${order.id}"]`).click();
      await page.locator('#order-title').waitFor();
      await waitForScreen(page, 'orders');
      expect(await page.locator('#order-title').textContent()).toContain(reference);
      const events = await page.getByTestId('order-timeline').locator('li').evaluateAll((li) => li.map((x) => (x as HTMLElement).dataset.event));
      expect(events.slice(0, 3)).toEqual(['placed', 'paid', 'shipped']);
      await page.getByTestId('customer-orders').click();
      await page.waitForURL(/customer_id=/);
      await waitForScreen(page, 'orders');
      await expect.poll(() => page.getByTestId('orders-summary').locator('[data-figure="orders"]').textContent()).toBe(String(order.customer_orders));
      // The CSV button is at the top of the list, and a long export says how far it has got.
      const all = page.waitForEvent('download');
      await page.goto(`${base}#/orders`);
      await waitForScreen(page, 'orders');
      const csv = page.locator('.csv-top').getByRole('button', { name: 'Download CSV', exact: true });
      await csv.click();
      await page.getByTestId('csv-progress').waitFor();
      expect(await page.getByTestId('csv-progress').textContent()).toMatch(/^[\d,]+ of [\d,]+ rows gathered$/);
      const lines = (await readFile((await (await all).path())!, 'utf8')).trim().split('\r\n');
      expect(lines.length - 1).toBe(Number((await page.getByTestId('orders-summary').locator('[data-figure="orders"]').textContent())!.replace(/,/g, '')));
    });

    it('campaign types: the catalogue by layer with what each layer counts for in attribution, its health, and checking a code', async () => {
      step = 'campaign-types';
      await page.goto(`${base}#/campaign-types`);
      await waitForScreen(page, 'campaign-types');
      expect(await page.locator('tr[data-type-code="brand_week"]').count()).toBe(1);
      const sql = postgres(scratch.url, { max: 1, onnotice: () => {} });
      const applied = await sql`select multiplier::float8 from public.attribution_layers order by attribution_layer`;
      await sql.end();
      // The layers' multipliers arrive in their own request, after the catalogue's rows.
      const shown = () => page.locator('[data-layer-multiplier]').evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.layerMultiplier)));
      await expect.poll(shown).toEqual(applied.map((r) => r.multiplier));
      await page.getByLabel('Type code').fill('brand_week');
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByText('valid', { exact: true }).waitFor();
      await shot(page, '5-campaign-types');
    });

    const campaignName = `Browser test launch ${Date.now()}`;
    const start = plusDays(45);
    let campaignUrl = '';
    it('campaigns: every problem the API would refuse shows on its field at once, before anything is sent; the fixed campaign is created', async () => {
      step = 'campaign-validation';
      await page.goto(`${base}#/campaigns`);
      await waitForScreen(page, 'campaigns');
      await page.getByRole('link', { name: 'New campaign' }).click();
      await page.getByLabel('Campaign type').selectOption('brand_week');
      await page.getByLabel('Start date').fill(start);
      await page.getByLabel('End date').fill(plusDays(40));
      await page.getByLabel('Priority').fill('101');
      const sent: string[] = [];
      const onRequest = (r: { url: () => string; method: () => string }) => {
        if (r.url().endsWith('/functions/v1/campaigns') && r.method() === 'POST') sent.push(r.url());
      };
      page.on('request', onRequest);
      await page.getByRole('button', { name: 'Create campaign' }).click();
      await page.locator('#f-end_date-error').waitFor();
      expect(await page.locator('#f-name-error').textContent()).toBe('Required.');
      expect(await page.locator('#f-end_date-error').textContent()).toBe('The end must not be before the start.');
      expect(await page.locator('#f-priority_score-error').textContent()).toBe('A whole number from 0 to 100.');
      for (const field of ['name', 'end_date', 'priority_score']) {
        expect(await page.locator(`#f-${field}`).getAttribute('aria-invalid')).toBe('true');
      }
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-name');
      expect(sent).toEqual([]);
      page.off('request', onRequest);
      await shot(page, '2-campaigns-validation-error');

      await page.getByLabel('Name', { exact: true }).fill(campaignName);
      await page.getByLabel('Priority').fill('');
      step = 'campaign-create';
      await page.getByLabel('End date').fill(plusDays(47));
      await page.getByRole('button', { name: 'Create campaign' }).click();
      await page.waitForURL(/[?&]id=[0-9a-f-]{36}/);
      await page.getByRole('heading', { name: campaignName }).waitFor();
      expect(await page.locator('.detail .state.success').textContent()).toContain(`“${campaignName}” is created as a draft`);
      campaignUrl = page.url();
      await page.getByRole('button', { name: 'Activate' }).click();
      // Active from a day still ahead: scheduled, not running; and one message, the newest, not two.
      await page.locator('#campaign-title .badge-scheduled').waitFor();
      expect(await page.locator('#campaign-title .badge').textContent()).toBe('Scheduled');
      expect(await page.locator('.detail .state.success').allTextContents()).toEqual([
        expect.stringContaining(`“${campaignName}” is now scheduled.`),
      ]);
      await waitForScreen(page, 'campaigns');
      await shot(page, '2-campaigns');
    });

    it('campaigns: the activated campaign is on the calendar on its future days, scheduled; a draft is shown apart', async () => {
      step = 'calendar';
      const sql = postgres(scratch.url, { max: 1, onnotice: () => {} });
      const draftName = `Plan ${Date.now()}`;
      await sql`insert into public.campaigns (name, start_date, end_date, campaign_type, status)
                select ${draftName}, ${start}::date, ${start}::date + 2, type_code, 'draft' from public.campaign_type_config
                where is_active and attribution_layer <> 'general' order by type_code limit 1`;
      await sql.end();
      await page.goto(`${base}#/campaigns?tab=calendar&month=${start.slice(0, 7)}&day=${start}`);
      await waitForScreen(page, 'campaigns');
      // Still to start: scheduled, in the day's list; the draft counts on no day, so it is listed apart.
      await page.getByTestId('calendar-drafts').waitFor();
      expect(await page.getByTestId('calendar-drafts').textContent()).toContain(draftName);
      expect(await page.locator(`td[data-date="${start}"] .day-drafts`).textContent()).toMatch(/^\+\d+ drafts?$/);
      expect(await page.locator('#day-title + p + .table-wrap tr', { hasText: campaignName }).locator('.badge-scheduled').textContent()).toBe('Scheduled');
      expect(await page.locator('#day-title ~ h4 + ul').textContent()).toContain(draftName);
      // The day's accessible name (its visible number, then the day in words) names the campaign.
      expect(await page.locator(`td[data-date="${start}"] button .visually-hidden`).textContent()).toContain(campaignName);
      expect(await page.locator('#day-title + p + .table-wrap').textContent()).toContain(campaignName);
      const perDay = await chartRows(page, 'calendar-chart');
      expect(perDay.find((r) => r[0] === start)?.[2]).toContain(campaignName);
      await shot(page, '2-campaigns-calendar');
    });

    it('campaigns: a stray click on Cancel cancels nothing until confirmed, nor does Enter; a pause says so, takes focus and can be undone', async () => {
      step = 'campaign-status-moves';
      await page.goto(campaignUrl);
      await page.locator('#campaign-title .badge-scheduled').waitFor();
      const actions = page.getByRole('group', { name: 'Campaign actions' });
      await actions.getByRole('button', { name: 'Cancel campaign' }).click();
      const question = actions.locator('.confirm');
      expect(await question.textContent()).toContain(`Cancel campaign “${campaignName}”? It counts for attribution up to today`);
      // It says what stays editable, as the API allows: the budget can still be saved after a cancellation.
      expect(await question.textContent()).toContain('budget and audience stay editable');
      // Focus is on the safe answer: Enter, pressed out of habit, keeps the campaign.
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('No');
      await shot(page, '2-campaigns-confirm-cancel');
      expect(await axeViolations(page), 'axe with the question open').toEqual([]);
      await page.keyboard.press('Enter');
      expect(await question.count()).toBe(0);
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel campaign');
      await page.locator('#campaign-title .badge-scheduled').waitFor();
      await actions.getByRole('button', { name: 'Cancel campaign' }).click();
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('No');
      await page.keyboard.press('Escape');
      expect(await question.count()).toBe(0);
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel campaign');
      await page.reload();
      await page.locator('#campaign-title .badge-scheduled').waitFor();

      await actions.getByRole('button', { name: 'Pause' }).click();
      await page.locator('#campaign-title .badge-paused').waitFor();
      const said = actions.getByRole('status');
      expect(await said.textContent()).toContain(`“${campaignName}” is now paused.`);
      expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('status');
      await said.getByRole('button', { name: 'Undo (activate)' }).click();
      await page.locator('#campaign-title .badge-scheduled').waitFor();
      expect(await actions.getByRole('status').textContent()).toContain(`“${campaignName}” is now scheduled.`);

      await actions.getByRole('button', { name: 'Cancel campaign' }).click();
      await actions.getByRole('button', { name: 'Yes, cancel campaign' }).click();
      await page.locator('#campaign-title .badge-cancelled').waitFor();
      expect(await actions.getByRole('status').textContent()).toContain(`“${campaignName}” is now cancelled.`);
      expect(await actions.getByRole('button', { name: /Undo/ }).count()).toBe(0);
      // The status history names who made each move by email, never by an id.
      await expect.poll(() => page.locator('ol.history li').count()).toBe(5);
      const moves = await page.locator('ol.history li').allTextContents();
      expect(moves.every((move) => move.includes('admin@example.com'))).toBe(true);
      expect(moves.join(' ')).not.toMatch(/[0-9a-f]{8}…/);
    });

    it('campaigns: a site-wide campaign whose days clash with an active one is warned of before it is saved', async () => {
      step = 'site-wide-clash';
      const sql = postgres(scratch.url, { max: 1, onnotice: () => {} });
      const [active] = await sql`
        select name, start_date::text, end_date::text from public.campaigns
        where status = 'active' and attribution_layer = 'site-wide' and deleted_at is null and end_date >= ${today}::date
        order by start_date limit 1`;
      const [{ type_code: siteWide }] = await sql`
        select type_code from public.campaign_type_config where attribution_layer = 'site-wide' and is_active order by type_code limit 1`;
      await sql.end();
      expect(active, 'the demo store has an active site-wide campaign').toBeDefined();
      await page.goto(`${base}#/campaigns?edit=new`);
      await waitForScreen(page, 'campaigns');
      const clash = page.getByTestId('site-wide-clash');
      const start = active.start_date > today ? active.start_date : today;
      await page.getByLabel('Start date').fill(start);
      await page.getByLabel('End date').fill(addDays(start, 2));
      await page.getByLabel('Campaign type').selectOption(siteWide);
      await clash.waitFor();
      expect(await clash.textContent()).toContain(`“${active.name}”, another site-wide campaign, is active`);
      // Days after the other campaign ends: no clash.
      await page.getByLabel('Start date').fill(addDays(active.end_date, 1));
      await page.getByLabel('End date').fill(addDays(active.end_date, 3));
      await clash.waitFor({ state: 'detached' });
      // The type list names the types in words, not by their codes.
      const labels = await page.getByLabel('Campaign type').locator('option').allTextContents();
      expect(labels.join(' ')).not.toContain(siteWide);
    });

    it('attribution: the split by campaign and layer read from the chart adds up to the whole amount', async () => {
      step = 'attribution';
      const answer = page.waitForResponse((r) => r.url().includes('/functions/v1/campaigns/attribution'));
      await page.goto(`${base}#/attribution?date=${today}&amount=250`);
      const data = (await (await answer).json()).data;
      await waitForScreen(page, 'attribution');
      const rows = await chartRows(page, 'attribution-chart');
      // A chart of money says so on its axis: the revenue bars' amounts in NT$, not bare numbers.
      const axes = page.locator('#revenue-chart canvas[data-axes]');
      await axes.waitFor();
      const amounts = JSON.parse((await axes.getAttribute('data-axes'))!).x as string[];
      expect(amounts.length).toBeGreaterThan(1);
      expect(amounts.filter((label) => !/^NT\$[\d,]+$/.test(label))).toEqual([]);
      expect(rows.length).toBe(data.total_active_campaigns);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.map((r) => r[0])).toEqual(data.attributions.map((a: { campaign_name: string }) => a.campaign_name));
      const shares = rows.reduce((sum, r) => sum + Number(r[2].replace('%', '')), 0);
      expect(shares).toBeCloseTo(100, 1);
      // Each share of the amount in whole dollars, as the store writes TWD; the exact amounts (in the CSV,
      // below) add up to the whole.
      expect(rows.map((r) => r[3])).toEqual(data.attributions.map((a: { attributed_amount: number }) =>
        `NT$${Math.round(a.attributed_amount).toLocaleString('en')}`));
      // The money column's total, under it: the whole amount.
      expect(Number((await page.locator('#split-table-title').locator('xpath=..').locator('tfoot td.num').textContent())!.replace(/[^0-9.]/g, ''))).toBe(250);
      await shot(page, '3-attribution');

      // The day's split as CSV: the API's rows, amounts unformatted, in the API's order.
      const download = page.waitForEvent('download');
      await page.locator('#split-table-title').locator('xpath=..').getByRole('button', { name: 'Download CSV' }).click();
      const lines = (await readFile((await (await download).path())!, 'utf8')).replace(/^\ufeff/, '').trim().split('\r\n');
      expect(lines[0]).toBe('Campaign,Layer,Weight before sharing,Share,Strength,Amount,Campaign ID');
      expect((await download).suggestedFilename()).toBe(`attribution_${today}.csv`);
      const csvRows = lines.slice(1).map((line) => line.split(','));
      expect(csvRows.map((r) => r[6])).toEqual(data.attributions.map((a: { campaign_id: string }) => a.campaign_id));
      expect(csvRows.map((r) => Number(r[5]))).toEqual(data.attributions.map((a: { attributed_amount: number }) => a.attributed_amount));
      expect(csvRows.reduce((sum, r) => sum + Number(r[5]), 0)).toBeCloseTo(250, 2);
    });

    it('inventory: a refused quantity shows on its field; a double-clicked stock-in books once and the ledger grows by one row', async () => {
      step = 'inventory';
      await page.goto(`${base}#/inventory?search=DEMO`);
      await waitForScreen(page, 'inventory');
      await page.locator('table.products tbody tr a').first().click();
      await page.locator('table.ledger').waitFor();
      await waitForScreen(page, 'inventory');
      const ledgerBefore = Number(await page.locator('table.ledger').getAttribute('data-total'));
      const stockBefore = Number((await page.getByTestId('current-stock').textContent())!.replace(/,/g, ''));

      step = 'stock-validation';
      const form = page.locator('form[data-form="stock-in"]');
      await form.getByLabel('Quantity received').fill('0');
      await form.getByRole('button', { name: 'Book stock-in' }).click();
      await form.locator('#f-quantity-error').waitFor();
      expect(await form.locator('#f-quantity').getAttribute('aria-invalid')).toBe('true');

      step = 'stock-in';
      const keys: string[] = [];
      page.on('request', (r) => {
        if (r.url().endsWith('/functions/v1/stock-in')) keys.push(r.headers()['idempotency-key']);
      });
      await form.getByLabel('Quantity received').fill('7');
      await form.getByRole('button', { name: 'Book stock-in' }).dblclick();
      await page.locator('.state.success').waitFor();
      await page.waitForFunction((n) => Number(document.querySelector('table.ledger')?.getAttribute('data-total')) === n, ledgerBefore + 1);
      await waitForScreen(page, 'inventory');
      expect(Number((await page.getByTestId('current-stock').textContent())!.replace(/,/g, ''))).toBe(stockBefore + 7);
      expect(keys.length).toBeGreaterThan(0);
      expect(new Set(keys).size).toBe(1);
      expect(keys[0]).toMatch(/^[\x21-\x7e]{1,255}$/);
      const newest = await page.locator('table.ledger tbody tr').first().textContent();
      expect(newest).toContain('+7');
      // The confirmation is a sentence in the console's words, not the API's.
      expect(await page.locator('.state.success').textContent()).toMatch(/^Received 7 units of .+\. Stock is now [\d,]+\./);
      await shot(page, '4-inventory');

      step = 'stock-adjust-undo';
      const adjust = page.locator('form[data-form="stock-adjust"]');
      // The reasons offered are those stock-adjust accepts for the change's direction.
      const offered = () => adjust.getByLabel('Reason', { exact: true }).locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
      const reasons = postgres(scratch.url, { max: 1, onnotice: () => {} });
      const accepted = async (refused: string) =>
        (await reasons`select reason::text from public.stock_adjust_reasons where direction::text <> ${refused}`).map((r) => r.reason);
      await adjust.getByLabel('Change (+ or −)').fill('-3');
      await expect.poll(offered).toEqual(await accepted('increase'));
      await adjust.getByLabel('Change (+ or −)').fill('3');
      await expect.poll(offered).toEqual(await accepted('decrease'));
      await reasons.end();
      await adjust.getByLabel('Reason', { exact: true }).selectOption('inventory_audit_increase');
      await adjust.getByRole('button', { name: 'Book adjustment' }).click();
      await page.waitForFunction((n) => Number(document.querySelector('table.ledger')?.getAttribute('data-total')) === n, ledgerBefore + 2);
      await waitForScreen(page, 'inventory');
      expect(Number((await page.getByTestId('current-stock').textContent())!.replace(/,/g, ''))).toBe(stockBefore + 10);
      expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('status');
      await page.getByRole('button', { name: 'Undo (book -3)' }).click();
      await page.waitForFunction((n) => Number(document.querySelector('table.ledger')?.getAttribute('data-total')) === n, ledgerBefore + 3);
      await waitForScreen(page, 'inventory');
      expect(Number((await page.getByTestId('current-stock').textContent())!.replace(/,/g, ''))).toBe(stockBefore + 7);
      expect(await page.locator('table.ledger tbody tr').first().textContent()).toContain('Undo of the adjustment 3');
      expect(await page.getByRole('button', { name: /^Undo/ }).count()).toBe(0);
    });

    it('inventory: a delivery of three products is booked by keyboard alone, all or nothing, shown on its lines, and undone', async () => {
      step = 'delivery';
      const sql = postgres(scratch.url, { max: 1, onnotice: () => {} });
      const stock = async () => (await sql`select sku, current_stock::int from public.products where sku = any(${products.map((p) => p.sku)}) order by sku`)
        .map((p) => p.current_stock);
      const products = await sql<{ sku: string; current_stock: number }[]>`
        select sku, current_stock::int from public.products where deleted_at is null and is_active order by sku limit 3`;
      const before = await stock();
      const typeDate = (day: string) => page.keyboard.type(`${day.slice(5, 7)}${day.slice(8, 10)}${day.slice(0, 4)}`);
      await page.goto(`${base}#/inventory`);
      await waitForScreen(page, 'inventory');
      await page.getByRole('link', { name: 'Receive a delivery' }).focus();
      await page.keyboard.press('Enter');
      const form = page.locator('form[data-form="delivery"]');
      await form.waitFor();
      // Focus starts on the first line's product; every step from here is a key press.
      await expect.poll(() => page.evaluate(() => document.activeElement?.closest('li')?.getAttribute('data-line'))).toBe('0');
      const lines: [string, string, string, string | null][] = [
        [products[0].sku, '5', 'D-1', plusDays(-1)],
        [products[1].sku, '3', '', null],
        [products[2].sku, '2', 'D-3', plusDays(200)],
      ];
      for (const [i, [sku, quantity, lot, expiry]] of lines.entries()) {
        await page.keyboard.type(sku);
        await page.keyboard.press('Tab');
        await page.keyboard.type(quantity);
        await page.keyboard.press('Tab');
        await page.keyboard.type(lot);
        await page.keyboard.press('Tab');
        if (expiry) await typeDate(expiry);
        if (i === lines.length - 1) break;
        // Past the line's remove button (from the second line on) to "Add a line".
        do await page.keyboard.press('Tab'); while (await page.evaluate(() => document.activeElement?.textContent) !== 'Add a line');
        await page.keyboard.press('Enter');
        await expect.poll(() => page.evaluate(() => document.activeElement?.closest('li')?.getAttribute('data-line'))).toBe(String(i + 1));
      }
      // Enter in a line's field goes on to the next field (the line's unit cost) and books nothing.
      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => (document.activeElement as HTMLSelectElement | null)?.name)).toBe('line-3.unit_cost');
      expect(await stock()).toEqual(before);
      // Enter in the delivery's own fields books it: the database refuses line 1's expiry (before the day
      // received), the refusal lands on that field, and nothing of the other lines is booked.
      step = 'delivery-refused';
      const enterInNote = async () => {
        do await page.keyboard.press('Tab'); while (await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name) !== 'note');
        await page.keyboard.press('Enter');
      };
      await enterInNote();
      const expiry = form.locator('li[data-line="0"] input[type="date"]');
      await expect.poll(() => expiry.getAttribute('aria-invalid')).toBe('true');
      expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe('date');
      expect(await form.locator('li[data-line="0"] .field-error').textContent()).toBe('Cannot be before the day the goods were received.');
      expect(await stock()).toEqual(before);

      step = 'delivery';
      await typeDate(plusDays(30));
      await enterInNote();
      const said = form.locator('.state.success');
      await said.waitFor();
      expect(await said.textContent()).toContain('Received 10 units in 3 lots.');
      expect(await stock()).toEqual([before[0] + 5, before[1] + 3, before[2] + 2]);
      const [lot] = await sql`select lot_number, expires_on::text from public.inventory_records r join public.products p on p.id = r.product_id
                              where p.sku = ${products[2].sku} order by r.created_at desc limit 1`;
      expect(lot).toEqual({ lot_number: 'D-3', expires_on: plusDays(200) });
      await shot(page, '4-inventory-delivery');

      // The status has focus; its undo is the next stop.
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Undo the delivery');
      await page.keyboard.press('Enter');
      await expect.poll(() => said.textContent()).toContain('The delivery is undone: 3 lots booked back out.');
      expect(await stock()).toEqual(before);

      // A product not on sale, typed by its SKU, is refused as that, on its line: not "choose from the list",
      // which leaves it out.
      step = 'delivery-inactive';
      const sku = `OFF-${Date.now()}`;
      await sql`insert into public.products (sku, name, is_active) values (${sku}, 'Retired tea', false)`;
      // This step once failed in a full run (the line said "Pick a product from the list."), never alone: what
      // the page typed and what its product lookups answered are kept to say why, should it recur.
      const lookups: Promise<string>[] = [];
      const lookup = (response: Response) => {
        const url = new URL(response.url());
        if (!url.pathname.endsWith('/functions/v1/products')) return;
        lookups.push(response.json().then(
          (body) => `${url.search} → ${response.status()} ${JSON.stringify(body.data?.map((p: { sku: string }) => p.sku) ?? body)}`,
          () => `${url.search} → ${response.status()}`,
        ));
      };
      page.on('response', lookup);
      await form.locator('li[data-line="0"] input').first().focus();
      await page.keyboard.type(sku);
      await page.keyboard.press('Tab');
      await page.keyboard.type('1');
      await enterInNote();
      // Two round trips (the SKU looked up, then the delivery refused), each slow on a loaded machine.
      await expect.poll(() => form.locator('li[data-line="0"] .field-error').first().textContent(), { timeout: 10_000 })
        .toBe('This product is not active, so stock cannot be booked for it.')
        .catch(async (error: Error) => {
          const typed = await form.locator('li[data-line="0"] input').first().inputValue();
          throw new Error(`${error.message}\ntyped ${JSON.stringify(typed)} for ${sku}; lookups:\n${(await Promise.all(lookups)).join('\n')}`);
        });
      page.off('response', lookup);
      await sql.end();
    });

    it('inventory: stock booked elsewhere shows on an open product without a reload, one request per 15 s, none in the background', async () => {
      step = 'live-stock';
      const sql = postgres(scratch.url, { max: 1, onnotice: () => {} });
      const [{ id }] = await sql`select id from public.products where deleted_at is null and is_active order by sku desc limit 1`;
      await sql.end();
      const live = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      await live.clock.install();
      const p = await live.newPage();
      watch(p);
      await signIn(p, base, 'admin');
      await p.goto(`${base}#/inventory?id=${id}`);
      await waitForScreen(p, 'inventory');
      const shown = async () => Number((await p.getByTestId('current-stock').textContent())!.replace(/,/g, ''));
      let reads = 0;
      p.on('request', (r) => {
        if (r.method() === 'GET' && new URL(r.url()).pathname === `/functions/v1/products/${id}`) reads++;
      });
      const stockIn = (quantity: number) => fetch(`${functions.url}/functions/v1/stock-in`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ product_id: id, quantity }),
      }).then((r) => expect(r.status).toBe(201));
      const visibility = (state: 'hidden' | 'visible') => p.evaluate((state) => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
        document.dispatchEvent(new Event('visibilitychange'));
      }, state);

      // The clock stands still from here: the page's timers (its refresh, and Preact's effects, which wait for
      // an animation frame) run only as the test moves the clock on.
      await live.clock.pauseAt(Date.now() + 1_000);
      const settled = async () => {
        await live.clock.runFor(20);
        return shown();
      };
      const start = await shown();
      // In the background nothing is asked for, however long.
      await visibility('hidden');
      reads = 0;
      await live.clock.runFor(60_000);
      expect(reads).toBe(0);
      // Stock booked meanwhile shows as soon as the tab is back.
      await stockIn(4);
      await visibility('visible');
      await expect.poll(settled).toBe(start + 4);
      expect(reads).toBe(1);
      // Then every 15 s (counted from that refresh, less than a second of the clock ago), and not before.
      await stockIn(6);
      await live.clock.runFor(13_000);
      expect(reads).toBe(1);
      expect(await shown()).toBe(start + 4);
      await live.clock.runFor(2_500);
      await expect.poll(settled).toBe(start + 10);
      expect(reads).toBe(2);
      // Beside the inventory link: the products low or out of stock and the lots expiring soon, as the API counts them.
      const summary = (await (await fetch(`${functions.url}/functions/v1/products/summary`, { headers: { authorization: `Bearer ${tokens.admin}` } })).json()).data;
      const alerts = p.getByTestId('stock-alerts');
      expect(Number(await alerts.locator('[data-low]').getAttribute('data-low'))).toBe(summary.out_of_stock + summary.low_stock);
      expect(await alerts.getAttribute('title')).toContain('low or out of stock');
      await live.close();
    });

    it('inventory: a SKU already taken is refused on the SKU field, in the console\'s language', async () => {
      step = 'taken-sku';
      await page.goto(`${base}#/inventory?edit=new`);
      await waitForScreen(page, 'inventory');
      await page.getByLabel('SKU').fill('TEA-OOLONG-150');
      await page.getByLabel('Name').fill('A second oolong');
      await page.getByRole('button', { name: 'Create product' }).click();
      await page.locator('#f-sku-error').waitFor();
      expect(await page.locator('#f-sku-error').textContent()).toContain('TEA-OOLONG-150');
      expect(await page.locator('form .state.error').count(), 'nothing above the form').toBe(0);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-sku');
      step = 'inventory';
    });

    it('inventory: a column head sorts the products by the API, a second click turns the order; names sort naturally', async () => {
      step = 'product-sort';
      await page.goto(`${base}#/inventory?search=DEMO`);
      await waitForScreen(page, 'inventory');
      const names = await page.locator('table.products tbody tr td:first-child a').allTextContents();
      expect(names).toEqual([...names].sort(new Intl.Collator('en', { numeric: true }).compare));
      const stocks = () => page.locator('table.products tbody [data-stock]').allTextContents()
        .then((cells) => cells.map((c) => Number(c.replace(/[^0-9-]/g, ''))));
      // Each order is awaited as it arrives: the list keeps the previous rows while the new ones load.
      const inOrder = (direction: 1 | -1) => async () => {
        const values = await stocks();
        return values.length > 1 && values.every((v, i) => i === 0 || direction * (v - values[i - 1]) >= 0);
      };
      await page.getByRole('button', { name: /^Stock/ }).click();
      await page.waitForURL(/sort=current_stock/);
      await expect.poll(inOrder(1), { timeout: 10_000 }).toBe(true);
      expect(await page.locator('th[aria-sort="ascending"]').textContent()).toContain('Stock');
      await page.getByRole('button', { name: /^Stock/ }).click();
      await page.waitForURL(/desc=1/);
      await expect.poll(inOrder(-1), { timeout: 10_000 }).toBe(true);
      expect(await page.locator('th[aria-sort="descending"]').textContent()).toContain('Stock');
      expect(new Set(await stocks()).size).toBeGreaterThan(1);
    });

    it('orders: an order placed through the API is shipped from its page, in Chinese: its lines and lots shown, the product\'s reserved and available moving', async () => {
      step = 'order-goods';
      const api = (path: string, body: unknown) => call(path, { method: 'POST', body, base: functions.url });
      const product = (await api('products', { sku: `TEA-${Date.now()}`, name: '高山烏龍茶' })).body.data;
      await api('stock-in', { product_id: product.id, quantity: 6, lot_number: 'LOT-Z', unit_cost: 150 });
      const [customer] = (await call('orders?per_page=1', { base: functions.url })).body.data;
      const placed = await api('orders', {
        customer_id: customer.customer_id,
        lines: [{ product_id: product.id, quantity: 2, unit_price: 420 }],
      });
      expect(placed.status).toBe(201);
      const zh = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'zh-TW' });
      const p = await zh.newPage();
      watch(p);
      await signIn(p, base, 'admin');
      const states = async () => Object.fromEntries(await p.getByTestId('stock-states').locator('dd[data-state]')
        .evaluateAll((dds) => dds.map((dd) => [(dd as HTMLElement).dataset.state!, dd.textContent])));
      await p.goto(`${base}#/inventory?id=${product.id}`);
      await waitForScreen(p, 'inventory');
      await expect.poll(states).toMatchObject({ 'on-hand': '6', reserved: '2', available: '4', 'sold-7': '0' });

      await p.goto(`${base}#/orders?id=${placed.body.data.id}`);
      await waitForScreen(p, 'orders');
      const line = p.getByTestId('order-lines').locator('tbody tr');
      expect(await line.locator('td').first().textContent()).toContain('高山烏龍茶');
      expect(await line.getByTestId('line-lots').textContent()).toBe('已保留，尚未出貨');
      // Its cost is not known yet, and the page says why.
      expect(await p.getByTestId('order-cost').textContent()).toBe('出貨後才知道');
      // Shipping asks first; "no" has the focus, so a stray Enter ships nothing.
      await p.getByRole('group', { name: '這筆訂單的下一步' }).getByRole('button', { name: '出貨' }).click();
      const question = p.getByRole('group', { name: /^確定出貨？/ });
      await p.keyboard.press('Enter');
      expect(await question.count()).toBe(0);
      await p.getByRole('group', { name: '這筆訂單的下一步' }).getByRole('button', { name: '出貨' }).click();
      await p.getByRole('group', { name: /^確定出貨？/ }).getByRole('button', { name: '出貨' }).click();
      await p.getByText('訂單現在是「已出貨」。').waitFor();
      // The page reads the order again after the move: awaited, not sampled.
      await expect.poll(() => line.getByTestId('line-lots').textContent()).toBe('LOT-Z × 2');
      expect(await p.getByTestId('order-cost').textContent()).toBe('NT$300');
      expect(await p.getByTestId('order-margin').textContent()).toBe('NT$540');
      // Back to the list: the order reads as shipped there too, without a reload.
      await p.getByRole('link', { name: '← 回到訂單列表' }).click();
      await waitForScreen(p, 'orders');
      const listed = p.locator('tr', { has: p.locator(`a[data-order="${placed.body.data.id}"]`) });
      await expect.poll(() => listed.locator('.badge').textContent(), { timeout: 5_000 }).toBe('已出貨');
      await listed.locator('a[data-order]').click();
      await p.locator('#order-title').waitFor();
      await waitForScreen(p, 'orders');

      await line.locator('td a').first().click();
      await waitForScreen(p, 'inventory');
      await expect.poll(states).toMatchObject({ 'on-hand': '4', reserved: '0', available: '4', 'sold-7': '2' });
      // The ledger's sale names its order, a link to it.
      await expect.poll(() => p.locator('table.ledger tbody tr').first().textContent()).toContain('銷售出貨');
      await shot(p, 'order-goods-zh');
      // A paid order not yet shipped: refunding it asks the refund's own question, not the cancel's.
      const cancelled = await api('orders', {
        customer_id: customer.customer_id, status: 'paid', lines: [{ product_id: product.id, quantity: 1, unit_price: 420 }],
      });
      expect(cancelled.status, cancelled.text).toBe(201);
      await p.goto(`${base}#/orders?id=${cancelled.body.data.id}`);
      await waitForScreen(p, 'orders');
      const steps = p.getByRole('group', { name: '這筆訂單的下一步' });
      await steps.getByRole('button', { name: '退款' }).click();
      expect(await steps.locator('.confirm').textContent()).toContain('確定退款？這筆訂單尚未出貨');
      await steps.getByRole('button', { name: '否' }).click();
      await steps.getByRole('button', { name: '取消訂單' }).click();
      expect(await steps.locator('.confirm').textContent()).toContain('確定取消這筆訂單？');
      await steps.getByRole('button', { name: '否' }).click();
      // Cancelled before shipping, it holds nothing: its line says its stock went back, not that it waits.
      const cancel = await call(`orders/${cancelled.body.data.id}`, { method: 'PATCH', body: { status: 'cancelled' }, base: functions.url });
      expect(cancel.status, cancel.text).toBe(200);
      await p.reload();
      await waitForScreen(p, 'orders');
      expect(await line.getByTestId('line-lots').textContent()).toBe('未出貨：保留的庫存已釋出');
      expect(await p.getByTestId('order-cost').textContent()).toBe('無：未曾出貨');
      // Shipped from a lot received without a cost: unknown, and said why.
      const costless = (await api('products', { sku: `TEA-${Date.now()}-N`, name: '無成本茶' })).body.data;
      await api('stock-in', { product_id: costless.id, quantity: 3 });
      const shipped = await api('orders', { customer_id: customer.customer_id, status: 'paid', lines: [{ product_id: costless.id, quantity: 1, unit_price: 99 }] });
      const ship = await call(`orders/${shipped.body.data.id}`, { method: 'PATCH', body: { status: 'shipped' }, base: functions.url });
      expect(ship.status, ship.text).toBe(200);
      await p.goto(`${base}#/orders?id=${shipped.body.data.id}`);
      // The order before it is on screen until this one's answer comes: its cost is awaited, not sampled.
      await expect.poll(() => p.getByTestId('order-cost').textContent()).toBe('不明：出貨的批次中有未記錄成本的');
      await zh.close();
    });

    it('every screen and view passes axe-core with no serious or critical violation, speaks English with no internal code, and covers no control, at 1024 px', async () => {
      step = 'accessibility';
      const found: Record<string, string[]> = {};
      // At 1024 px, the narrowest desktop width the console is made for.
      await page.setViewportSize({ width: 1024, height: 860 });
      for (const screen of await allViews(scratch.url)) {
        await page.goto(`${base}#/${screen}`);
        await waitForScreen(page, screen.split('?')[0]);
        const violations = await axeViolations(page);
        if (violations.length) found[screen] = violations;
        // In English, no Chinese and no internal code, outside the store's own data.
        const words = await ownWords(page);
        const out = [...(words.match(SNAKE_CASE) ?? []), ...(words.match(CJK) ?? [])];
        if (out.length) found[`${screen} (words)`] = [...new Set(out)];
        const covered = await coveredControls(page);
        if (covered.length) found[`${screen} (covered)`] = covered.slice(0, 5);
      }
      await page.setViewportSize({ width: 1280, height: 860 });
      expect(found).toEqual({});
    });

    it('a customer is offered no edit it cannot use, and may book stock', async () => {
      step = 'customer';
      const customer = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      const p = await customer.newPage();
      watch(p);
      await signIn(p, base, 'customer');
      // Said as it is: a customer, who may book stock, not "read-only".
      expect(await p.locator('.who .badge').textContent()).toBe('Customer');
      expect(await p.locator('.who').textContent()).not.toContain('read-only');
      expect(await p.locator('.who span[title]').getAttribute('title')).toContain('may book stock');
      await p.goto(`${base}#/campaigns`);
      await waitForScreen(p, 'campaigns');
      expect(await p.getByRole('link', { name: 'New campaign' }).count()).toBe(0);
      await p.locator('table.campaigns tbody a').first().click();
      await p.locator('#campaign-title').waitFor();
      await waitForScreen(p, 'campaigns');
      expect(await p.getByRole('button', { name: /^(Edit|Activate|Pause|Complete|Cancel campaign)$/ }).count()).toBe(0);
      await p.goto(`${base}#/campaign-types`);
      await waitForScreen(p, 'campaign-types');
      expect(await p.getByRole('link', { name: /^(New campaign type|Edit .*)$/ }).count()).toBe(0);
      expect(await p.getByRole('button', { name: /^Deactivate/ }).count()).toBe(0);
      await p.goto(`${base}#/inventory`);
      await waitForScreen(p, 'inventory');
      expect(await p.getByRole('link', { name: 'New product' }).count()).toBe(0);
      await p.locator('table.products tbody tr a').first().click();
      await p.locator('form[data-form="stock-in"]').waitFor();
      expect(await p.getByRole('link', { name: 'Edit product' }).count()).toBe(0);
      expect(await p.getByRole('button', { name: 'Delete product' }).count()).toBe(0);
      await customer.close();
    });

    it("a device whose clock is 9 hours ahead of or behind the server's signs in, keeps its session over a reload, and counts the store's days", async () => {
      step = 'device-clock';
      const sql = postgres(scratch.url, { max: 1, onnotice: () => {} });
      const [{ from }] = await sql`
        select (extract(epoch from private.store_day_start(private.store_today() - 1)) * 1000)::float8 as from`;
      await sql.end();
      // A device set to local time in the wrong zone is 8 hours off in Taiwan; 9 either way is past it.
      for (const hours of [9, -9]) {
        const skewed = await browser.newContext({ viewport: { width: 1280, height: 860 } });
        await skewed.clock.setSystemTime(Date.now() + hours * 3_600_000);
        const p = await skewed.newPage();
        watch(p);
        await signIn(p, base, 'admin');
        await waitForScreen(p, 'health');
        // The session outlives a reload: the stored one is judged by the server's clock too.
        await p.reload();
        await waitForScreen(p, 'health');
        expect(await p.locator('button[data-sign-in-as]').count(), `${hours} h`).toBe(0);
        // "Yesterday" is the store's yesterday, not the device's.
        await p.goto(`${base}#/orders`);
        await waitForScreen(p, 'orders');
        await p.locator('[data-preset="yesterday"]').click();
        await p.waitForURL(/ordered_from=/);
        const orderedFrom = new URL(p.url().replace('#/', '')).searchParams.get('ordered_from');
        expect(Date.parse(orderedFrom!), `${hours} h`).toBe(from);
        await skewed.close();
      }
    });

    it('speaks Traditional Chinese to a browser that prefers it, on every screen, and remembers a switch to English', async () => {
      step = 'zh-TW';
      const zh = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'zh-TW' });
      const p = await zh.newPage();
      watch(p);
      await signIn(p, base, 'admin');
      expect(await p.evaluate(() => document.documentElement.lang)).toBe('zh-TW');
      // The screens' names (the stock counts beside Inventory are figures, not names).
      expect(await p.locator('header nav').evaluate((nav) => {
        const copy = nav.cloneNode(true) as Element;
        copy.querySelectorAll('.nav-alerts').forEach((alerts) => alerts.remove());
        return copy.textContent;
      })).toBe('營運健康訂單行銷活動營收歸因庫存活動類型');
      expect(await p.getByTestId('stock-alerts').textContent()).toMatch(/（\d+ 項商品庫存偏低或缺貨/);
      // Every view's words, codes and controls in Chinese: the walk at 1024 and 390 px, below.
      // The flows in Chinese: a figure and the orders behind it, a cancellation that asks first, a CSV.
      await p.goto(`${base}#/health?period=7d`);
      await p.getByTestId('health-figures').locator('th', { hasText: '最近 7 天' }).waitFor();
      await waitForScreen(p, 'health');
      const revenue = await p.locator('[data-testid="health-figures"] td[data-window="current"] [data-figure="revenue"]').textContent();
      // Money as the store writes it in either language: NT$, in whole dollars.
      expect(revenue).toMatch(/^NT\$[1-9][\d,]*$/);
      await p.locator('[data-testid="health-figures"] td[data-window="current"] [data-figure="revenue"]').click();
      await waitForScreen(p, 'orders');
      expect(await p.getByTestId('orders-summary').locator('[data-figure="revenue"]').textContent()).toBe(revenue);
      await p.goto(`${base}#/campaigns?status=active`);
      await waitForScreen(p, 'campaigns');
      await p.locator('table.campaigns tbody a').first().click();
      await p.locator('#campaign-title .badge-active').waitFor();
      const actions = p.getByRole('group', { name: '活動操作' });
      await actions.getByRole('button', { name: '取消活動' }).click();
      expect(await actions.locator('.confirm').textContent()).toContain('無法再次啟用');
      await actions.getByRole('button', { name: '否' }).click();
      expect(await actions.locator('.confirm').count()).toBe(0);
      expect(await p.locator('#campaign-title .badge-active').textContent()).toBe('進行中');
      await p.goto(`${base}#/attribution?date=${today}&amount=250`);
      await waitForScreen(p, 'attribution');
      const download = p.waitForEvent('download');
      await p.getByRole('button', { name: '下載 CSV' }).first().click();
      const csv = (await readFile((await (await download).path())!, 'utf8')).replace(/^\ufeff/, '');
      // The file in the console's language: its name, headings and words (no code, no snake_case).
      expect((await download).suggestedFilename()).toBe(`營收歸因_${today}.csv`);
      const [heading, first] = csv.split('\r\n');
      expect(heading).toBe('活動,層級,分配前權重,占比,強度,金額,活動 ID');
      expect(first.split(',').slice(1, 5).filter((cell) => /[a-z]{3}/.test(cell))).toEqual([]);
      // A refusal only the database can make, in Chinese: a product that still holds stock is not deleted.
      await p.goto(`${base}#/inventory?search=DEMO`);
      await waitForScreen(p, 'inventory');
      await p.locator('table.products tbody tr a').first().click();
      await p.getByTestId('current-stock').waitFor();
      await waitForScreen(p, 'inventory');
      expect(Number((await p.getByTestId('current-stock').textContent())!.replace(/[^0-9]/g, ''))).toBeGreaterThan(0);
      // Its lots are headed with the order a sale draws them, which its allocation sets.
      expect(await p.locator('#lots-title .muted').textContent()).toBe('（由舊到新：出貨先扣最舊的批次）');
      const productId = new URL(p.url().replace('#/', '')).searchParams.get('id')!;
      const allocationSql = postgres(scratch.url, { max: 1, onnotice: () => {} });
      await allocationSql`update public.products set allocation = 'fefo' where id = ${productId}`;
      await p.reload();
      await waitForScreen(p, 'inventory');
      expect(await p.locator('#lots-title .muted').textContent()).toBe('（依到期日由近到遠：出貨先扣最早到期的批次）');
      await allocationSql`update public.products set allocation = 'fifo' where id = ${productId}`;
      await allocationSql.end();
      await p.reload();
      await p.getByTestId('current-stock').waitFor();
      await waitForScreen(p, 'inventory');
      step = 'zh-refusal';
      await p.getByRole('button', { name: '刪除商品' }).click();
      await p.getByRole('button', { name: '確定刪除' }).click();
      expect(await p.locator('.confirm [role="alert"]').textContent()).toBe('這項商品還有庫存，請先調整為 0 再刪除。');
      await p.getByRole('button', { name: '否' }).click();
      // A field rule only the database checks, worded in Chinese on its field: goods received tomorrow.
      const stockIn = p.locator('form[data-form="stock-in"]');
      await stockIn.getByLabel('入庫數量').fill('3');
      await stockIn.getByLabel('入庫時間').fill(`${plusDays(1)}T10:00`);
      await stockIn.getByRole('button', { name: '登記入庫' }).click();
      await stockIn.locator('#f-received_at-error').waitFor();
      expect(await stockIn.locator('#f-received_at-error').textContent()).toBe('不能晚於現在起 5 分鐘。');
      step = 'zh-TW';

      // Orders in Chinese: yesterday in one click, an order's own page, its steps named in Chinese, and the
      // confirmation before a destructive move resting on 否.
      await p.goto(`${base}#/orders`);
      await waitForScreen(p, 'orders');
      await p.getByRole('link', { name: '昨天' }).click();
      await p.waitForURL(/ordered_from=/);
      await waitForScreen(p, 'orders');
      // The screen shown before the hash change also passes waitForScreen: the preset's state is awaited.
      await expect.poll(() => p.locator('[data-preset="yesterday"]').getAttribute('aria-current')).toBe('true');
      await p.locator('a[data-order]').first().click();
      await p.locator('#order-title').waitFor();
      await waitForScreen(p, 'orders');
      expect(await p.locator('#order-title').textContent()).toMatch(/^訂單 #[0-9A-F]{8}/);
      expect(await p.getByTestId('order-timeline').locator('li').first().textContent()).toContain('下單');
      await p.goto(`${base}#/campaigns?status=active`);
      await waitForScreen(p, 'campaigns');
      await p.locator('table.campaigns tbody a').first().click();
      await p.locator('#campaign-title .badge-active').waitFor();
      await p.getByRole('group', { name: '活動操作' }).getByRole('button', { name: '取消活動' }).click();
      expect(await p.evaluate(() => document.activeElement?.textContent)).toBe('否');
      await p.keyboard.press('Enter');
      expect(await p.locator('#campaign-title .badge-active').textContent()).toBe('進行中');
      // Its status history names who, by e-mail.
      await expect.poll(() => p.locator('ol.history li').count()).toBeGreaterThan(0);
      expect((await p.locator('ol.history li').allTextContents()).every((move) => move.includes('@'))).toBe(true);
      // A new site-wide campaign on the days of an active one is warned of before saving, in Chinese.
      const clashSql = postgres(scratch.url, { max: 1, onnotice: () => {} });
      const [siteWide] = await clashSql`
        select c.name, c.start_date::text, t.type_code from public.campaigns c
        cross join lateral (select type_code from public.campaign_type_config
                            where attribution_layer = 'site-wide' and is_active order by type_code limit 1) t
        where c.status = 'active' and c.attribution_layer = 'site-wide' and c.deleted_at is null and c.end_date >= ${today}::date
        order by c.start_date limit 1`;
      await clashSql.end();
      await p.goto(`${base}#/campaigns?edit=new`);
      await waitForScreen(p, 'campaigns');
      const clashStart = siteWide.start_date > today ? siteWide.start_date : today;
      await p.getByLabel('開始日期').fill(clashStart);
      await p.getByLabel('結束日期').fill(addDays(clashStart, 1));
      await p.getByLabel('活動類型').selectOption(siteWide.type_code);
      await p.getByTestId('site-wide-clash').waitFor();
      expect(await p.getByTestId('site-wide-clash').textContent()).toContain(`另一個全站活動「${siteWide.name}」`);
      // A health figure opens exactly its orders, and says so in Chinese.
      await p.goto(`${base}#/health?period=30d`);
      await p.getByTestId('health-figures').locator('td[data-window="current"] [data-figure="cancelled"]').click();
      await p.waitForURL(/figure=cancelled/);
      await waitForScreen(p, 'orders');
      expect(await p.getByTestId('orders-figure').textContent()).toContain('只列出當時已取消的訂單。');

      await p.goto(`${base}#/health?period=30d`);
      await waitForScreen(p, 'health');
      const rating = await p.locator('.card.score .rating').textContent();
      expect(['優秀', '良好', '普通', '需改善', '待加強']).toContain(rating);
      await p.locator('.who select').selectOption('en');
      await p.locator('main h1', { hasText: 'Business health' }).waitFor();
      await waitForScreen(p, 'health');
      expect(['Excellent', 'Good', 'Fair', 'Needs improvement', 'Poor']).toContain(await p.locator('.card.score .rating').textContent());
      await p.reload();
      await waitForScreen(p, 'health');
      expect(await p.evaluate(() => document.documentElement.lang)).toBe('en');
      expect(await p.locator('main h1').textContent()).toBe('Business health');

      // Back in Chinese: a customer is said to be one. (Every view at phone width in Chinese is the walk's.)
      await p.locator('.who select').selectOption('zh-TW');
      await p.locator('main h1', { hasText: '營運健康' }).waitFor();
      await p.getByRole('button', { name: '登出' }).click();
      await p.locator('button[data-sign-in-as="customer"]').click();
      await p.waitForSelector('main[data-screen]');
      expect(await p.locator('.who .badge').textContent()).toBe('顧客');
      expect(await p.locator('.who span[title]').getAttribute('title')).toContain('登記入庫');
      await p.setViewportSize({ width: 390, height: 844 });
      // A product opened from the list at phone width shows at once, its heading in view with focus; its
      // tables read as rows, each cell beside its column's name in Chinese.
      await p.goto(`${base}#/inventory`);
      await waitForScreen(p, 'inventory');
      await p.locator('table.products tbody tr a').nth(3).click();
      await p.locator('#product-title').waitFor();
      await expect.poll(() => p.evaluate(() => document.activeElement?.id)).toBe('product-title');
      expect(await p.locator('#product-title').evaluate((h) => h.getBoundingClientRect().top)).toBeLessThan(844 * 0.8);
      expect(await p.locator('table.products tbody td').first().getAttribute('data-label')).toBe('商品');
      await zh.close();
    });

    it('every screen link and stock badge is in view and clickable, not covered, at 1024, 1280 and 390 px in both languages', async () => {
      step = 'navigation';
      const covered: string[] = [];
      for (const locale of ['zh-TW', 'en']) {
        const context = await browser.newContext({ viewport: { width: 1024, height: 800 }, locale });
        const p = await context.newPage();
        watch(p);
        await signIn(p, base, 'admin');
        await waitForScreen(p, 'health');
        await p.getByTestId('stock-alerts').locator('.nav-count').first().waitFor();
        for (const width of [1024, 1280, 390]) {
          await p.setViewportSize({ width, height: 800 });
          // The element at the centre of each link and badge must be that link or badge (or inside it), within the window.
          covered.push(...await p.evaluate(() => new Promise<string[]>((resolve) =>
            requestAnimationFrame(() => requestAnimationFrame(() => {
              const targets = [...document.querySelectorAll<HTMLElement>('header.top nav a, header.top .nav-count')];
              resolve(targets.flatMap((target) => {
                const box = target.getBoundingClientRect();
                const [x, y] = [box.left + box.width / 2, box.top + box.height / 2];
                const hit = document.elementFromPoint(x, y);
                const visible = box.width > 0 && box.left >= 0 && box.right <= window.innerWidth && target.contains(hit);
                return visible ? [] : [`${window.innerWidth}px ${document.documentElement.lang}: ${target.textContent} (${hit?.className ?? 'outside'})`];
              }));
            }))
          )));
        }
        // And a click on the last link reaches its screen.
        await p.setViewportSize({ width: 1024, height: 800 });
        await p.locator('header.top nav a').last().click();
        await waitForScreen(p, 'campaign-types');
        await context.close();
      }
      expect(covered).toEqual([]);
    });

    it('walks every view in Chinese at 1024 and 390 px: only its own language, no internal code, no covered control, nothing wider than a phone', async () => {
      // English at 1024 px is the accessibility walk's, at 390 px the phone walk's. axe runs in English only:
      // both languages share one markup, and a word missing in either does not compile (console/src/i18n).
      step = 'walk';
      const found: Record<string, string[]> = {};
      const views = await allViews(scratch.url);
      const context = await browser.newContext({ viewport: { width: 1024, height: 800 }, locale: 'zh-TW' });
      const p = await context.newPage();
      watch(p);
      await signIn(p, base, 'admin');
      for (const width of [1024, 390]) {
        await p.setViewportSize({ width, height: 800 });
        for (const view of views) {
          await p.goto(`${base}#/${view}`);
          await waitForScreen(p, view.split('?')[0]);
          const where = `${width}px ${view}`;
          // The console's own words (headings, labels, column heads, buttons, states, prose), with the Latin
          // the staff read as such in Chinese too: SKU, ID, CSV, the currency, a key's name.
          const foreign = (await consoleWords(p)).join(' ').replace(/SKU|ID|CSV|p95|RFM|AOV|ROAS|NT\$|Enter|UTC/g, '')
            .match(/[A-Za-z]{3,}/g);
          if (foreign) found[`${where} (language)`] = [...new Set(foreign)];
          const codes = (await ownWords(p)).match(SNAKE_CASE);
          if (codes) found[`${where} (codes)`] = [...new Set(codes)];
          const covered = await coveredControls(p);
          if (covered.length) found[`${where} (covered)`] = covered.slice(0, 5);
          const [scroll, inner] = await p.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
          if (scroll > inner + 1) found[`${where} (wide)`] = [`${scroll}px wide`];
        }
      }
      await context.close();
      expect(found).toEqual({});
    });

    it('fits a phone-width screen: no screen scrolls sideways, every screen link is in view, axe finds nothing serious, English only, no covered control', async () => {
      step = 'phone';
      const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
      const p = await phone.newPage();
      watch(p);
      await signIn(p, base, 'admin');
      const wide: string[] = [];
      const found: Record<string, string[]> = {};
      // Every view, the product's detail with its forms and ledger among them (the widest tables). Contrast
      // too: at this width row actions stick over the cells beside them.
      for (const screen of await allViews(scratch.url)) {
        await p.goto(`${base}#/${screen}`);
        await waitForScreen(p, screen.split('?')[0]);
        const [scroll, width] = await p.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
        if (scroll > width + 1) wide.push(`${screen}: ${scroll}px wide`);
        const hidden = await p.locator('header nav a').evaluateAll((links) =>
          links.filter((a) => {
            const r = a.getBoundingClientRect();
            return r.right > window.innerWidth || r.left < 0 || r.width === 0;
          }).map((a) => a.textContent));
        if (hidden.length) wide.push(`${screen}: navigation out of view: ${hidden.join(', ')}`);
        const violations = await axeViolations(p);
        if (violations.length) found[screen] = violations;
        const words = await ownWords(p);
        const out = [...(words.match(SNAKE_CASE) ?? []), ...(words.match(CJK) ?? [])];
        if (out.length) found[`${screen} (words)`] = [...new Set(out)];
        const covered = await coveredControls(p);
        if (covered.length) found[`${screen} (covered)`] = covered.slice(0, 5);
        // Tables read as rows: no table scrolls sideways in its frame, every cell says its column's name.
        const tables = await p.locator('.table-wrap').evaluateAll((wraps) => wraps.flatMap((wrap) => {
          const problems: string[] = [];
          if (wrap.scrollWidth > wrap.clientWidth + 1) problems.push(`a table ${wrap.scrollWidth}px wide in ${wrap.clientWidth}px`);
          const table = wrap.querySelector('table');
          if (table && !table.classList.contains('calendar')) {
            const unlabelled = [...table.querySelectorAll('tbody td')].filter((td) => !(td as HTMLElement).dataset.label).length;
            if (unlabelled) problems.push(`${unlabelled} cells without their column's name`);
          }
          return problems;
        }));
        if (tables.length) wide.push(`${screen}: ${[...new Set(tables)].join('; ')}`);
        await shot(p, `phone-${screen.replace(/[?=&]/g, '-')}`);
      }
      // A record opened from its list shows at once: its heading in view, with focus, not far below the list.
      for (const [screen, link, heading] of [
        ['inventory', 'table.products tbody tr a', '#product-title'],
        ['campaigns', 'table.campaigns tbody a', '#campaign-title'],
      ]) {
        await p.goto(`${base}#/${screen}`);
        await waitForScreen(p, screen);
        await p.locator(link).nth(3).click();
        await p.locator(heading).waitFor();
        await expect.poll(() => p.evaluate((h) => document.activeElement === document.querySelector(h), heading), `${screen}: focus`).toBe(true);
        const top = await p.locator(heading).evaluate((h) => h.getBoundingClientRect().top);
        expect(top, `${screen}: the record's heading in view`).toBeGreaterThanOrEqual(-1);
        expect(top, `${screen}: the record's heading in view`).toBeLessThan(844 * 0.8);
      }
      await phone.close();
      expect(wide).toEqual([]);
      expect(found).toEqual({});
    });

    // Only the size budget is asserted here; each screen's time to interactive is the benchmark's to
    // measure (`node console/measure.mjs`), never a test's.
    it('keeps the first load (gzipped) within the budget docs/console.md sets', async () => {
      step = 'measure';
      const load = await measureFirstLoad(browser, base);
      Object.assign(metrics, { firstLoad: load, data: 'seed:demo 1,500 orders, 12 products + the seeds' });
      expect(load.totalGzipBytes).toBeLessThan(300_000);
      const kinds = new Set(load.files.map((f: { file: string }) => f.file.split('?')[0].split('.').pop()));
      expect([...kinds]).toEqual(expect.arrayContaining(['html', 'js', 'css']));
    });

    it('logged no console error beyond the refused requests the test provoked', () => {
      const provoked = /Failed to load resource: the server responded with a status of (400|409|422)/;
      const unexpected = problems.filter((p) => !(['campaign-validation', 'stock-validation', 'zh-refusal', 'delivery-refused', 'delivery-inactive', 'taken-sku'].includes(p.step) && provoked.test(p.text)));
      expect(unexpected).toEqual([]);
    });
  },
);
