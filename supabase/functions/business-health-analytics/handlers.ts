/**
 * The one operation: rate-limit the caller, validate, compute the report in one database call as the
 * caller, and log the outcome for the `system` dimension. docs/business-health.md has the formulas.
 */
import type { Caller } from '../_shared/auth.ts';
import { type Database, translateDatabaseError } from '../_shared/db.ts';
import { ApiError, healthArea as area } from '../_shared/errors.ts';
import type { Reply, RequestContext } from '../_shared/http.ts';
import { validate } from '../_shared/validation.ts';
import { invalidParameter, parameterProblem, requestBody } from './schemas.ts';

interface HealthReport {
  metrics: Record<string, number | null>;
  scoreDetails: Record<string, number | string>;
  trends?: Record<string, number | string>;
  insights?: Record<string, unknown>[];
}

export const FUNCTION_NAME = 'business-health-analytics';
export const RATE_LIMITS = { anonymous: 60, user: 120 } as const;

/**
 * A report is CPU-bound work in PostgreSQL. Run many at once on a few cores and each takes as long as
 * all of them together, until every one hits the statement timeout; so an instance computes at most a
 * few at a time and queues the rest, which keeps throughput at what the cores allow.
 */
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

export function healthHandlers(db: Database, reportSlots = 2) {
  const limit = concurrencyLimit(reportSlots);
  return {
    async report(ctx: RequestContext): Promise<Reply> {
      const started = performance.now();
      let status = 500;
      try {
        await enforceRateLimit(db, ctx);
        const body = await readBody(ctx);
        const params = validate(requestBody, body === undefined ? {} : body, area, parameterProblem);
        const [{ report }] = await limit(() =>
          db.asCaller(ctx.caller, area, (tx) =>
            tx<{ report: HealthReport }[]>`
              select health.business_health(${params.period}, ${params.includeSystemHealth},
                                            ${params.includeTrends}, ${params.includeInsights}) as report`)
        );
        status = 200;
        // jsonb sorts keys; the seed's order reads better.
        const { metrics, scoreDetails, trends, insights } = report;
        return {
          body: {
            success: true,
            data: { metrics, scoreDetails, trends, insights, timestamp: new Date().toISOString() },
          },
        };
      } catch (error) {
        status = error instanceof ApiError ? error.status : 500;
        throw error;
      } finally {
        // After the answer, off its path: a failed log write must not fail the request it describes.
        const duration = Math.round(performance.now() - started);
        db.sql`select private.record_function_request(${FUNCTION_NAME}, ${status}, ${duration})`.catch(() => {});
      }
    },
  };
}

/**
 * Fixed 60-second windows counted in PostgreSQL, so every instance shares them. Every request counts,
 * invalid ones too: a flood of malformed requests costs the database as much as any other.
 */
async function enforceRateLimit(db: Database, ctx: RequestContext) {
  const bucket = rateLimitBucket(ctx.caller, ctx.req.headers);
  if (!bucket) return;
  let outcome: { hits: number; allowed: boolean; retry_after: number };
  try {
    [outcome] = await db.sql<typeof outcome[]>`select * from private.hit_rate_limit(${bucket.key}, ${bucket.limit})`;
  } catch (error) {
    throw translateDatabaseError(error, area);
  }
  if (!outcome.allowed) {
    throw new ApiError(
      429,
      'RATE_LIMIT_EXCEEDED',
      `Rate limit exceeded: ${bucket.limit} requests per minute`,
      { limit: bucket.limit, period: '60s', retry_after: outcome.retry_after },
      { 'retry-after': String(outcome.retry_after) },
    );
  }
}

/** Users by account, anonymous callers by client IP, the service key not at all. */
export function rateLimitBucket(caller: Caller, headers: Headers): { key: string; limit: number } | undefined {
  if (caller.kind === 'service') return undefined;
  if (caller.kind === 'user') return { key: `user:${caller.userId}`, limit: RATE_LIMITS.user };
  return { key: `ip:${clientIp(headers)}`, limit: RATE_LIMITS.anonymous };
}

/**
 * The gateway in front of the function (Supabase's, or any proxy) appends the client to
 * `x-forwarded-for`, so its first hop is the client; `x-real-ip` is the fallback. Without either every
 * anonymous caller shares one bucket, which fails safe.
 */
export function clientIp(headers: Headers): string {
  const forwarded = headers.get('x-forwarded-for')?.split(',')[0]?.trim();
  return forwarded || headers.get('x-real-ip')?.trim() || 'unknown';
}

/** The shared layer's malformed-body errors, reshaped into the seed's INVALID_PARAMETER details. */
async function readBody(ctx: RequestContext): Promise<unknown> {
  try {
    return await ctx.body();
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) {
      const details = error.details as { value?: unknown } | undefined;
      throw invalidParameter('body', details?.value ?? null, ['a JSON object sent as application/json']);
    }
    throw error;
  }
}
