/**
 * stock-in: receives goods into a new inventory record (lot) of a product, seed 02 and CONTRACT §2,
 * under /functions/v1/stock-in. Any signed-in user or the service key; the database records who.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { inventoryArea } from '../_shared/errors.ts';
import { type Dependencies, route, serveFunction } from '../_shared/http.ts';
import { stockInHandlers } from './handlers.ts';
import { lineProblem, stockInBatchBody, stockInBody } from './schemas.ts';
import { stockInBatchResponse, stockInResponse } from '../_shared/stock-responses.ts';

export function createHandler(deps: Dependencies) {
  const handlers = stockInHandlers(deps.db);
  return serveFunction({
    name: 'stock-in',
    title: 'Stock-in',
    description: 'Stock-in (seed 02): receive goods into a new lot, or a delivery of several products into a lot ' +
      'each, all or nothing. Send an Idempotency-Key header to retry safely.',
    area: inventoryArea,
    routes: [
      route({
        method: 'POST',
        path: '/',
        body: stockInBody,
        summary: 'Receive stock into a new inventory record (lot)',
        status: 201,
        response: stockInResponse,
        errors: [404, 422],
        example: {
          product_id: '00000000-0000-4000-8000-000000000001',
          quantity: 50,
          source: 'purchase_order',
          lot_number: 'L2026-1126',
          expires_on: '2027-05-31',
        },
        handle: handlers.stockIn,
      }),
      route({
        method: 'POST',
        path: '/batch',
        body: stockInBatchBody,
        problem: lineProblem,
        summary: 'Receive a delivery of several products (1 to 200 lines), a lot each, all or nothing; ' +
          'a refused line is named by its index in details.index',
        status: 201,
        response: stockInBatchResponse,
        errors: [404, 422],
        example: {
          source: 'purchase_order',
          items: [
            {
              product_id: '00000000-0000-4000-8000-000000000001',
              quantity: 24,
              lot_number: 'A-1126',
              expires_on: '2027-05-31',
            },
            { product_id: '00000000-0000-4000-8000-000000000002', quantity: 12 },
          ],
        },
        handle: handlers.stockInBatch,
      }),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
