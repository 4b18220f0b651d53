/**
 * campaign-types: the campaign-type catalogue of seed 01 under /functions/v1/campaign-types.
 * Reads are open to any signed-in caller; writes need an administrator (checked again by the database).
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { catalogueArea } from '../_shared/errors.ts';
import { type Dependencies, route, serveFunction } from '../_shared/http.ts';
import { catalogueHandlers } from './handlers.ts';
import { changedResponse, groupsResponse, healthResponse, listResponse, validateResponse } from './responses.ts';
import { catalogueProblem, createBody, listQuery, typeCodePath, updateBody } from './schemas.ts';
import { done } from '../_shared/responses.ts';

export function createHandler(deps: Dependencies) {
  const handlers = catalogueHandlers(deps.db);
  return serveFunction({
    name: 'campaign-types',
    title: 'Campaign-type catalogue',
    description: 'The campaign types and their attribution layers (seed 01). Any signed-in caller reads; ' +
      'writes need an administrator.',
    area: catalogueArea,
    routes: [
      route({
        method: 'GET',
        path: '/',
        query: listQuery,
        summary: 'List campaign types, paged and sorted',
        response: listResponse,
        handle: handlers.list,
      }),
      route({
        method: 'POST',
        path: '/',
        body: createBody,
        problem: catalogueProblem,
        summary: 'Create a campaign type',
        status: 201,
        response: changedResponse,
        errors: [403, 409],
        example: {
          type_code: 'spring_sale',
          display_name_zh: '春季特賣',
          attribution_layer: 'site-wide',
          default_weight: 1.5,
        },
        handle: handlers.create,
      }),
      route({
        method: 'GET',
        path: '/groups',
        summary: 'Active types grouped by attribution layer',
        response: groupsResponse,
        handle: handlers.groups,
      }),
      route({
        method: 'GET',
        path: '/health',
        summary: "The catalogue's health: layer coverage, activity, recommendations",
        response: healthResponse,
        handle: handlers.health,
      }),
      route({
        method: 'PUT',
        path: '/:type_code',
        params: typeCodePath,
        body: updateBody,
        problem: catalogueProblem,
        summary: 'Change a campaign type (only the fields sent)',
        response: changedResponse,
        errors: [403, 404],
        example: { default_weight: 2, is_active: true },
        handle: handlers.update,
      }),
      route({
        method: 'DELETE',
        path: '/:type_code',
        params: typeCodePath,
        summary: 'Deactivate a campaign type (kept for the campaigns that use it)',
        response: done,
        errors: [403, 404],
        handle: handlers.deactivate,
      }),
      // An invalid code is a verdict (200, is_valid false), not a 400, so the handler checks it.
      route({
        method: 'POST',
        path: '/:type_code/validate',
        params: typeCodePath,
        summary: 'Whether a code names an active campaign type',
        response: validateResponse,
        handle: handlers.validateType,
      }),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
