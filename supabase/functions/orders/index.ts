/**
 * orders: the orders under /functions/v1/orders, read-only: the list behind business health's figures,
 * filtered by when they were ordered, status and customer, paged, with a summary of every matching order
 * counted as business health counts it. Reads follow the tables' RLS (administrators see every order, a
 * customer their own); orders are written by the store's own jobs, not here.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { orderArea } from '../_shared/errors.ts';
import { type Dependencies, route, serveFunction } from '../_shared/http.ts';
import { orderHandlers } from './handlers.ts';
import { listResponse, orderResponse } from './responses.ts';
import { listQuery, orderPath } from './schemas.ts';

export function createHandler(deps: Dependencies) {
  const handlers = orderHandlers(deps.db);
  return serveFunction({
    name: 'orders',
    title: 'Orders',
    description: 'The orders behind business health (read-only): filtered by ordered_at window, status and ' +
      'customer, paged and sorted, with a summary of every matching order as business health counts it at ' +
      'as_of. Administrators see every order, a customer their own (RLS).',
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
        path: '/:id',
        params: orderPath,
        summary: 'One order with its customer, its timeline (placed, shipped, delivered, completed, cancelled) and ' +
          'how many orders the customer has',
        response: orderResponse,
        errors: [404],
        handle: handlers.read,
      }),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
