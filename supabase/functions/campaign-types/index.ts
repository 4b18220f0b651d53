/**
 * campaign-types: the campaign-type catalogue of seed 01 under /functions/v1/campaign-types.
 * Reads are open to any signed-in caller; writes need an administrator (checked again by the database).
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { catalogueArea } from '../_shared/errors.ts';
import { type Dependencies, route, serveFunction } from '../_shared/http.ts';
import { catalogueHandlers } from './handlers.ts';
import { catalogueProblem, createBody, listQuery, updateBody } from './schemas.ts';

export function createHandler(deps: Dependencies) {
  const handlers = catalogueHandlers(deps.db);
  return serveFunction({
    name: 'campaign-types',
    area: catalogueArea,
    routes: [
      route({ method: 'GET', path: '/', access: 'user', query: listQuery, handle: handlers.list }),
      route({
        method: 'POST',
        path: '/',
        access: 'user',
        body: createBody,
        problem: catalogueProblem,
        handle: handlers.create,
      }),
      route({ method: 'GET', path: '/groups', access: 'user', handle: handlers.groups }),
      route({ method: 'GET', path: '/health', access: 'user', handle: handlers.health }),
      route({
        method: 'PUT',
        path: '/:type_code',
        access: 'user',
        body: updateBody,
        problem: catalogueProblem,
        handle: handlers.update,
      }),
      route({ method: 'DELETE', path: '/:type_code', access: 'user', handle: handlers.deactivate }),
      // An invalid code is a verdict (200, is_valid false), not a 400, so the handler checks it.
      route({ method: 'POST', path: '/:type_code/validate', access: 'user', handle: handlers.validateType }),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
