/**
 * stock-in: receives goods into a new inventory record (lot) of a product, seed 02 and CONTRACT §2,
 * under /functions/v1/stock-in. Any signed-in user or the service key; the database records who.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { inventoryArea } from '../_shared/errors.ts';
import { type Dependencies, on, serveFunction } from '../_shared/http.ts';
import { stockInHandlers } from './handlers.ts';
import { stockIn, stockInBatch } from './routes.ts';
import { lineProblem } from './schemas.ts';

export function createHandler(deps: Dependencies) {
  const handlers = stockInHandlers(deps.db);
  return serveFunction({
    name: 'stock-in',
    title: 'Stock-in',
    description: 'Stock-in (seed 02): receive goods into a new lot, or a delivery of several products into a lot ' +
      'each, all or nothing. Send an Idempotency-Key header to retry safely.',
    area: inventoryArea,
    endpoints: [
      on(stockIn, handlers.stockIn),
      on(stockInBatch, handlers.stockInBatch, { problem: lineProblem }),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
