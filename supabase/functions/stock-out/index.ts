/**
 * stock-out: takes stock out of a product's lots, oldest first (CONTRACT §2), under
 * /functions/v1/stock-out. Any signed-in user or the service key; the database records who.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { inventoryArea } from '../_shared/errors.ts';
import { type Dependencies, route, serveFunction } from '../_shared/http.ts';
import { stockOutHandlers } from './handlers.ts';
import { stockOutBody } from './schemas.ts';
import { stockOutResponse } from '../_shared/stock-responses.ts';

export function createHandler(deps: Dependencies) {
  const handlers = stockOutHandlers(deps.db);
  return serveFunction({
    name: 'stock-out',
    title: 'Stock-out',
    description: 'Stock-out (CONTRACT §2): take stock out of the lots of a product, oldest first. ' +
      'Send an Idempotency-Key header to retry safely.',
    area: inventoryArea,
    routes: [route({
      method: 'POST',
      path: '/',
      body: stockOutBody,
      summary: 'Take stock out, oldest lots first (FIFO)',
      response: stockOutResponse,
      errors: [404, 422],
      example: { product_id: '00000000-0000-4000-8000-000000000001', quantity: 3, reference: 'order 1042' },
      handle: handlers.stockOut,
    })],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
