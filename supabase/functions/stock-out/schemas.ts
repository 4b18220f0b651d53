/** What stock-out accepts (CONTRACT §2: product, quantity, an optional reference such as an order number). */
import { z } from 'zod';
import { stockQuantity } from '../_shared/inventory.ts';
import { uuid } from '../_shared/validation.ts';

export const stockOutBody = z.strictObject({
  product_id: uuid,
  quantity: stockQuantity,
  reference: z.string('must be a string').max(200, 'at most 200 characters').optional(),
});
