/** orders's routes, as `createRoute` declares them: what each takes and answers, for the checks and the document. */
import { createRoute } from '@hono/zod-openapi';
import { answers, jsonBody } from '../_shared/openapi.ts';
import { changedResponse, listResponse, movesResponse, orderResponse } from './responses.ts';
import { listQuery, orderPath, placeBody, statusBody } from './schemas.ts';

export const list = createRoute({
  method: 'get',
  path: '/',
  summary: 'List orders: ordered_from/ordered_before window, status, the orders a health figure counts ' +
    "(figure, as of as_of), customer, search (the order's id or reference, the customer's name or e-mail; " +
    '3 characters or more, a Chinese character counting as 3); ' +
    'paged, sorted; with totals',
  request: { query: listQuery },
  responses: answers(listResponse),
});

export const moves = createRoute({
  method: 'get',
  path: '/moves',
  summary: 'The status moves an order with lines may make, and what each does to its goods',
  responses: answers(movesResponse),
});

export const read = createRoute({
  method: 'get',
  path: '/{id}',
  summary: 'One order with its customer, its timeline (placed, shipped, delivered, completed, cancelled) and ' +
    'how many orders the customer has',
  request: { params: orderPath },
  responses: answers(orderResponse, { errors: [404] }),
});

export const place = createRoute({
  method: 'post',
  path: '/',
  summary: 'Place an order of lines (1 to 200), reserving their stock, all or nothing; a refused line is named ' +
    'by its index in details.index. Send an Idempotency-Key header to retry safely',
  request: {
    body: jsonBody(placeBody, {
      customer_id: '00000000-0000-4000-8000-000000000001',
      lines: [{ product_id: '00000000-0000-4000-8000-000000000002', quantity: 2, unit_price: 380 }],
      status: 'paid',
    }),
  },
  responses: answers(changedResponse, { status: 201, errors: [403, 404, 422] }),
});

export const move = createRoute({
  method: 'patch',
  path: '/{id}',
  summary: "Move an order's status as GET /orders/moves allows; its goods move with it (shipped: drawn from the " +
    'lots; cancelled: released; refunded after shipping: put back with restock: true)',
  request: { params: orderPath, body: jsonBody(statusBody, { status: 'refunded', restock: true }) },
  responses: answers(changedResponse, { errors: [403, 404, 422] }),
});
