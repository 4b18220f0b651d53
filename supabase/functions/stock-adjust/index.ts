/**
 * stock-adjust: corrects stock up or down, by product (FIFO for decreases) or by inventory record,
 * seed 02 and CONTRACT §2, under /functions/v1/stock-adjust. Any signed-in user or the service key.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { inventoryArea } from '../_shared/errors.ts';
import { type Dependencies, route, serveFunction } from '../_shared/http.ts';
import { stockAdjustHandlers } from './handlers.ts';
import { stockAdjustBody } from './schemas.ts';

export function createHandler(deps: Dependencies) {
  const handlers = stockAdjustHandlers(deps.db);
  return serveFunction({
    name: 'stock-adjust',
    area: inventoryArea,
    routes: [route({ method: 'POST', path: '/', access: 'user', body: stockAdjustBody, handle: handlers.adjust })],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
