/** What stock-in accepts: seed 02's request and CONTRACT §2's limits, one lot or a delivery of several. */
import { z } from 'zod';
import { enums } from '../_shared/enums.ts';
import { stockQuantity } from '../_shared/inventory.ts';
import { MAX_MONEY } from '../_shared/money.ts';
import { inventoryArea } from '../_shared/errors.ts';
import { enumOf, isoDate, isoDateTime, linesProblem, twoDecimals, uuid } from '../_shared/validation.ts';

/** The supplier's lot (batch) number, as `inventory_records_lot_number_format` holds it. */
const lotNumber = z
  .string('must be a string')
  .trim()
  .min(1, 'must not be empty')
  .max(64, 'at most 64 characters')
  // deno-lint-ignore no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters');

/** A stock-in's free text, for the lot and its history. */
const stockInNote = z.string('must be a string').max(1000, 'at most 1000 characters');

/** What one unit of a lot cost the store, TWD (inventory_records.unit_cost, numeric(12, 2)). */
const unitCost = z.number('must be a number').min(0, 'must be at least 0')
  .max(MAX_MONEY, `must be at most ${MAX_MONEY}`).check(twoDecimals());

/** What one lot carries: the expiry is a store day (the database refuses one before the day received). */
const lot = {
  product_id: uuid,
  quantity: stockQuantity,
  lot_number: lotNumber.optional(),
  expires_on: isoDate.optional(),
  note: stockInNote.optional(),
  unit_cost: unitCost.optional(),
};

/** What the delivery as a whole says. */
const delivery = {
  source: enumOf(enums.stock_in_source).optional(),
  received_at: isoDateTime('must be an ISO 8601 date-time').optional(),
};

export const stockInBody = z.strictObject({ ...lot, ...delivery });

export const MAX_DELIVERY_LINES = 200;

export const stockInBatchBody = z.strictObject({
  items: z
    .array(z.strictObject(lot), 'must be an array of lines')
    .min(1, 'must have at least 1 line')
    .max(MAX_DELIVERY_LINES, `at most ${MAX_DELIVERY_LINES} lines`),
  note: stockInNote.optional(),
  ...delivery,
});

/** A refused line is named by its index too (`details.index`), as the database names it. */
export const lineProblem = linesProblem('items', inventoryArea);
