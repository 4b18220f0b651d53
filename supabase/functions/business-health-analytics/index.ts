/**
 * business-health-analytics: seed 03 area B under /functions/v1/business-health-analytics. Anonymous
 * callers (the anon key or no header), signed-in users and the service key are all admitted to the report;
 * what they get is scores, never raw figures. The figures behind them (GET /figures) are for
 * administrators only.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { healthArea } from '../_shared/errors.ts';
import { type Dependencies, on, type RouteOptions, serveFunction } from '../_shared/http.ts';
import { FUNCTION_NAME, healthHandlers, RATE_LIMITS, REPORT_SLOTS } from './handlers.ts';
import * as routes from './routes.ts';
import { parameterProblem, parameterProblem2 } from './schemas.ts';

export function createHandler(deps: Dependencies) {
  const handlers = healthHandlers(deps.db);
  // The report in either version is served alike: open, rate limited, queued, logged.
  const report: RouteOptions = {
    access: 'public',
    rateLimit: RATE_LIMITS,
    concurrency: REPORT_SLOTS,
    log: true,
    words: true,
  };
  return serveFunction({
    name: FUNCTION_NAME,
    title: 'Business health',
    description: "The store's health report (seed 03 area B): seven 0-10 dimensions, score details, trend and " +
      'insights. Scores only, never amounts; open to anonymous callers, rate limited. The figures behind the ' +
      'scores (amounts) are a separate route for administrators.',
    area: healthArea,
    endpoints: [
      on(routes.report, handlers.report, { ...report, problem: parameterProblem }),
      on(routes.report2, handlers.report2, { ...report, problem: parameterProblem2, version: '2.0' }),
      on(routes.figures, handlers.figures, { concurrency: REPORT_SLOTS }),
      on(routes.days, handlers.days, { concurrency: REPORT_SLOTS }),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
