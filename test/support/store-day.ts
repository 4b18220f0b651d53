/**
 * The store's days as the database counts them (private.store_day): days in the store's time zone. The
 * suite's database is made in the default zone, which test/database/store-day.test.ts holds it to.
 */
export const STORE_TIME_ZONE = 'Asia/Taipei';

const dayFormat = new Intl.DateTimeFormat('en-CA', { timeZone: STORE_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });
const clockFormat = new Intl.DateTimeFormat('en-GB', {
  timeZone: STORE_TIME_ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** The store's day (`YYYY-MM-DD`) an instant falls on. */
export function storeDay(instant: Date | number = Date.now()): string {
  return dayFormat.format(instant);
}

/** Today in the store. */
export function storeToday(): string {
  return storeDay();
}

/** The instant the store's clocks show `time` (`HH:MM`) on `day`. */
export function storeInstant(day: string, time: string): number {
  const asIfUtc = Date.parse(`${day}T${time}:00Z`);
  const parts = Object.fromEntries(clockFormat.formatToParts(asIfUtc).map((p) => [p.type, p.value]));
  const shown = Date.parse(`${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}Z`);
  return asIfUtc - (shown - asIfUtc);
}
