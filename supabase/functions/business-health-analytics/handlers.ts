/**
 * The one operation: validate, compute the report in one database call as the caller. Its route
 * (index.ts) has the caller rate-limited and each answer logged for the `system` dimension.
 * docs/business-health.md has the formulas.
 */
import type { Database } from '../_shared/db.ts';
import { ApiError, healthArea as area } from '../_shared/errors.ts';
import type { Reply, RequestContext } from '../_shared/http.ts';
import type { RateLimits } from '../_shared/limits.ts';
import { validate } from '../_shared/validation.ts';
import { invalidParameter, parameterProblem, requestBody } from './schemas.ts';

interface HealthReport {
  metrics: Record<string, number | null>;
  scoreDetails: Record<string, number | string>;
  trends?: Record<string, number | string>;
  insights?: Record<string, unknown>[];
}

export const FUNCTION_NAME = 'business-health-analytics';
export const RATE_LIMITS: RateLimits = { anonymous: 60, user: 120 };

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
      const body = await readBody(ctx);
      const params = validate(requestBody, body === undefined ? {} : body, area, parameterProblem);
      const [{ report }] = await limit(() =>
        db.asCaller(ctx.caller, area, (tx) =>
          tx<{ report: HealthReport }[]>`
            select health.business_health(${params.period}, ${params.includeSystemHealth},
                                          ${params.includeTrends}, ${params.includeInsights}) as report`)
      );
      // jsonb sorts keys; the seed's order reads better.
      const { metrics, scoreDetails, trends, insights } = report;
      return {
        body: {
          success: true,
          data: { metrics, scoreDetails, trends, insights, timestamp: new Date().toISOString() },
        },
      };
    },
  };
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
