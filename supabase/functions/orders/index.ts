/**
 * orders: the orders under /functions/v1/orders: the list behind business health's figures, filtered by
 * when they were ordered, status and customer, paged, with a summary of every matching order counted as
 * business health counts it; one order with its goods; placing an order of lines (which reserves them) and
 * moving its status (which moves its goods), for administrators and the store's jobs. Reads follow the
 * tables' RLS (administrators see every order, a customer their own).
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { orderArea } from '../_shared/errors.ts';
import { type Dependencies, route, serveFunction } from '../_shared/http.ts';
import { orderHandlers } from './handlers.ts';
import { changedResponse, listResponse, movesResponse, orderResponse } from './responses.ts';
import { listQuery, orderPath, placeBody, placeProblem, statusBody } from './schemas.ts';

export function createHandler(deps: Dependencies) {
  const handlers = orderHandlers(deps.db);
  return serveFunction({
    name: 'orders',
    title: 'Orders',
    description: 'The orders behind business health: filtered by ordered_at window, status and customer, paged ' +
      'and sorted, with a summary of every matching order as business health counts it at as_of; one order with ' +
      'its lines and the lots they drew. Administrators and the service key place orders of lines (reserving ' +
      'their stock) and move their status (shipped draws the goods from the lots, cancelled releases them, ' +
      'refunded may put them back). Administrators see every order, a customer their own (RLS).',
    area: orderArea,
    routes: [
      route({
        method: 'GET',
        path: '/',
        query: listQuery,
        summary: 'List orders: ordered_from/ordered_before window, status, the orders a health figure counts ' +
          "(figure, as of as_of), customer, search (the order's id or reference, the customer's name or e-mail); " +
          'paged, sorted; with totals',
        response: listResponse,
        handle: handlers.list,
      }),
      route({
        method: 'GET',
        path: '/moves',
        summary: 'The status moves an order with lines may make, and what each does to its goods',
        response: movesResponse,
        handle: handlers.moves,
      }),
      route({
        method: 'GET',
        path: '/:id',
        params: orderPath,
        summary: 'One order with its customer, its timeline (placed, shipped, delivered, completed, cancelled) and ' +
          'how many orders the customer has',
        response: orderResponse,
        errors: [404],
        handle: handlers.read,
      }),
      route({
        method: 'POST',
        path: '/',
        body: placeBody,
        problem: placeProblem,
        summary: 'Place an order of lines (1 to 200), reserving their stock, all or nothing; a refused line is named ' +
          'by its index in details.index. Send an Idempotency-Key header to retry safely',
        status: 201,
        response: changedResponse,
        errors: [403, 404, 422],
        example: {
          customer_id: '00000000-0000-4000-8000-000000000001',
          lines: [{ product_id: '00000000-0000-4000-8000-000000000002', quantity: 2, unit_price: 380 }],
          status: 'paid',
        },
        handle: handlers.place,
      }),
      route({
        method: 'PATCH',
        path: '/:id',
        params: orderPath,
        body: statusBody,
        summary:
          "Move an order's status as GET /orders/moves allows; its goods move with it (shipped: drawn from the " +
          'lots; cancelled: released; refunded after shipping: put back with restock: true)',
        response: changedResponse,
        errors: [403, 404, 422],
        example: { status: 'refunded', restock: true },
        handle: handlers.move,
      }),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
