/** What stock-adjust answers (seed 02, CONTRACT §2), for the OpenAPI document. */
import { z } from 'zod';
import { allocations } from '../_shared/inventory.ts';
import { enums } from '../_shared/enums.ts';
import { success } from '../_shared/responses.ts';

export const stockAdjustResponse = z.object({
  success: z.literal(true),
  inventory_id: z.guid().optional(),
  product_id: z.guid(),
  adjustment_quantity: z.number().int(),
  adjustment_type: z.enum(['increase', 'decrease']),
  previous_available_stock: z.number().int(),
  new_available_stock: z.number().int(),
  current_stock: z.number().int(),
  reason: z.string(),
  reason_note: z.string().optional(),
  source: z.string().optional(),
  allocations: allocations.optional(),
  message: z.string(),
});

export const stockAdjustReasonsResponse = success(z.object({
  reasons: z.array(z.object({
    reason: z.enum(enums.stock_adjust_reason),
    direction: z.enum(enums.stock_adjust_direction).describe('Which way the reason may move stock'),
    needs_note: z.boolean().describe('Whether an adjustment with this reason must carry a reason_note'),
  })),
}));
