/**
 * The one operation: compute the report in one database call as the caller. Its route (index.ts) has
 * the body checked, the caller rate-limited, the report queued behind the others and each answer logged
 * for the `system` dimension. docs/business-health.md has the formulas.
 */
import type { Database } from '../_shared/db.ts';
import { healthArea as area } from '../_shared/errors.ts';
import { preferredLanguage } from '../_shared/language.ts';
import type { Reply, RequestContext } from '../_shared/http.ts';
import type { RateLimits } from '../_shared/limits.ts';
import type { z } from 'zod';
import type { figuresQuery, requestBody, requestBody2 } from './schemas.ts';

/** A custom period's days as version 2.0 takes them (schemas.ts). */
type CustomPeriod = Pick<z.infer<typeof requestBody2>, 'from' | 'to' | 'compare' | 'compare_from' | 'compare_to'>;

interface HealthReport {
  metrics: Record<string, number | null>;
  scoreDetails: Record<string, number | string>;
  marketingDetails?: Record<string, unknown>;
  window?: Record<string, unknown>;
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
export const REPORT_SLOTS = 2;

export function healthHandlers(db: Database) {
  async function report(
    ctx: RequestContext<{ body: typeof requestBody | typeof requestBody2 }>,
    version: number,
    custom: Partial<CustomPeriod> = {},
  ) {
    const params = ctx.input.body;
    const language = preferredLanguage(ctx.req.headers.get('accept-language'));
    const [{ report }] = await db.asCaller(ctx.caller, area, (tx) =>
      tx<{ report: HealthReport }[]>`
        select health.business_health(${params.period}, ${params.includeSystemHealth}, ${params.includeTrends},
                                      ${params.includeInsights}, ${language}, ${version}, ${custom.from ?? null},
                                      ${custom.to ?? null}, ${custom.compare ?? null}, ${custom.compare_from ?? null},
                                      ${custom.compare_to ?? null}) as report`);
    // jsonb sorts keys; the seed's order reads better.
    const { metrics, scoreDetails, marketingDetails, window, trends, insights } = report;
    return {
      body: {
        success: true,
        data: {
          metrics,
          scoreDetails,
          marketingDetails,
          window,
          trends,
          insights,
          timestamp: new Date().toISOString(),
        },
      },
      headers: { 'content-language': language, vary: 'Accept-Language' },
    };
  }

  return {
    /** Version 1.0, the seeds' report: marketing 0. */
    report(ctx: RequestContext<{ body: typeof requestBody }>): Promise<Reply> {
      return report(ctx, 1);
    },

    /** Version 2.0: marketing scored from the campaigns' return, explained in `marketingDetails`. */
    report2(ctx: RequestContext<{ body: typeof requestBody2 }>): Promise<Reply> {
      return report(ctx, 2, ctx.input.body);
    },

    /** The figures behind the scores, for administrators (the database refuses anyone else). */
    async figures(ctx: RequestContext<{ query: typeof figuresQuery }>): Promise<Reply> {
      const q = ctx.input.query;
      const [{ figures }] = await db.asCaller(ctx.caller, area, (tx) =>
        tx<{ figures: unknown }[]>`
          select health.business_figures(${q.period}, ${q.from ?? null}, ${q.to ?? null}, ${q.compare ?? null},
                                         ${q.compare_from ?? null}, ${q.compare_to ?? null}) as figures`);
      return { body: { success: true, data: figures } };
    },

    /** Today so far and yesterday, store days, for administrators (the database refuses anyone else). */
    async days(ctx: RequestContext): Promise<Reply> {
      const [{ days }] = await db.asCaller(
        ctx.caller,
        area,
        (tx) => tx<{ days: unknown }[]>`select health.business_days() as days`,
      );
      return { body: { success: true, data: days } };
    },
  };
}
