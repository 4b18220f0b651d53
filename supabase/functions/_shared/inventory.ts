/** What the stock functions share: the quantity rule, and what a received lot carries. */
import { z } from 'zod';
import { MAX_MONEY } from './money.ts';
import { twoDecimals } from './validation.ts';

export const MAX_STOCK_QUANTITY = 1_000_000_000;

export const stockQuantity = z
  .number('must be a number')
  .int('must be a whole number')
  .min(1, 'must be a positive whole number')
  .max(MAX_STOCK_QUANTITY, `must be at most ${MAX_STOCK_QUANTITY}`);

/** The supplier's lot (batch) number, as `inventory_records_lot_number_format` holds it. */
export const lotNumber = z
  .string('must be a string')
  .trim()
  .min(1, 'must not be empty')
  .max(64, 'at most 64 characters')
  // deno-lint-ignore no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters');

/** A stock-in's free text, for the lot and its history. */
export const stockInNote = z.string('must be a string').max(1000, 'at most 1000 characters');

/** What one unit of a lot cost the store, TWD (inventory_records.unit_cost, numeric(12, 2)). */
export const unitCost = z.number('must be a number').min(0, 'must be at least 0')
  .max(MAX_MONEY, `must be at most ${MAX_MONEY}`).check(twoDecimals());
