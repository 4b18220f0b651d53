/**
 * What the orders list accepts: zod checks shape (types, formats, unknown parameters: 400); what a caller
 * may see is the tables' RLS.
 */
import { z } from 'zod';
import { Limits } from '../_shared/database.types.ts';
import { enums } from '../_shared/enums.ts';
import { orderArea } from '../_shared/errors.ts';
import { MAX_MONEY } from '../_shared/money.ts';
import {
  enumOf,
  isoDateTime,
  linesProblem,
  queryBoolean,
  queryInteger,
  rule,
  twoDecimals,
  uuid,
} from '../_shared/validation.ts';
import { ORDER_FIGURES } from './figures.ts';
import { MIN_SEARCH_CHARACTERS, searchLength } from './search.ts';

export const SORTABLE_COLUMNS = ['ordered_at', 'total_amount'] as const;

const TOO_SHORT = `at least ${MIN_SEARCH_CHARACTERS} characters, or one Chinese character`;
const instant = isoDateTime('must be an ISO 8601 date-time with an offset, e.g. 2026-11-24T00:00:00Z');

export const listQuery = z
  .strictObject({
    ordered_from: instant.optional(),
    ordered_before: instant.optional(),
    as_of: instant.optional(),
    status: enumOf(enums.order_status).optional(),
    figure: enumOf(ORDER_FIGURES).optional(),
    search: z
      .string()
      .trim()
      .min(1, TOO_SHORT)
      .max(100, 'at most 100 characters')
      .refine((text) => searchLength(text) >= MIN_SEARCH_CHARACTERS, TOO_SHORT)
      .optional(),
    customer_id: z.string().pipe(uuid).optional(),
    with_lines: queryBoolean.optional(),
    page: queryInteger(1, 1_000_000).optional(),
    per_page: queryInteger(1, 200).optional(),
    sort_by: enumOf(SORTABLE_COLUMNS).optional(),
    sort_order: z.enum(['asc', 'desc'], 'must be asc or desc').optional(),
  })
  .refine(
    (query) =>
      !query.ordered_from || !query.ordered_before || Date.parse(query.ordered_from) < Date.parse(query.ordered_before),
    rule('after', 'must be later than ordered_from', { field: 'ordered_from' }, ['ordered_before']),
  );

/** `/:id`: one order. */
export const orderPath = z.object({ id: z.string().pipe(uuid) });

/** The most lines an order may have and the most units a line may ask for: the database's (`Limits`). */
const { order_lines: MAX_ORDER_LINES, line_quantity: MAX_LINE_QUANTITY } = Limits;

/** One line of a new order: what, how many, at what price a unit (TWD). */
const orderLine = z.strictObject({
  product_id: uuid,
  quantity: z.number('must be a number').int('must be a whole number').min(1, 'must be at least 1')
    .max(MAX_LINE_QUANTITY, `must be at most ${MAX_LINE_QUANTITY}`),
  unit_price: z.number('must be a number').min(0, 'must be at least 0').max(
    MAX_MONEY,
    `must be at most ${MAX_MONEY}`,
  )
    .check(twoDecimals()),
});

/** POST /orders: public.place_order's arguments. The status a new order may have: placed, or paid at once. */
export const placeBody = z.strictObject({
  customer_id: uuid,
  lines: z.array(orderLine, 'must be an array of lines').min(1, 'must have at least 1 line')
    .max(MAX_ORDER_LINES, `at most ${MAX_ORDER_LINES} lines`)
    .refine(
      (lines) => lines.reduce((total, line) => total + line.quantity * line.unit_price, 0) <= MAX_MONEY,
      rule('max_total', `the order may come to at most ${MAX_MONEY}`, { max: MAX_MONEY }),
    ),
  status: enumOf(enums.new_order_status).optional(),
  ordered_at: instant.optional(),
});

/** A refused line is named by its index (`details.index`), as the database names it. */
export const placeProblem = linesProblem('lines', orderArea);

/**
 * PATCH /orders/:id: the status to move to, and for a refund after shipping whether the goods go back. Where
 * `restock` means nothing (any other move, a refund before shipping), the database refuses it, naming it.
 */
export const statusBody = z.strictObject({
  status: enumOf(enums.order_status),
  restock: z.boolean('must be true or false').optional(),
});
