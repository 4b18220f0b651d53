/**
 * The server's clock, as this device can read it. A device's own clock may be hours off (one set to local
 * time in the wrong zone is 8 h off in Taiwan), yet what the console decides by the clock is the server's
 * to decide: whether the session has expired (the server refuses an expired token by its own clock) and
 * which day is the store's today. So the console learns how far the server's clock is ahead of the
 * device's, from the sign-in's answer and from `GET /store`'s `now`, and reads the time as
 * `serverNow()`. Only differences of the device's clock (timers, "refreshed a minute ago") use it bare.
 */

/** Milliseconds the server's clock is ahead of this device's (negative when behind). */
let offset = 0;

/** Learn the server's clock from an instant it gave, read on this device just now. */
export function learnServerClock(serverMs: number) {
  if (Number.isFinite(serverMs)) offset = serverMs - Date.now();
}

/** The offset as last learned, to keep with a stored session (a reload knows it before asking again). */
export const serverClockOffset = () => offset;

export function restoreServerClockOffset(stored: unknown) {
  if (typeof stored === 'number' && Number.isFinite(stored)) offset = stored;
}

/** Now, by the server's clock, in milliseconds since the epoch. */
export const serverNow = () => Date.now() + offset;
