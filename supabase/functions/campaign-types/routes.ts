/** campaign-types's routes, as `createRoute` declares them: what each takes and answers, for the checks and the document. */
import { createRoute } from '@hono/zod-openapi';
import { answers, jsonBody } from '../_shared/openapi.ts';
import { changedResponse, groupsResponse, healthResponse, listResponse, validateResponse } from './responses.ts';
import { createBody, listQuery, typeCodePath, updateBody } from './schemas.ts';
import { done } from '../_shared/responses.ts';

export const list = createRoute({
  method: 'get',
  path: '/',
  summary: 'List campaign types, paged and sorted',
  request: { query: listQuery },
  responses: answers(listResponse),
});

export const create = createRoute({
  method: 'post',
  path: '/',
  summary: 'Create a campaign type',
  request: {
    body: jsonBody(createBody, {
      type_code: 'spring_sale',
      display_name_zh: '春季特賣',
      attribution_layer: 'site-wide',
      default_weight: 1.5,
    }),
  },
  responses: answers(changedResponse, { status: 201, errors: [403, 409] }),
});

export const groups = createRoute({
  method: 'get',
  path: '/groups',
  summary: 'Active types grouped by attribution layer',
  responses: answers(groupsResponse),
});

export const health = createRoute({
  method: 'get',
  path: '/health',
  summary: "The catalogue's health: layer coverage, activity, recommendations",
  responses: answers(healthResponse),
});

export const update = createRoute({
  method: 'put',
  path: '/{type_code}',
  summary: 'Change a campaign type (only the fields sent)',
  request: { params: typeCodePath, body: jsonBody(updateBody, { default_weight: 2, is_active: true }) },
  responses: answers(changedResponse, { errors: [403, 404] }),
});

export const deactivate = createRoute({
  method: 'delete',
  path: '/{type_code}',
  summary: 'Deactivate a campaign type (kept for the campaigns that use it)',
  request: { params: typeCodePath },
  responses: answers(done, { errors: [403, 404] }),
});

// An invalid code is a verdict (200, is_valid false), not a 400, so the handler checks it.
export const validateType = createRoute({
  method: 'post',
  path: '/{type_code}/validate',
  summary: 'Whether a code names an active campaign type',
  request: { params: typeCodePath },
  responses: answers(validateResponse),
});
