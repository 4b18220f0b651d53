/**
 * stock-adjust: corrects stock up or down, by product (FIFO for decreases) or by inventory record,
 * seed 02 and CONTRACT §2, under /functions/v1/stock-adjust. Any signed-in user or the service key.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { inventoryArea } from '../_shared/errors.ts';
import { type Dependencies, on, serveFunction } from '../_shared/http.ts';
import * as routes from './routes.ts';
import { stockAdjustHandlers } from './handlers.ts';

export function createHandler(deps: Dependencies) {
  const handlers = stockAdjustHandlers(deps.db);
  return serveFunction({
    name: 'stock-adjust',
    title: 'Stock adjustment',
    description: 'Stock-adjust (seed 02): correct stock up or down, by product (FIFO for decreases) or by ' +
      'inventory record, with a reason. Send an Idempotency-Key header to retry safely.',
    area: inventoryArea,
    endpoints: [
      on(routes.adjust, handlers.adjust),
      on(routes.reasons, handlers.reasons),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
