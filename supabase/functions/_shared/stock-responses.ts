/** What the inventory functions answer (seed 02, CONTRACT §2), for the OpenAPI documents. */
import { z } from 'zod';
import { enums } from './enums.ts';
import { day, success, timestamp } from './responses.ts';

/** What a unit of the lot cost (TWD), when the delivery said: shipped lines cost what their lots cost. */
const unitCost = z.number().nullable().describe('What one unit of the lot cost (TWD); null when not given');

const allocations = z.array(z.object({ inventory_id: z.guid(), quantity: z.number().int() }));

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
