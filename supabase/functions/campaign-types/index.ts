/**
 * campaign-types: the campaign-type catalogue of seed 01 under /functions/v1/campaign-types.
 * Reads are open to any signed-in caller; writes need an administrator (checked again by the database).
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { catalogueArea } from '../_shared/errors.ts';
import { type Dependencies, serveFunction } from '../_shared/http.ts';
import { catalogueHandlers } from './handlers.ts';

export function createHandler(deps: Dependencies) {
  const handlers = catalogueHandlers(deps.db);
  return serveFunction({
    name: 'campaign-types',
    area: catalogueArea,
    routes: [
      { method: 'GET', path: '/', access: 'user', handle: handlers.list },
      { method: 'POST', path: '/', access: 'user', handle: handlers.create },
      { method: 'GET', path: '/groups', access: 'user', handle: handlers.groups },
      { method: 'GET', path: '/health', access: 'user', handle: handlers.health },
      { method: 'PUT', path: '/:type_code', access: 'user', handle: handlers.update },
      { method: 'DELETE', path: '/:type_code', access: 'user', handle: handlers.deactivate },
      { method: 'POST', path: '/:type_code/validate', access: 'user', handle: handlers.validateType },
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
