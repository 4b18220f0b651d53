/**
 * stock-out: takes stock out of a product's lots, oldest first (CONTRACT §2), under
 * /functions/v1/stock-out. Any signed-in user or the service key; the database records who.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { inventoryArea } from '../_shared/errors.ts';
import { type Dependencies, on, serveFunction } from '../_shared/http.ts';
import * as routes from './routes.ts';
import { stockOutHandlers } from './handlers.ts';

export function createHandler(deps: Dependencies) {
  const handlers = stockOutHandlers(deps.db);
  return serveFunction({
    name: 'stock-out',
    title: 'Stock-out',
    description: 'Stock-out (CONTRACT §2): take stock out of the lots of a product, oldest first. ' +
      'Send an Idempotency-Key header to retry safely.',
    area: inventoryArea,
    endpoints: [
      on(routes.stockOut, handlers.stockOut),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
