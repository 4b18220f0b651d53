/** stock-out's routes, as `createRoute` declares them: what each takes and answers, for the checks and the document. */
import { createRoute } from '@hono/zod-openapi';
import { answers, jsonBody } from '../_shared/openapi.ts';
import { stockOutResponse } from './responses.ts';
import { stockOutBody } from './schemas.ts';

export const stockOut = createRoute({
  method: 'post',
  path: '/',
  summary: 'Take stock out, oldest lots first (FIFO)',
  request: {
    body: jsonBody(stockOutBody, {
      product_id: '00000000-0000-4000-8000-000000000001',
      quantity: 3,
      reference: 'order 1042',
    }),
  },
  responses: answers(stockOutResponse, { errors: [404, 422] }),
});
