/**
 * The store's days as the database counts them (private.store_day): days in the store's time zone, by the
 * console's own algorithm (console/src/format/zone-clock.ts), so the suite and the console cannot disagree on a
 * day. The suite's database is made in the default zone, which test/database/store-day.test.ts holds it to.
 */
import { instantOfWall, wallClock } from '../../console/src/format/zone-clock.ts';

export const STORE_TIME_ZONE = 'Asia/Taipei';

/** The store's day (`YYYY-MM-DD`) an instant falls on. */
export function storeDay(instant: Date | number = Date.now()): string {
  return wallClock(new Date(instant), STORE_TIME_ZONE).day;
}

/** Today in the store. */
export function storeToday(): string {
  return storeDay();
}

/** The instant the store's clocks show `time` (`HH:MM`) on `day`. */
export function storeInstant(day: string, time: string): number {
  return instantOfWall(`${day}T${time}`, STORE_TIME_ZONE);
}
