/**
 * campaigns: seed 03 area A under /functions/v1/campaigns (and /api/campaigns locally). Any signed-in
 * caller reads; writes need an administrator, which the database checks in each write function.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { campaignArea } from '../_shared/errors.ts';
import { type Dependencies, serveFunction } from '../_shared/http.ts';
import { campaignHandlers } from './handlers.ts';

export function createHandler(deps: Dependencies) {
  const handlers = campaignHandlers(deps.db);
  return serveFunction({
    name: 'campaigns',
    area: campaignArea,
    routes: [
      { method: 'GET', path: '/', access: 'user', handle: handlers.list },
      { method: 'POST', path: '/', access: 'user', handle: handlers.create },
      { method: 'GET', path: '/stats', access: 'user', handle: handlers.stats },
      { method: 'GET', path: '/attribution', access: 'user', handle: handlers.attribution },
      { method: 'POST', path: '/batch', access: 'user', handle: handlers.batch },
      { method: 'PUT', path: '/bulk-status', access: 'user', handle: handlers.bulkStatus },
      { method: 'GET', path: '/:id', access: 'user', handle: handlers.read },
      { method: 'PUT', path: '/:id', access: 'user', handle: handlers.update },
      { method: 'DELETE', path: '/:id', access: 'user', handle: handlers.remove },
      { method: 'GET', path: '/:id/metrics', access: 'user', handle: handlers.metrics },
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
