// Measures the store console in Chromium (playwright-core driving the system's Chromium):
//   - first load: every static file a cold browser fetches until the signed-in health screen is
//     interactive, each gzipped (zlib level 6, what static hosts send), summed;
//   - time to interactive of each screen: a full page load of the screen's URL (static files cached, as
//     on a second visit) until its data is shown, nothing is loading and its charts are drawn.
//
//   node console/measure.mjs [console URL, default http://127.0.0.1:54321/console/] [--as admin|customer]
//
// The browser tests (test/browser/) use the same functions.
import { existsSync, readdirSync, statfsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { clockOffsetMs } from '../scripts/lib/clock.mjs';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENS = ['health', 'orders', 'campaigns', 'attribution', 'inventory', 'campaign-types'];

/**
 * Chromium as the closed network here wants it: headless, no sandbox as root, nothing phoning home. When
 * the run's clock is moved (`npm run test:at`), the browser's clock is moved with it: a page on the real
 * clock would judge the server's tokens and days by another time than the one under test. libfaketime
 * (Debian's `faketime`) moves the whole browser, every process and every way it reads the time, by the
 * run's offset; Playwright's own clock cannot, as it counts the time since each call by this process's
 * clock, which the run has moved too (pages on a run in the past would read the real time).
 */
export async function launchChromium() {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`);
  const { chromium } = await import('playwright-core');
  // launch() gives every browser a fresh temporary profile (--user-data-dir) of its own. The console is one
  // origin: without site isolation a context's pages share a renderer process instead of starting one per
  // page (26 renderers for the browser test became 12, its Chromium CPU about a sixteenth less).
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
      '--disable-site-isolation-trials', '--disable-features=site-per-process,IsolateOrigins',
      ...(roomyShm() ? [] : ['--disable-dev-shm-usage']),
    ],
    ...(clockOffsetMs === 0 ? {} : { env: { ...process.env, ...movedClockEnv() } }),
  });
}

/**
 * Whether /dev/shm, where Chromium keeps the memory its processes share, has room for it. A container's is
 * often 64 MB, where pages crash unless Chromium keeps that memory in /tmp files instead; with room, /dev/shm
 * is cheaper (the browser test took about a tenth less CPU, docs/performance.md).
 */
function roomyShm() {
  try {
    const { bsize, blocks } = statfsSync('/dev/shm');
    return bsize * blocks >= 1024 ** 3;
  } catch {
    return false;
  }
}

/**
 * libfaketime's settings that move a process's clocks by the run's offset. Its monotonic clock moves by the
 * same constant, so every interval and timer is unchanged (leaving it alone made Chromium's start 10 times
 * slower, measured).
 */
function movedClockEnv() {
  // Debian keeps it under the platform's multiarch folder (x86_64-linux-gnu, aarch64-linux-gnu).
  const library = readdirSync('/usr/lib').map((arch) => `/usr/lib/${arch}/faketime/libfaketime.so.1`).find(existsSync);
  if (!library) throw new Error('A run at a moved moment needs libfaketime for the browser: apt-get install -y faketime');
  return {
    LD_PRELOAD: library,
    FAKETIME: `${clockOffsetMs < 0 ? '-' : '+'}${(Math.abs(clockOffsetMs) / 1000).toFixed(3)}`,
  };
}

/** Resolves once the current screen shows its data: nothing loading, no busy region, every chart drawn. */
export async function waitForScreen(page, screen, timeout = 20_000) {
  await page.waitForFunction((name) => {
    const main = document.querySelector(`main[data-screen="${name}"]`);
    if (!main) return false;
    if (main.querySelector('.state.loading, [aria-busy="true"]')) return false;
    if (main.querySelector('canvas[data-chart-ready="false"]')) return false;
    return main.querySelector('h1') !== null;
  }, screen, { timeout, polling: 20 });
}

/** Signs in through the local-only sign-in of the page at `base`. */
export async function signIn(page, base, as = 'admin') {
  await page.goto(base);
  await page.locator(`button[data-sign-in-as="${as}"]`).click();
  await page.waitForSelector('main[data-screen]');
}

/**
 * The static files (under the console's URL) a cold browser fetches from opening the console to an
 * interactive health screen, signed in: each file's gzipped size.
 */
export async function measureFirstLoad(browser, base, as = 'admin') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const files = new Map();
  page.on('response', (response) => {
    const url = response.url();
    if (!url.startsWith(base) || response.status() !== 200) return;
    files.set(url, response.body().then((body) => gzipSync(body, { level: 6 }).length, () => 0));
  });
  await signIn(page, base, as);
  await waitForScreen(page, 'health');
  const sizes = [];
  for (const [url, size] of files) sizes.push({ file: url.slice(base.length) || 'index.html', gzipBytes: await size });
  await context.close();
  sizes.sort((a, b) => b.gzipBytes - a.gzipBytes);
  return { totalGzipBytes: sizes.reduce((sum, f) => sum + f.gzipBytes, 0), files: sizes };
}

/**
 * Milliseconds from navigation start to interactive for each screen (a hash path such as
 * `campaigns?tab=calendar`), the static files cached: the
 * best of `runs` loads (the others are noise from a shared machine), with every run kept.
 */
export async function measureScreens(page, base, screens = SCREENS, runs = 3) {
  const results = {};
  for (const screen of screens) {
    const times = [];
    for (let i = 0; i < runs; i++) {
      await page.goto('about:blank');
      await page.goto(`${base}#/${screen}`);
      await waitForScreen(page, screen.split('?')[0]);
      times.push(Math.round(await page.evaluate(() => performance.now())));
    }
    results[screen] = { ms: Math.min(...times), runs: times };
  }
  return results;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const as = args.includes('--as') ? args[args.indexOf('--as') + 1] : 'admin';
  const base = args.find((a) => a.startsWith('http')) ?? 'http://127.0.0.1:54321/console/';
  const browser = await launchChromium();
  try {
    const load = await measureFirstLoad(browser, base, as);
    console.log(`First load (signed-in health screen): ${(load.totalGzipBytes / 1024).toFixed(1)} KiB gzipped`);
    for (const f of load.files) console.log(`  ${(f.gzipBytes / 1024).toFixed(1).padStart(7)} KiB  ${f.file}`);
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await signIn(page, base, as);
    const times = await measureScreens(page, base, [...SCREENS, 'campaigns?tab=calendar', 'campaigns?tab=collaboration']);
    console.log('Time to interactive (full load, static files cached; best of 3):');
    for (const [screen, t] of Object.entries(times)) console.log(`  ${screen.padEnd(28)} ${String(t.ms).padStart(5)} ms   (runs: ${t.runs.join(', ')})`);
  } finally {
    await browser.close();
  }
}
