/** What stock-in accepts: seed 02's request and CONTRACT §2's limits. */
import { z } from 'zod';
import { stockQuantity } from '../_shared/inventory.ts';
import { isoDateTime, uuid } from '../_shared/validation.ts';

export const STOCK_IN_SOURCES = [
  'manual_stock_in',
  'purchase_order',
  'return_goods',
  'transfer_in',
  'production_complete',
  'supplier_direct',
  'other',
] as const;

export const stockInBody = z.strictObject({
  product_id: uuid,
  quantity: stockQuantity,
  source: z.enum(STOCK_IN_SOURCES, `must be one of ${STOCK_IN_SOURCES.join(', ')}`).optional(),
  note: z.string('must be a string').max(1000, 'at most 1000 characters').optional(),
  received_at: isoDateTime('must be an ISO 8601 date-time').optional(),
});
