/** campaigns's routes, as `createRoute` declares them: what each takes and answers, for the checks and the document. */
import { createRoute } from '@hono/zod-openapi';
import { answers, jsonBody } from '../_shared/openapi.ts';
import {
  attributionResponse,
  calendarResponse,
  campaignResponse,
  collaborationResponse,
  historyResponse,
  listResponse,
  metricsResponse,
  revenueAttributionResponse,
  statsResponse,
  statusesResponse,
} from './responses.ts';
import { done } from '../_shared/responses.ts';
import {
  attributionQuery,
  batchBody,
  bulkStatusBody,
  campaignPath,
  createBody,
  listQuery,
  rangeQuery,
  updateBody,
} from './schemas.ts';

export const list = createRoute({
  method: 'get',
  path: '/',
  summary: 'List campaigns: search, status and date filters, paged',
  request: { query: listQuery },
  responses: answers(listResponse, { errors: [422] }),
});

export const create = createRoute({
  method: 'post',
  path: '/',
  summary: 'Create a campaign (as draft)',
  request: {
    body: jsonBody(createBody, {
      name: 'Spring sale',
      start_date: '2026-03-01',
      end_date: '2026-03-31',
      budget: 50000,
      campaign_type: 'spring_sale',
    }),
  },
  responses: answers(campaignResponse, { status: 201, errors: [403, 422] }),
});

export const stats = createRoute({
  method: 'get',
  path: '/stats',
  summary: 'Counts by status and budgets',
  responses: answers(statsResponse),
});

export const attribution = createRoute({
  method: 'get',
  path: '/attribution',
  summary: "How a day's attribution (and an order amount) splits across the active campaigns",
  request: { query: attributionQuery },
  responses: answers(attributionResponse),
});

export const calendar = createRoute({
  method: 'get',
  path: '/calendar',
  summary: 'The overlap calendar of a range of days (at most 366), future days included: the campaigns ' +
    'counted on each day with their normalized weights, and its revenue',
  request: { query: rangeQuery },
  responses: answers(calendarResponse, { errors: [422] }),
});

export const collaboration = createRoute({
  method: 'get',
  path: '/collaboration',
  summary: 'The pairs of campaigns counted on the same days of a range (at most 366 days)',
  request: { query: rangeQuery },
  responses: answers(collaborationResponse, { errors: [422] }),
});

export const revenueAttribution = createRoute({
  method: 'get',
  path: '/revenue-attribution',
  summary: 'The revenue attributed to each campaign over a range of days (at most 366)',
  request: { query: rangeQuery },
  responses: answers(revenueAttributionResponse, { errors: [422] }),
});

export const batch = createRoute({
  method: 'post',
  path: '/batch',
  summary: 'Batch operation: move campaigns to a status, all or none',
  request: {
    body: jsonBody(batchBody, {
      action: 'update_status',
      campaign_ids: ['00000000-0000-4000-8000-000000000001'],
      data: { status: 'active' },
    }),
  },
  responses: answers(statusesResponse, { errors: [403, 404, 422] }),
});

export const bulkStatus = createRoute({
  method: 'put',
  path: '/bulk-status',
  summary: 'Move campaigns to a status, all or none',
  request: {
    body: jsonBody(bulkStatusBody, { campaign_ids: ['00000000-0000-4000-8000-000000000001'], status: 'paused' }),
  },
  responses: answers(statusesResponse, { errors: [403, 404, 422] }),
});

export const read = createRoute({
  method: 'get',
  path: '/{id}',
  summary: 'One campaign',
  request: { params: campaignPath },
  responses: answers(campaignResponse, { errors: [404] }),
});

export const update = createRoute({
  method: 'put',
  path: '/{id}',
  summary: 'Change a campaign (only the fields sent), including its status',
  request: { params: campaignPath, body: jsonBody(updateBody, { status: 'active' }) },
  responses: answers(campaignResponse, { errors: [403, 404, 422] }),
});

export const remove = createRoute({
  method: 'delete',
  path: '/{id}',
  summary: 'Delete a campaign (soft: kept for history)',
  request: { params: campaignPath },
  responses: answers(done, { errors: [403, 404] }),
});

export const metrics = createRoute({
  method: 'get',
  path: '/{id}/metrics',
  summary: "A campaign's attributed revenue, days and competition, day by day",
  request: { params: campaignPath },
  responses: answers(metricsResponse, { errors: [404] }),
});

export const history = createRoute({
  method: 'get',
  path: '/{id}/history',
  summary: "A campaign's status history, oldest first: each move with when, by whom and in which role",
  request: { params: campaignPath },
  responses: answers(historyResponse, { errors: [404] }),
});
