/** stock-adjust's routes, as `createRoute` declares them: what each takes and answers, for the checks and the document. */
import { createRoute } from '@hono/zod-openapi';
import { answers, jsonBody } from '../_shared/openapi.ts';
import { stockAdjustReasonsResponse, stockAdjustResponse } from './responses.ts';
import { stockAdjustBody } from './schemas.ts';

export const adjust = createRoute({
  method: 'post',
  path: '/',
  summary: 'Adjust stock with a reason',
  request: {
    body: jsonBody(stockAdjustBody, {
      product_id: '00000000-0000-4000-8000-000000000001',
      adjust_quantity: -2,
      reason: 'damage_writeoff',
    }),
  },
  responses: answers(stockAdjustResponse, { errors: [404, 422] }),
});

export const reasons = createRoute({
  method: 'get',
  path: '/reasons',
  summary: 'The adjustment reasons: which way each may move stock and whether it needs a note',
  responses: answers(stockAdjustReasonsResponse),
});
