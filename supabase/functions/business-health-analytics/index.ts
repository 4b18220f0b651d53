/**
 * business-health-analytics: seed 03 area B under /functions/v1/business-health-analytics. Anonymous
 * callers (the anon key or no header), signed-in users and the service key are all admitted; what they
 * get is scores, never raw figures.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { healthArea } from '../_shared/errors.ts';
import { type Dependencies, route, serveFunction } from '../_shared/http.ts';
import { FUNCTION_NAME, healthHandlers, RATE_LIMITS, REPORT_SLOTS } from './handlers.ts';
import { reportResponse } from './responses.ts';
import { parameterProblem, requestBody } from './schemas.ts';

export function createHandler(deps: Dependencies) {
  const handlers = healthHandlers(deps.db);
  return serveFunction({
    name: FUNCTION_NAME,
    title: 'Business health',
    description: "The store's health report (seed 03 area B): seven 0-10 dimensions, score details, trend and " +
      'insights. Scores only, never amounts; open to anonymous callers, rate limited.',
    area: healthArea,
    routes: [
      route({
        method: 'POST',
        path: '/',
        access: 'public',
        body: requestBody,
        problem: parameterProblem,
        rateLimit: RATE_LIMITS,
        concurrency: REPORT_SLOTS,
        log: true,
        summary: 'Compute the health report for a period',
        response: reportResponse,
        errors: [403, 429],
        example: { period: '30d', includeTrends: true, includeInsights: true },
        handle: handlers.report,
      }),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
