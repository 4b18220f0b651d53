/** What the stock functions share: the quantity rule, and the lots a decrease drew from. */
import { z } from 'zod';

export const MAX_STOCK_QUANTITY = 1_000_000_000;

export const stockQuantity = z
  .number('must be a number')
  .int('must be a whole number')
  .min(1, 'must be a positive whole number')
  .max(MAX_STOCK_QUANTITY, `must be at most ${MAX_STOCK_QUANTITY}`);

/** The lots a decrease drew from, in the order drawn (the product's FIFO or FEFO). */
export const allocations = z.array(z.object({ inventory_id: z.guid(), quantity: z.number().int() }));
