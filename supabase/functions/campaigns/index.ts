/**
 * campaigns: seed 03 area A under /functions/v1/campaigns (and /api/campaigns locally). Any signed-in
 * caller reads; writes need an administrator, which the database checks in each write function.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { campaignArea } from '../_shared/errors.ts';
import { type Dependencies, route, serveFunction } from '../_shared/http.ts';
import { campaignHandlers } from './handlers.ts';
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

export function createHandler(deps: Dependencies) {
  const handlers = campaignHandlers(deps.db);
  return serveFunction({
    name: 'campaigns',
    title: 'Campaigns',
    description: 'Marketing campaigns, their status machine and revenue attribution (seed 03 area A). Any ' +
      'signed-in caller reads; writes need an administrator.',
    area: campaignArea,
    routes: [
      route({
        method: 'GET',
        path: '/',
        query: listQuery,
        summary: 'List campaigns: search, status and date filters, paged',
        response: listResponse,
        errors: [422],
        handle: handlers.list,
      }),
      route({
        method: 'POST',
        path: '/',
        body: createBody,
        summary: 'Create a campaign (as draft)',
        status: 201,
        response: campaignResponse,
        errors: [403, 422],
        example: {
          name: 'Spring sale',
          start_date: '2026-03-01',
          end_date: '2026-03-31',
          budget: 50000,
          campaign_type: 'spring_sale',
        },
        handle: handlers.create,
      }),
      route({
        method: 'GET',
        path: '/stats',
        summary: 'Counts by status and budgets',
        response: statsResponse,
        handle: handlers.stats,
      }),
      route({
        method: 'GET',
        path: '/attribution',
        query: attributionQuery,
        summary: "How a day's attribution (and an order amount) splits across the active campaigns",
        response: attributionResponse,
        handle: handlers.attribution,
      }),
      route({
        method: 'GET',
        path: '/calendar',
        query: rangeQuery,
        summary: 'The overlap calendar of a range of days (at most 366), future days included: the campaigns ' +
          'counted on each day with their normalized weights, and its revenue',
        response: calendarResponse,
        errors: [422],
        handle: handlers.calendar,
      }),
      route({
        method: 'GET',
        path: '/collaboration',
        query: rangeQuery,
        summary: 'The pairs of campaigns counted on the same days of a range (at most 366 days)',
        response: collaborationResponse,
        errors: [422],
        handle: handlers.collaboration,
      }),
      route({
        method: 'GET',
        path: '/revenue-attribution',
        query: rangeQuery,
        summary: 'The revenue attributed to each campaign over a range of days (at most 366)',
        response: revenueAttributionResponse,
        errors: [422],
        handle: handlers.revenueAttribution,
      }),
      route({
        method: 'POST',
        path: '/batch',
        body: batchBody,
        summary: 'Batch operation: move campaigns to a status, all or none',
        response: statusesResponse,
        errors: [403, 404, 422],
        example: {
          action: 'update_status',
          campaign_ids: ['00000000-0000-4000-8000-000000000001'],
          data: { status: 'active' },
        },
        handle: handlers.batch,
      }),
      route({
        method: 'PUT',
        path: '/bulk-status',
        body: bulkStatusBody,
        summary: 'Move campaigns to a status, all or none',
        response: statusesResponse,
        errors: [403, 404, 422],
        example: { campaign_ids: ['00000000-0000-4000-8000-000000000001'], status: 'paused' },
        handle: handlers.bulkStatus,
      }),
      route({
        method: 'GET',
        path: '/:id',
        params: campaignPath,
        summary: 'One campaign',
        response: campaignResponse,
        errors: [404],
        handle: handlers.read,
      }),
      route({
        method: 'PUT',
        path: '/:id',
        params: campaignPath,
        body: updateBody,
        summary: 'Change a campaign (only the fields sent), including its status',
        response: campaignResponse,
        errors: [403, 404, 422],
        example: { status: 'active' },
        handle: handlers.update,
      }),
      route({
        method: 'DELETE',
        path: '/:id',
        params: campaignPath,
        summary: 'Delete a campaign (soft: kept for history)',
        response: done,
        errors: [403, 404],
        handle: handlers.remove,
      }),
      route({
        method: 'GET',
        path: '/:id/metrics',
        params: campaignPath,
        summary: "A campaign's attributed revenue, days and competition, day by day",
        response: metricsResponse,
        errors: [404],
        handle: handlers.metrics,
      }),
      route({
        method: 'GET',
        path: '/:id/history',
        params: campaignPath,
        summary: "A campaign's status history, oldest first: each move with when, by whom and in which role",
        response: historyResponse,
        errors: [404],
        handle: handlers.history,
      }),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
