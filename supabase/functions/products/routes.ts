/** products's routes, as `createRoute` declares them: what each takes and answers, for the checks and the document. */
import { createRoute } from '@hono/zod-openapi';
import { answers, jsonBody } from '../_shared/openapi.ts';
import { done } from '../_shared/responses.ts';
import {
  changedResponse,
  expiringResponse,
  listResponse,
  lotOrdersResponse,
  movementsResponse,
  productResponse,
  stockInsResponse,
  summaryResponse,
} from './responses.ts';
import {
  createBody,
  expiringQuery,
  listQuery,
  lotPath,
  movementsQuery,
  productPath,
  stockInsQuery,
  summaryQuery,
  updateBody,
} from './schemas.ts';

export const list = createRoute({
  method: 'get',
  path: '/',
  summary:
    'List products with their current stock: search, stock status, low-stock and active filters, paged and sorted',
  request: { query: listQuery },
  responses: answers(listResponse),
});

export const create = createRoute({
  method: 'post',
  path: '/',
  summary: 'Create a product (administrators and the service key)',
  request: {
    body: jsonBody(createBody, { sku: 'TEA-OOLONG-150', name: 'Alishan Oolong Tea 150 g', reorder_level: 20 }),
  },
  responses: answers(changedResponse, { status: 201, errors: [403, 409] }),
});

export const expiring = createRoute({
  method: 'get',
  path: '/expiring',
  summary: 'Lots with stock left that expire within within_days store days (default 30) or have expired, ' +
    'soonest first, paged',
  request: { query: expiringQuery },
  responses: answers(expiringResponse),
});

export const summary = createRoute({
  method: 'get',
  path: '/summary',
  summary: 'How many active products are out of stock and low on stock, and how many lots expire within 30 days',
  request: { query: summaryQuery },
  responses: answers(summaryResponse),
});

export const read = createRoute({
  method: 'get',
  path: '/{id}',
  summary: 'One product with its lots (those the caller may see), in the order a sale draws them (its allocation)',
  request: { params: productPath },
  responses: answers(productResponse, { errors: [404] }),
});

export const update = createRoute({
  method: 'put',
  path: '/{id}',
  summary: 'Change a product (only the fields sent): sku, name, is_active, reorder_level',
  request: { params: productPath, body: jsonBody(updateBody, { is_active: false }) },
  responses: answers(changedResponse, { errors: [403, 404, 409] }),
});

export const remove = createRoute({
  method: 'delete',
  path: '/{id}',
  summary: 'Delete a product (soft: kept for the ledger, deactivated); refused while it holds stock',
  request: { params: productPath },
  responses: answers(done, { errors: [403, 404, 422] }),
});

export const movements = createRoute({
  method: 'get',
  path: '/{id}/movements',
  summary: "The product's movement ledger, newest first, paged: who, why, delta, stock before and after",
  request: { params: productPath, query: movementsQuery },
  responses: answers(movementsResponse, { errors: [404] }),
});

export const lotOrders = createRoute({
  method: 'get',
  path: '/{id}/lots/{lot}/orders',
  summary: 'The recall question: the orders (and their customers) that received units of one lot, newest ' +
    'shipped first, paged; administrators only see them (RLS)',
  request: { params: lotPath, query: stockInsQuery },
  responses: answers(lotOrdersResponse, { errors: [404] }),
});

export const stockIns = createRoute({
  method: 'get',
  path: '/{id}/stock-ins',
  summary: "The product's stock-in history, newest first, paged",
  request: { params: productPath, query: stockInsQuery },
  responses: answers(stockInsResponse, { errors: [404] }),
});
