/** What the stock functions share: the quantity rule, and the lots a decrease drew from. */
import { z } from 'zod';
import { Limits } from './database.types.ts';

export const stockQuantity = z
  .number('must be a number')
  .int('must be a whole number')
  .min(1, 'must be a positive whole number')
  .max(Limits.stock_quantity, `must be at most ${Limits.stock_quantity}`);

/** The lots a decrease drew from, in the order drawn (the product's FIFO or FEFO). */
export const allocations = z.array(z.object({ inventory_id: z.guid(), quantity: z.number().int() }));
