/**
 * A test file run at a moment of its own. `npm test` runs at whatever hour it is started, so a test that
 * holds only after 09:00 passes all afternoon; a file that calls `runFileAt('00:30')` runs at 00:30 in the
 * store's zone on the store's today in every run, so such a test fails in every run instead. The moment moves Node's
 * Date for this file (the worker's other files get their clock back after it) and the database
 * connections the file opens with `database(max, { clock })`; the shared functions server keeps the
 * suite's clock, so only files that work in SQL alone can move. The whole suite moves with
 * `npm run test:at` (scripts/lib/clock.mjs).
 */
import { afterAll, vi } from 'vitest';
import { clockOffsetMs } from '../../scripts/lib/clock.mjs';
import { storeInstant, storeToday } from './store-day.ts';

export interface FileClock {
  /** The moment the file started at, ISO 8601. */
  startedAt: string;
  /** `store.clock_offset` for this file's database connections: the moment's distance from the real clock. */
  postgresOffset: string;
}

export function runFileAt(time: `${number}:${number}`): FileClock {
  const moment = storeInstant(storeToday(), time);
  const real = Date.now() - clockOffsetMs;
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true, now: moment });
  afterAll(() => {
    vi.useRealTimers();
  });
  return { startedAt: new Date(moment).toISOString(), postgresOffset: `${moment - real} milliseconds` };
}
