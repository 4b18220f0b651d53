/**
 * campaign-types: the campaign-type catalogue of seed 01 under /functions/v1/campaign-types.
 * Reads are open to any signed-in caller; writes need an administrator (checked again by the database).
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { catalogueArea } from '../_shared/errors.ts';
import { type Dependencies, on, serveFunction } from '../_shared/http.ts';
import * as routes from './routes.ts';
import { catalogueHandlers } from './handlers.ts';

import { catalogueProblem } from './schemas.ts';

export function createHandler(deps: Dependencies) {
  const handlers = catalogueHandlers(deps.db);
  return serveFunction({
    name: 'campaign-types',
    title: 'Campaign-type catalogue',
    description: 'The campaign types and their attribution layers (seed 01). Any signed-in caller reads; ' +
      'writes need an administrator.',
    area: catalogueArea,
    endpoints: [
      on(routes.list, handlers.list),
      on(routes.create, handlers.create, { problem: catalogueProblem }),
      on(routes.groups, handlers.groups),
      on(routes.health, handlers.health, { words: true }),
      on(routes.update, handlers.update, { problem: catalogueProblem }),
      on(routes.deactivate, handlers.deactivate),
      on(routes.validateType, handlers.validateType),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
