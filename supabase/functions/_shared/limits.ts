/**
 * Limits a route asks `serveFunction` for (http.ts): requests a minute per caller, in fixed 60-second
 * windows counted in PostgreSQL so every instance shares them; and how many of its requests run at once.
 */
import type { MiddlewareHandler } from 'hono';
import { translateDatabaseError } from './db.ts';
import { type Area, retryLater } from './errors.ts';
import type { AppEnv, Dependencies } from './http.ts';

/** Requests a minute: anonymous callers per client IP, users per account; the service key is not limited. */
export type RateLimits = { anonymous: number; user: number };

/**
 * Counts each request against its caller's window; past the limit, a 429 with `Retry-After`. Every
 * request counts, invalid ones too: a flood of malformed requests costs the database as much as any other.
 */
export function rateLimited(deps: Dependencies, area: Area, limits: RateLimits): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { caller } = c.var;
    // Users by account, anonymous callers by client IP, the service key not at all.
    if (caller.kind !== 'service') {
      const bucket = caller.kind === 'user'
        ? { key: `user:${caller.userId}`, limit: limits.user }
        : { key: `ip:${clientIp(c.req.raw.headers, deps.trustedProxyHops)}`, limit: limits.anonymous };
      const [outcome] = await deps.db.bounded(
        deps.db.sql<{ allowed: boolean; retry_after: number }[]>`
          select * from private.hit_rate_limit(${bucket.key}, ${bucket.limit})`,
        caller.answerBy,
      ).catch((error) => {
        throw translateDatabaseError(error, area);
      });
      if (!outcome.allowed) {
        const message = `Rate limit exceeded: ${bucket.limit} requests per minute`;
        throw retryLater(429, 'RATE_LIMIT_EXCEEDED', message, outcome.retry_after, {
          limit: bucket.limit,
          period: '60s',
        });
      }
    }
    await next();
  };
}

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
