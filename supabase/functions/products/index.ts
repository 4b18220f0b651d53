/**
 * products: the products and their stock under /functions/v1/products: the list with current stock,
 * one product with its lots, its movement ledger and stock-in history; create, update and delete for
 * administrators and the service key. Reads follow the tables' RLS; each write is one SQL function.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { inventoryArea } from '../_shared/errors.ts';
import { type Dependencies, on, serveFunction } from '../_shared/http.ts';
import * as routes from './routes.ts';

import { productHandlers } from './handlers.ts';

export function createHandler(deps: Dependencies) {
  const handlers = productHandlers(deps.db);
  return serveFunction({
    name: 'products',
    title: 'Products',
    description: 'Products and their stock (seed 02): the list with current stock, lots, the movement ledger ' +
      'and the stock-in history, as the RLS of the tables lets the caller see them; create, update and ' +
      'delete for administrators and the service key.',
    area: inventoryArea,
    endpoints: [
      on(routes.list, handlers.list),
      on(routes.create, handlers.create),
      on(routes.expiring, handlers.expiring),
      on(routes.summary, handlers.summary),
      on(routes.read, handlers.read),
      on(routes.update, handlers.update),
      on(routes.remove, handlers.remove),
      on(routes.movements, handlers.movements),
      on(routes.lotOrders, handlers.lotOrders),
      on(routes.stockIns, handlers.stockIns),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
