/** What stock-in answers (seed 02, CONTRACT §2), for the OpenAPI document. */
import { z } from 'zod';
import { day, timestamp } from '../_shared/responses.ts';

/** What a unit of the lot cost (TWD), when the delivery said: shipped lines cost what their lots cost. */
const unitCost = z.number().nullable().describe('What one unit of the lot cost (TWD); null when not given');

export const stockInResponse = z.object({
  success: z.literal(true),
  inventory_id: z.guid(),
  product_id: z.guid(),
  quantity: z.number().int(),
  current_stock: z.number().int(),
  source: z.string(),
  received_at: timestamp,
  lot_number: z.string().nullable(),
  expires_on: day.nullable(),
  unit_cost: unitCost,
  message: z.string(),
});

export const stockInBatchResponse = z.object({
  success: z.literal(true),
  items: z.array(z.object({
    inventory_id: z.guid(),
    product_id: z.guid(),
    quantity: z.number().int(),
    lot_number: z.string().nullable(),
    expires_on: day.nullable(),
    unit_cost: unitCost,
    current_stock: z.number().int().describe("The product's stock after this line"),
  })).describe('One per line, in the order sent'),
  source: z.string(),
  received_at: timestamp,
  message: z.string(),
});
