// The clock of a run at a chosen moment (`npm run test:at`, docs/architecture.md, "The clock"). The
// moment is handed down as an offset from the real clock, STORE_CLOCK_OFFSET_MS, so every process of the
// run (vitest and its workers, the scripts it starts, Deno, PostgreSQL's `store.clock_offset`) reads the
// same time and it keeps running: a run started at 23:59 crosses midnight as a real one would. Node loads
// this with `--import` (NODE_OPTIONS), the local functions server imports it first; unset, it does nothing.
// Deployed functions never load it.

const env = globalThis.Deno ? globalThis.Deno.env.get('STORE_CLOCK_OFFSET_MS') : globalThis.process?.env.STORE_CLOCK_OFFSET_MS;

/** How far the run's clock is ahead of the real one, in milliseconds (0 when not moved). */
export const clockOffsetMs = Number.isSafeInteger(Number(env)) ? Number(env) : 0;

if (clockOffsetMs !== 0 && !globalThis.__storeClockMoved) {
  globalThis.__storeClockMoved = true;
  const RealDate = Date;
  const now = () => RealDate.now() + clockOffsetMs;
  // A proxy rather than a subclass: `Date()` called without `new` still answers a string, and
  // `instanceof Date` and subclasses of Date keep working.
  globalThis.Date = new Proxy(RealDate, {
    construct: (target, args, newTarget) => Reflect.construct(target, args.length ? args : [now()], newTarget),
    apply: () => new RealDate(now()).toString(),
    get: (target, key, receiver) => (key === 'now' ? now : Reflect.get(target, key, receiver)),
  });
}

/** PostgreSQL's `-c` setting that moves `private.now()` by the same offset, when the clock is moved. */
export const postgresClockFlags = clockOffsetMs === 0 ? [] : ['-c', `store.clock_offset=${clockOffsetMs} milliseconds`];
