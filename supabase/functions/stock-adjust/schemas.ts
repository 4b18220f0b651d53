/**
 * What stock-adjust accepts: seed 02's request and CONTRACT §2's decisions. A reason must point the
 * same way as the quantity (a write-off cannot add stock); `other` needs a `reason_note`.
 */
import { z } from 'zod';
import { MAX_STOCK_QUANTITY } from '../_shared/inventory.ts';
import { uuid } from '../_shared/validation.ts';

export const INCREASE_REASONS = [
  'inventory_audit_increase',
  'return_goods',
  'supplier_compensation',
  'miscount_correction',
];
export const DECREASE_REASONS = [
  'inventory_audit_decrease',
  'damage_writeoff',
  'expired_removal',
  'loss_theft',
  'quality_issue',
];
export const ADJUST_REASONS = [...INCREASE_REASONS, ...DECREASE_REASONS, 'other'] as const;
export const ADJUST_SOURCES = ['manual_adjustment', 'inventory_count', 'system_correction', 'other'] as const;

export const stockAdjustBody = z
  .strictObject({
    product_id: uuid.optional(),
    inventory_id: uuid.optional(),
    adjust_quantity: z
      .number('must be a number')
      .int('must be a whole number')
      .refine((value) => value !== 0, 'must not be 0')
      .refine(
        (value) => Math.abs(value) <= MAX_STOCK_QUANTITY,
        `must be between -${MAX_STOCK_QUANTITY} and ${MAX_STOCK_QUANTITY}`,
      ),
    reason: z.enum(ADJUST_REASONS, 'must be one of the adjustment reason codes'),
    reason_note: z.string('must be a string').max(500, 'at most 500 characters').optional(),
    source: z.enum(ADJUST_SOURCES, `must be one of ${ADJUST_SOURCES.join(', ')}`).optional(),
  })
  .superRefine((body, ctx) => {
    if ((body.product_id === undefined) === (body.inventory_id === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [body.product_id === undefined ? 'product_id' : 'inventory_id'],
        message: 'exactly one of product_id and inventory_id is required',
      });
    } else if (body.adjust_quantity > 0 && DECREASE_REASONS.includes(body.reason)) {
      ctx.addIssue({ code: 'custom', path: ['reason'], message: 'is a decrease reason; adjust_quantity is positive' });
    } else if (body.adjust_quantity < 0 && INCREASE_REASONS.includes(body.reason)) {
      ctx.addIssue({ code: 'custom', path: ['reason'], message: 'is an increase reason; adjust_quantity is negative' });
    } else if (body.reason === 'other' && !body.reason_note?.trim()) {
      ctx.addIssue({ code: 'custom', path: ['reason_note'], message: 'required when reason is other' });
    }
  });
