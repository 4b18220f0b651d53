/**
 * stock-adjust: corrects stock up or down, by product (FIFO for decreases) or by inventory record,
 * seed 02 and CONTRACT §2, under /functions/v1/stock-adjust. Any signed-in user or the service key.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { inventoryArea } from '../_shared/errors.ts';
import { type Dependencies, route, serveFunction } from '../_shared/http.ts';
import { stockAdjustHandlers } from './handlers.ts';
import { stockAdjustBody } from './schemas.ts';
import { stockAdjustReasonsResponse, stockAdjustResponse } from '../_shared/stock-responses.ts';

export function createHandler(deps: Dependencies) {
  const handlers = stockAdjustHandlers(deps.db);
  return serveFunction({
    name: 'stock-adjust',
    title: 'Stock adjustment',
    description: 'Stock-adjust (seed 02): correct stock up or down, by product (FIFO for decreases) or by ' +
      'inventory record, with a reason. Send an Idempotency-Key header to retry safely.',
    area: inventoryArea,
    routes: [
      route({
        method: 'POST',
        path: '/',
        body: stockAdjustBody,
        summary: 'Adjust stock with a reason',
        response: stockAdjustResponse,
        errors: [404, 422],
        example: { product_id: '00000000-0000-4000-8000-000000000001', adjust_quantity: -2, reason: 'damage_writeoff' },
        handle: handlers.adjust,
      }),
      route({
        method: 'GET',
        path: '/reasons',
        summary: 'The adjustment reasons: which way each may move stock and whether it needs a note',
        response: stockAdjustReasonsResponse,
        handle: handlers.reasons,
      }),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
