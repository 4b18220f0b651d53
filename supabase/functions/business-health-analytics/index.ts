/**
 * business-health-analytics: seed 03 area B under /functions/v1/business-health-analytics. Anonymous
 * callers (the anon key or no header), signed-in users and the service key are all admitted to the report;
 * what they get is scores, never raw figures. The figures behind them (GET /figures) are for
 * administrators only.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { healthArea } from '../_shared/errors.ts';
import { type Dependencies, route, type RouteOptions, serveFunction } from '../_shared/http.ts';
import { FUNCTION_NAME, healthHandlers, RATE_LIMITS, REPORT_SLOTS } from './handlers.ts';
import { daysResponse, figuresResponse, reportResponse, reportResponse2 } from './responses.ts';
import { daysQuery, figuresQuery, parameterProblem, parameterProblem2, requestBody, requestBody2 } from './schemas.ts';

export function createHandler(deps: Dependencies) {
  const handlers = healthHandlers(deps.db);
  // The report in either version: the same route but for its body, answer and handler.
  const report: RouteOptions = {
    method: 'POST',
    path: '/',
    access: 'public',
    problem: parameterProblem,
    rateLimit: RATE_LIMITS,
    concurrency: REPORT_SLOTS,
    log: true,
    summary: 'Compute the health report for a period (its words in English with Accept-Language: en)',
    response: reportResponse,
    errors: [403, 429],
    example: { period: '30d', includeTrends: true, includeInsights: true },
  };
  return serveFunction({
    name: FUNCTION_NAME,
    title: 'Business health',
    description: "The store's health report (seed 03 area B): seven 0-10 dimensions, score details, trend and " +
      'insights. Scores only, never amounts; open to anonymous callers, rate limited. The figures behind the ' +
      'scores (amounts) are a separate route for administrators.',
    area: healthArea,
    routes: [
      route({ ...report, body: requestBody, handle: handlers.report }),
      route({
        ...report,
        version: '2.0',
        body: requestBody2,
        problem: parameterProblem2,
        example: { period: 'custom', from: '2026-10-01', to: '2026-10-31', compare: 'last_year' },
        summary: "Version 2.0 adds the marketing score from the campaigns' return (ROAS), explained in " +
          '`marketingDetails`, and insights naming campaigns',
        response: reportResponse2,
        handle: handlers.report2,
      }),
      route({
        method: 'GET',
        path: '/figures',
        query: figuresQuery,
        concurrency: REPORT_SLOTS,
        summary:
          'The figures behind the scores (administrators): revenue, orders, customers, tickets and campaigns of ' +
          'the period and the one before it, each as it stood at its end (a custom period: as its store days stand now)',
        response: figuresResponse,
        errors: [403],
        handle: handlers.figures,
      }),
      route({
        method: 'GET',
        path: '/days',
        query: daysQuery,
        concurrency: REPORT_SLOTS,
        summary: "Today so far and yesterday (administrators): each store day's revenue, counted, placed, " +
          "completed and cancelled orders, as it stood at its end, in the store's time zone",
        response: daysResponse,
        errors: [403],
        handle: handlers.days,
      }),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
