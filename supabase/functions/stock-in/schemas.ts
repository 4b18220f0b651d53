/** What stock-in accepts: seed 02's request and CONTRACT §2's limits. */
import { z } from 'zod';
import { enums } from '../_shared/enums.ts';
import { stockQuantity } from '../_shared/inventory.ts';
import { enumOf, isoDateTime, uuid } from '../_shared/validation.ts';

export const stockInBody = z.strictObject({
  product_id: uuid,
  quantity: stockQuantity,
  source: enumOf(enums.stock_in_source).optional(),
  note: z.string('must be a string').max(1000, 'at most 1000 characters').optional(),
  received_at: isoDateTime('must be an ISO 8601 date-time').optional(),
});
