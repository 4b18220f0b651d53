/** What the three stock functions share: the quantity rule and the id format. */
import { z } from 'zod';

export const MAX_STOCK_QUANTITY = 1_000_000_000;

// Any 8-4-4-4-12 hex string, as PostgreSQL's uuid type accepts; z.uuid() would also demand an RFC version.
export const uuid = z.guid('must be a UUID');

export const stockQuantity = z
  .number('must be a number')
  .int('must be a whole number')
  .min(1, 'must be a positive whole number')
  .max(MAX_STOCK_QUANTITY, `must be at most ${MAX_STOCK_QUANTITY}`);
