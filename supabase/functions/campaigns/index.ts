/**
 * campaigns: seed 03 area A under /functions/v1/campaigns (and /api/campaigns locally). Any signed-in
 * caller reads; writes need an administrator, which the database checks in each write function.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { campaignArea } from '../_shared/errors.ts';
import { type Dependencies, route, serveFunction } from '../_shared/http.ts';
import { campaignHandlers } from './handlers.ts';
import {
  attributionQuery,
  batchBody,
  bulkStatusBody,
  campaignPath,
  createBody,
  listQuery,
  updateBody,
} from './schemas.ts';

export function createHandler(deps: Dependencies) {
  const handlers = campaignHandlers(deps.db);
  return serveFunction({
    name: 'campaigns',
    area: campaignArea,
    routes: [
      route({ method: 'GET', path: '/', access: 'user', query: listQuery, handle: handlers.list }),
      route({ method: 'POST', path: '/', access: 'user', body: createBody, handle: handlers.create }),
      route({ method: 'GET', path: '/stats', access: 'user', handle: handlers.stats }),
      route({
        method: 'GET',
        path: '/attribution',
        access: 'user',
        query: attributionQuery,
        handle: handlers.attribution,
      }),
      route({ method: 'POST', path: '/batch', access: 'user', body: batchBody, handle: handlers.batch }),
      route({ method: 'PUT', path: '/bulk-status', access: 'user', body: bulkStatusBody, handle: handlers.bulkStatus }),
      route({ method: 'GET', path: '/:id', access: 'user', params: campaignPath, handle: handlers.read }),
      route({
        method: 'PUT',
        path: '/:id',
        access: 'user',
        params: campaignPath,
        body: updateBody,
        handle: handlers.update,
      }),
      route({ method: 'DELETE', path: '/:id', access: 'user', params: campaignPath, handle: handlers.remove }),
      route({ method: 'GET', path: '/:id/metrics', access: 'user', params: campaignPath, handle: handlers.metrics }),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
