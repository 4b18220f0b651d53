/**
 * orders: the orders under /functions/v1/orders: the list behind business health's figures, filtered by
 * when they were ordered, status and customer, paged, with a summary of every matching order counted as
 * business health counts it; one order with its goods; placing an order of lines (which reserves them) and
 * moving its status (which moves its goods), for administrators and the store's jobs. Reads follow the
 * tables' RLS (administrators see every order, a customer their own).
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { orderArea } from '../_shared/errors.ts';
import { type Dependencies, on, serveFunction } from '../_shared/http.ts';
import * as routes from './routes.ts';
import { orderHandlers } from './handlers.ts';

import { placeProblem } from './schemas.ts';

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
    endpoints: [
      on(routes.list, handlers.list),
      on(routes.moves, handlers.moves),
      on(routes.read, handlers.read),
      on(routes.place, handlers.place, { problem: placeProblem }),
      on(routes.move, handlers.move),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
