/**
 * stock-adjust: corrects stock up or down, by product (FIFO for decreases) or by inventory record,
 * seed 02 and CONTRACT §2, under /functions/v1/stock-adjust. Any signed-in user or the service key.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { inventoryArea } from '../_shared/errors.ts';
import { type Dependencies, serveFunction } from '../_shared/http.ts';
import { stockAdjustHandlers } from './handlers.ts';

export function createHandler(deps: Dependencies) {
  const handlers = stockAdjustHandlers(deps.db);
  return serveFunction({
    name: 'stock-adjust',
    area: inventoryArea,
    routes: [{ method: 'POST', path: '/', access: 'user', handle: handlers.adjust }],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
