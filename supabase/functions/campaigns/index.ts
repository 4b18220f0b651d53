/**
 * campaigns: seed 03 area A under /functions/v1/campaigns (and /api/campaigns locally). Any signed-in
 * caller reads; writes need an administrator, which the database checks in each write function.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { campaignArea } from '../_shared/errors.ts';
import { type Dependencies, on, serveFunction } from '../_shared/http.ts';
import * as routes from './routes.ts';
import { campaignHandlers } from './handlers.ts';

export function createHandler(deps: Dependencies) {
  const handlers = campaignHandlers(deps.db);
  return serveFunction({
    name: 'campaigns',
    title: 'Campaigns',
    description: 'Marketing campaigns, their status machine and revenue attribution (seed 03 area A). Any ' +
      'signed-in caller reads; writes need an administrator.',
    area: campaignArea,
    endpoints: [
      on(routes.list, handlers.list),
      on(routes.create, handlers.create),
      on(routes.stats, handlers.stats),
      on(routes.attribution, handlers.attribution),
      on(routes.calendar, handlers.calendar),
      on(routes.collaboration, handlers.collaboration),
      on(routes.revenueAttribution, handlers.revenueAttribution),
      on(routes.batch, handlers.batch),
      on(routes.bulkStatus, handlers.bulkStatus),
      on(routes.read, handlers.read),
      on(routes.update, handlers.update),
      on(routes.remove, handlers.remove),
      on(routes.metrics, handlers.metrics),
      on(routes.history, handlers.history),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
