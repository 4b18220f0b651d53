/** stock-in's routes: one lot, or a delivery of several products, a lot each. */
import { createRoute } from '@hono/zod-openapi';
import { answers, jsonBody } from '../_shared/openapi.ts';
import { stockInBatchResponse, stockInResponse } from './responses.ts';
import { stockInBatchBody, stockInBody } from './schemas.ts';

export const stockIn = createRoute({
  method: 'post',
  path: '/',
  summary: 'Receive stock into a new inventory record (lot)',
  request: {
    body: jsonBody(stockInBody, {
      product_id: '00000000-0000-4000-8000-000000000001',
      quantity: 50,
      source: 'purchase_order',
      lot_number: 'L2026-1126',
      expires_on: '2027-05-31',
    }),
  },
  responses: answers(stockInResponse, { status: 201, errors: [404, 422] }),
});

export const stockInBatch = createRoute({
  method: 'post',
  path: '/batch',
  summary: 'Receive a delivery of several products (1 to 200 lines), a lot each, all or nothing; ' +
    'a refused line is named by its index in details.index',
  request: {
    body: jsonBody(stockInBatchBody, {
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
    }),
  },
  responses: answers(stockInBatchResponse, { status: 201, errors: [404, 422] }),
});
