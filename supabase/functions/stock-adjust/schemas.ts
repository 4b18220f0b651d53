/**
 * What stock-adjust accepts: seed 02's request and CONTRACT §2's decisions. zod checks each field's shape;
 * the rules between fields (exactly one of product_id and inventory_id, a reason pointing the same way as
 * the quantity, `other` needing a `reason_note`) are `public.stock_adjust`'s, for rpc callers too, and
 * come back as the same 400 naming the field.
 */
import { z } from 'zod';
import { enums } from '../_shared/enums.ts';
import { Limits } from '../_shared/database.types.ts';
import { enumOf, rule, uuid } from '../_shared/validation.ts';

export const stockAdjustBody = z.strictObject({
  product_id: uuid.optional(),
  inventory_id: uuid.optional(),
  adjust_quantity: z
    .number('must be a number')
    .int('must be a whole number')
    .refine((value) => value !== 0, rule('not_zero', 'must not be 0'))
    .refine(
      (value) => Math.abs(value) <= Limits.stock_quantity,
      rule('between', `must be between -${Limits.stock_quantity} and ${Limits.stock_quantity}`, {
        min: -Limits.stock_quantity,
        max: Limits.stock_quantity,
      }),
    ),
  reason: enumOf(enums.stock_adjust_reason),
  reason_note: z.string('must be a string').max(500, 'at most 500 characters').optional(),
  source: enumOf(enums.stock_adjust_source).optional(),
});
