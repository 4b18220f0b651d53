/**
 * stock-in: receives goods into a new inventory record (lot) of a product, seed 02 and CONTRACT §2,
 * under /functions/v1/stock-in. Any signed-in user or the service key; the database records who.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { inventoryArea } from '../_shared/errors.ts';
import { type Dependencies, route, serveFunction } from '../_shared/http.ts';
import { stockInHandlers } from './handlers.ts';
import { stockInBody } from './schemas.ts';

export function createHandler(deps: Dependencies) {
  const handlers = stockInHandlers(deps.db);
  return serveFunction({
    name: 'stock-in',
    area: inventoryArea,
    routes: [route({ method: 'POST', path: '/', access: 'user', body: stockInBody, handle: handlers.stockIn })],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
