/**
 * The one operation: compute the report in one database call as the caller. Its route (index.ts) has
 * the body checked, the caller rate-limited, the report queued behind the others and each answer logged
 * for the `system` dimension. docs/business-health.md has the formulas.
 */
import type { Database } from '../_shared/db.ts';
import { healthArea as area } from '../_shared/errors.ts';
import { type Ctx, ok } from '../_shared/http.ts';
import type * as routes from './routes.ts';
import type { RateLimits } from '../_shared/limits.ts';
import type { z } from 'zod';
import type { requestBody, requestBody2 } from './schemas.ts';
import type { daysResponse, figuresResponse, reportResponse2 } from './responses.ts';

/** A custom period's days as version 2.0 takes them (schemas.ts). */
type CustomPeriod = Pick<z.infer<typeof requestBody2>, 'from' | 'to' | 'compare' | 'compare_from' | 'compare_to'>;

/** The report as the database builds it (health.business_health), 2.0's fields only when asked for. */
type HealthReport = Omit<z.output<typeof reportResponse2>['data'], 'timestamp'>;

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
    c: Ctx<typeof routes.report | typeof routes.report2>,
    params: z.infer<typeof requestBody | typeof requestBody2>,
    version: number,
    custom: Partial<CustomPeriod> = {},
  ) {
    const language = c.var.language;
    const [{ report }] = await db.asCaller(c.var.caller, area, (tx) =>
      tx<{ report: HealthReport }[]>`
        select health.business_health(${params.period}, ${params.includeSystemHealth}, ${params.includeTrends},
                                      ${params.includeInsights}, ${language}, ${version}, ${custom.from ?? null},
                                      ${custom.to ?? null}, ${custom.compare ?? null}, ${custom.compare_from ?? null},
                                      ${custom.compare_to ?? null}) as report`);
    // jsonb sorts keys; the seed's order reads better.
    const { metrics, scoreDetails, marketingDetails, window, trends, insights } = report;
    const data = {
      metrics,
      scoreDetails,
      marketingDetails,
      window,
      trends,
      insights,
      timestamp: new Date().toISOString(),
    };
    return c.json({ success: true as const, data }, 200, { 'content-language': language, vary: 'Accept-Language' });
  }

  return {
    /** Version 1.0, the seeds' report: marketing 0. */
    report(c: Ctx<typeof routes.report>) {
      return report(c, c.req.valid('json'), 1);
    },

    /** Version 2.0: marketing scored from the campaigns' return, explained in `marketingDetails`. */
    report2(c: Ctx<typeof routes.report2>) {
      return report(c, c.req.valid('json'), 2, c.req.valid('json'));
    },

    /** The figures behind the scores, for administrators (the database refuses anyone else). */
    async figures(c: Ctx<typeof routes.figures>) {
      const q = c.req.valid('query');
      const [{ figures }] = await db.asCaller(
        c.var.caller,
        area,
        (tx) =>
          tx<{ figures: z.output<typeof figuresResponse>['data'] }[]>`
          select health.business_figures(${q.period}, ${q.from ?? null}, ${q.to ?? null}, ${q.compare ?? null},
                                         ${q.compare_from ?? null}, ${q.compare_to ?? null}) as figures`,
      );
      return ok(c, figures);
    },

    /** Today so far and yesterday, store days, for administrators (the database refuses anyone else). */
    async days(c: Ctx<typeof routes.days>) {
      const [{ days }] = await db.asCaller(
        c.var.caller,
        area,
        (tx) => tx<{ days: z.output<typeof daysResponse>['data'] }[]>`select health.business_days() as days`,
      );
      return ok(c, days);
    },
  };
}
