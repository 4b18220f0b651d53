/** What stock-out answers (CONTRACT §2), for the OpenAPI document. */
import { z } from 'zod';
import { allocations } from '../_shared/inventory.ts';

export const stockOutResponse = z.object({
  success: z.literal(true),
  product_id: z.guid(),
  quantity: z.number().int(),
  reference: z.string().nullable(),
  allocations,
  previous_available_stock: z.number().int(),
  current_stock: z.number().int(),
  message: z.string(),
});
