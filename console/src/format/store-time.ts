/**
 * The store's time on screen: its zone (GET /store), its days and today, and instants shown on its clocks in
 * the chosen language, whatever the browser's zone, as the API counts days.
 */
import { serverNow } from '../api/server-clock.ts';
import { locale } from '../i18n/index.ts';
import { instantOfWall, wallClock } from './zone-clock.ts';

/**
 * The store's time zone (GET /store, an IANA name): every instant is shown in it and every "today" is its
 * day. The console sets it before any screen shows.
 */
let timeZone = 'UTC';
export function setTimeZone(zone: string) {
  timeZone = zone;
  dateTimes.clear();
}
export const storeTimeZone = () => timeZone;

/** The store's zone as people name it in the chosen language ("Taiwan Standard Time", "台北標準時間"). */
export function storeZoneName() {
  return new Intl.DateTimeFormat(locale(), { timeZone, timeZoneName: 'longGeneric' }).formatToParts(new Date())
    .find((p) => p.type === 'timeZoneName')?.value ?? timeZone;
}

/** Date-and-time formatters by locale, in the store's zone, made once each. */
const dateTimes = new Map<string, Intl.DateTimeFormat>();

/** An instant, in the store's zone, as the chosen language writes it. */
export function dateTimeText(iso: string) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  let f = dateTimes.get(locale());
  if (!f) {
    f = new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeStyle: 'short', timeZone });
    dateTimes.set(locale(), f);
  }
  return f.format(d);
}

/** A `YYYY-MM-DD` day as the chosen language writes it (the day itself, whatever the time zone). */
export function dayText(date: string) {
  const d = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? date : d.toLocaleDateString(locale(), { dateStyle: 'medium', timeZone: 'UTC' });
}

/**
 * An instant on the store's wall clock as spreadsheets read a date and time (`2026-11-21 00:30:00`), for
 * files: Excel, Numbers and Google Sheets take this form as a date, but not ISO 8601's `T` and offset.
 */
export function spreadsheetTime(iso: string | null | undefined): string | null {
  if (!iso) return null;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return wallClock(d, timeZone).wall.replace('T', ' ');
}

/** The store's day (`YYYY-MM-DD`) an instant falls on. */
export function storeDayOf(instant: string | number | Date): string {
  return wallClock(new Date(instant), timeZone).day;
}

/**
 * The instant the store's clocks show `wall` (`YYYY-MM-DDTHH:MM`, as a datetime-local field gives it), ISO
 * 8601 in UTC: what the store's staff type is the store's time, not the browser's.
 */
export function fromStoreWall(wall: string): string | null {
  const instant = instantOfWall(wall, timeZone);
  return Number.isNaN(instant) ? null : new Date(instant).toISOString();
}

/** Today in the store (days are the store's days, as the API counts them), moved by `offsetDays`. */
export function storeToday(offsetDays = 0) {
  return addDays(storeDayOf(serverNow()), offsetDays);
}

export function addDays(date: string, days: number) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
