/**
 * stock-out: takes stock out of a product's lots, oldest first (CONTRACT §2), under
 * /functions/v1/stock-out. Any signed-in user or the service key; the database records who.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { inventoryArea } from '../_shared/errors.ts';
import { type Dependencies, route, serveFunction } from '../_shared/http.ts';
import { stockOutHandlers } from './handlers.ts';
import { stockOutBody } from './schemas.ts';

export function createHandler(deps: Dependencies) {
  const handlers = stockOutHandlers(deps.db);
  return serveFunction({
    name: 'stock-out',
    area: inventoryArea,
    routes: [route({ method: 'POST', path: '/', access: 'user', body: stockOutBody, handle: handlers.stockOut })],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
