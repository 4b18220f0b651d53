/**
 * The wall clock of a time zone, for any instant and back: the one algorithm the console (store-time.ts) and
 * the test suite (test/support/store-day.ts) both use for the store's days, as the database's
 * private.store_day counts them. Intl only, no library, no other import.
 */
const formats = new Map<string, Intl.DateTimeFormat>();

function partsFormat(zone: string) {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, f);
  }
  return f;
}

/** An instant's wall-clock fields in `zone` (`YYYY-MM-DDTHH:MM:SS`), its day, and its offset from UTC there in minutes. */
export function wallClock(instant: Date, zone: string) {
  const p = Object.fromEntries(partsFormat(zone).formatToParts(instant).map((x) => [x.type, x.value]));
  const wall = `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`;
  const offset = Math.round((Date.parse(`${wall}Z`) - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
  return { day: wall.slice(0, 10), wall, offset };
}

/**
 * The instant `zone`'s clocks show `wall` (`YYYY-MM-DDTHH:MM`, or with seconds), in milliseconds since the
 * epoch; NaN for a wall time that is not one.
 */
export function instantOfWall(wall: string, zone: string): number {
  const asIfUtc = Date.parse(`${wall.length === 16 ? `${wall}:00` : wall}Z`);
  if (Number.isNaN(asIfUtc)) return NaN;
  // The offset at the guess, then at the corrected instant (they differ only next to a change of offset).
  const instant = asIfUtc - wallClock(new Date(asIfUtc), zone).offset * 60_000;
  return asIfUtc - wallClock(new Date(instant), zone).offset * 60_000;
}
