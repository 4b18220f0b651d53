/**
 * Limits a route asks `serveFunction` for (http.ts): requests a minute per caller, in fixed 60-second
 * windows counted in PostgreSQL so every instance shares them; and how many of its requests run at once.
 */

/** Requests a minute: anonymous callers per client IP, users per account; the service key is not limited. */
export type RateLimits = { anonymous: number; user: number };

/**
 * The client's address as the deployment's own proxies recorded it. Each proxy appends the address it got
 * the request from to `x-forwarded-for`, so only the last `trustedProxyHops` entries are theirs: anything
 * left of them is what the client sent, and trusting it would let a client pick a fresh rate-limit bucket
 * for every request. One hop is Supabase's gateway; `x-real-ip` is the fallback. Without either, or with no
 * hop trusted, every anonymous caller shares one bucket, which fails safe.
 */
export function clientIp(headers: Headers, trustedProxyHops = 1): string {
  // No proxy in front (the local server): every address header is the client's own word.
  if (trustedProxyHops <= 0) return 'unknown';
  const hops = headers.get('x-forwarded-for')?.split(',').map((hop) => hop.trim()).filter(Boolean) ?? [];
  const client = hops.length ? hops[Math.max(hops.length - trustedProxyHops, 0)] : undefined;
  return client || headers.get('x-real-ip')?.trim() || 'unknown';
}

/** Runs at most `slots` pieces of work at once; the rest wait, first come first served. */
export function concurrencyLimit(slots: number) {
  const waiting: (() => void)[] = [];
  let running = 0;
  return async function run<T>(work: () => Promise<T>): Promise<T> {
    if (running >= slots) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
